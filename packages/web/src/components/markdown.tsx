/**
 * The agent's text as GitHub-flavoured markdown, block by block. The parser and highlighter are
 * a chunk of their own (markdown-loader.ts): until it is in, a block with markdown syntax shows
 * its text as written (wrapped, same font and spacing), and each such block renders again,
 * parsed, when it arrives.
 */
import { Component, memo, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { UI_MARKDOWN_MAX_BLOCK_CHARS, UI_MARKDOWN_MAX_CHARS, UI_MARKDOWN_MAX_NESTING } from '@bastion/protocol';
import { markdownBlocks } from '../markdown-blocks.js';
import { loadedMarkdownRenderer, loadMarkdownRenderer, subscribeMarkdownRenderer } from './markdown-loader.js';

function useRenderer() {
  const loaded = useSyncExternalStore(subscribeMarkdownRenderer, loadedMarkdownRenderer);
  useEffect(() => {
    if (!loaded) loadMarkdownRenderer().catch(() => undefined);
  }, [loaded]);
  return loaded;
}

/** Characters without which a block (less its trailing blank lines) renders the same as markdown and as plain text. */
const MARKDOWN_SYNTAX = /[\n*_`#[\]|<>~\\!:=&-]|^\s*\d+[.)]|www\./i;

/** A line's leading list and quote markers (`- `, `* `, `+ `, `1. `, `>`), one at a time. */
const CONTAINER_MARKER = /^[ \t]{0,3}(?:[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$)|>)[ \t]?/;

/** Does a line of `text` nest more list or quote markers than the parser is given? */
function nestsTooDeep(text: string): boolean {
  for (const line of text.split('\n')) {
    let rest = line;
    for (let depth = 0; ; depth += 1) {
      const marker = CONTAINER_MARKER.exec(rest);
      if (marker === null) break;
      if (depth >= UI_MARKDOWN_MAX_NESTING) return true;
      rest = rest.slice(marker[0].length);
    }
  }
  return false;
}

/** A fenced code block: its body is never parsed inline, so its length costs the parser little. */
const FENCED = /^[ \t]{0,3}(?:```|~~~)/;

/** Would parsing this block stall the page or overflow its stack? Then it shows as plain text. */
const tooHeavy = (text: string) =>
  (text.length > UI_MARKDOWN_MAX_BLOCK_CHARS && !FENCED.test(text)) || nestsTooDeep(text);

/** A block the parser threw on shows as its text: one bad block never takes the transcript with it. */
class PlainOnError extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render(): ReactNode {
    return this.state.failed ? <p className="markdown-pending">{this.props.text}</p> : this.props.children;
  }
}

/**
 * One block of markdown. A block with no markdown syntax at all skips the parser: rows mount
 * again as a long transcript scrolls, and a parse per mount is most of a frame. One too long or
 * nested too deep to parse safely (tooHeavy) shows as its text, and so does one the parser fails on.
 */
const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  const trimmed = text.trimEnd();
  const plain = !MARKDOWN_SYNTAX.test(trimmed);
  const loaded = useRenderer();
  if (plain) return <p>{trimmed}</p>;
  if (!loaded || tooHeavy(trimmed)) return <p className="markdown-pending">{trimmed}</p>;
  return (
    <PlainOnError key={text} text={trimmed}>
      <loaded.ParsedMarkdownBlock text={text} />
    </PlainOnError>
  );
});

/**
 * Markdown for text up to UI_MARKDOWN_MAX_CHARS; beyond that, plain text (parsing it would stall
 * the page). The text is rendered block by block (markdownBlocks), each memoized: while a reply
 * streams, only its last block is parsed and laid out again.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  if (text.length > UI_MARKDOWN_MAX_CHARS) return <div className="plain-text">{text}</div>;
  return (
    <div className="markdown">
      {markdownBlocks(text).map((block, index) => (
        <MarkdownBlock key={index} text={block} />
      ))}
    </div>
  );
});
