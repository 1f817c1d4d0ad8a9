/**
 * The session's find bar (Ctrl+F or ⌘F in a session): the text to look for, which match of how
 * many is shown, previous and next (Shift+Enter and Enter), and Escape to close. What it searches
 * is the folded transcript (find.ts), so rows not in the DOM are found too; the occurrences in
 * the rows on screen are marked with the CSS Custom Highlight API (`highlightIn`), where the
 * browser has it.
 */
import { useEffect, useRef } from 'react';

/** The name the marks are registered under; styles.css gives it its colours (`::highlight`). */
const HIGHLIGHT = 'bastion-find';

/** The parts of the CSS Custom Highlight API used here (not in every DOM typing). */
interface HighlightRegistry {
  set(name: string, highlight: object): void;
  delete(name: string): void;
}
declare const Highlight: (new (...ranges: Range[]) => object) | undefined;

function registry(): HighlightRegistry | undefined {
  const highlights = (globalThis.CSS as { highlights?: HighlightRegistry } | undefined)?.highlights;
  return highlights !== undefined && typeof Highlight === 'function' ? highlights : undefined;
}

/** Mark every occurrence of `query` (case-insensitive) in the text under `root`; none for an empty query. */
export function highlightIn(root: HTMLElement | null, query: string): void {
  const highlights = registry();
  if (!highlights || typeof Highlight !== 'function') return;
  const needle = query.toLowerCase();
  if (!root || needle.trim() === '') {
    highlights.delete(HIGHLIGHT);
    return;
  }
  const ranges: Range[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = (node.nodeValue ?? '').toLowerCase();
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + needle.length);
      ranges.push(range);
    }
  }
  highlights.set(HIGHLIGHT, new Highlight(...ranges));
}

export function FindBar({
  query,
  onQuery,
  count,
  current,
  onStep,
  onClose,
  focusRequest,
  partial,
}: {
  query: string;
  onQuery: (query: string) => void;
  count: number;
  /** The match shown, from 0. */
  current: number;
  /** To the next match (1) or the previous one (-1), wrapping. */
  onStep: (step: 1 | -1) => void;
  onClose: () => void;
  /** Changes each time the bar is asked for again (Ctrl+F while open): the box takes focus, its text selected. */
  focusRequest: number;
  /** Older turns of the session are not loaded, so not searched. */
  partial: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [focusRequest]);
  const found = query.trim() === '' ? '' : count === 0 ? 'No matches' : `${current + 1} of ${count}`;
  return (
    <div className="find-bar" role="search" aria-label="Find in this session">
      <input
        ref={input}
        type="text"
        aria-label="Find in this session"
        placeholder="Find in this session"
        value={query}
        onChange={(event) => onQuery(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            onStep(event.shiftKey ? -1 : 1);
          } else if (event.key === 'Escape') {
            // Not the run's Stop: Escape here only closes the bar.
            event.preventDefault();
            onClose();
          }
        }}
      />
      <span className="find-count" role="status">
        {found}
      </span>
      <button
        type="button"
        className="small"
        aria-label="Previous match"
        disabled={count === 0}
        onClick={() => onStep(-1)}
      >
        ↑
      </button>
      <button type="button" className="small" aria-label="Next match" disabled={count === 0} onClick={() => onStep(1)}>
        ↓
      </button>
      <button type="button" className="small" aria-label="Close find" onClick={onClose}>
        ✕
      </button>
      {partial && <span className="find-partial muted">Older turns are not loaded: scroll up to search them too.</span>}
    </div>
  );
}
