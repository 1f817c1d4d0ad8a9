/**
 * The transcript, virtualized: only the items near the viewport are in the DOM (measured as they
 * render), so a session of many thousand parts opens and scrolls like a short one. The view is
 * anchored at its end (the virtualizer's `anchorTo: 'end'`): it follows new and growing items
 * while the reader is at the bottom, stays put once they scroll up, and keeps showing the same
 * rows when older items are put in front. Near the top it asks for those (`onNearTop`). A reader
 * who scrolled up while new output came is offered "Jump to latest"; sending a message
 * (`endRequest`) goes to the end at once.
 */
import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TranscriptItem } from '../transcript.js';
import { followsAfterScroll, type EndReading } from './distance-from-end.js';
import { highlightIn } from './find-bar.js';

/** Within this many pixels of the bottom counts as "at the bottom". */
const STICK_SLACK_PX = 64;
/** Within this many pixels, the view is at the very end, where a growing row keeps it. */
const AT_END_PX = 1;
/** The virtualizer's end threshold while the reader scrolls: no distance is within it, so no growing row holds the view. */
const NEVER_AT_END = -1;
/** Within this many pixels of the top, older items are asked for. */
const OLDER_SLACK_PX = 800;
/**
 * A row's height before it is measured, by kind (about what a one-line row of that kind takes).
 * Close guesses matter where the reader jumps to rows not yet measured: a row above the view that
 * measures otherwise moves the view by the difference.
 */
const ESTIMATED_ROW_PX: Record<TranscriptItem['kind'], number> = {
  user: 50,
  assistant: 52,
  reasoning: 40,
  tool: 200,
  retry: 40,
  compacted: 50,
  instructions: 24,
  error: 90,
  'run-end': 16,
  undone: 60,
  rewound: 60,
};
const estimatedRowPx = (item: TranscriptItem | undefined) => (item ? ESTIMATED_ROW_PX[item.kind] : 0);
const OVERSCAN_ITEMS = 6;
/** How long after the reader's own scrolling input a move of the view counts as theirs (a wheel's smooth scroll lasts about this). */
const READER_SCROLL_MS = 500;
/** Keys that scroll a view up when it, or the page, has focus. */
const SCROLL_UP_KEYS = new Set(['PageUp', 'ArrowUp', 'Home']);

type RenderItem = (item: TranscriptItem) => ReactNode;

/** A row renders again only when its item (a new object when an event changed it) or `render` changes. */
const RowContent = memo(function RowContent({ item, render }: { item: TranscriptItem; render: RenderItem }) {
  return render(item);
});

export function TranscriptList({
  items,
  render,
  hasOlder,
  onNearTop,
  revealKey,
  endRequest,
  empty,
  find,
}: {
  items: readonly TranscriptItem[];
  /** Keep it stable across events (useCallback): every visible row renders again when it changes. */
  render: RenderItem;
  /** Whether there are older items to ask for. */
  hasOlder: boolean;
  onNearTop: () => void;
  /** An item to bring into view once it is in the list (each key once), wherever the reader is. */
  revealKey?: string;
  /** Bumped to bring the view to the end and follow from there (the reader sent a message). */
  endRequest: number;
  /** Shown while the list has no items (a session with no message yet). */
  empty?: ReactNode;
  /**
   * The find bar's state: its text (marked in the rows on screen), the items holding it, and the
   * one shown (`current`, brought to the middle of the view each time `seq` changes).
   */
  find?: { query: string; keys: ReadonlySet<string>; current: string | undefined; seq: number };
}) {
  const scroller = useRef<HTMLDivElement>(null);
  /**
   * The reader is moving the view (readerScrollingUntil below): the virtualizer stops holding it at
   * the end meanwhile. A keyboard or wheel scroll is animated over several frames, and a row growing
   * under a view still at the end in its first frame would have the virtualizer write the end
   * again, which cancels the animation: at a reply's full stream, each step of the reader's was
   * undone before it moved the view.
   */
  const [readerMoving, setReaderMoving] = useState(false);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => estimatedRowPx(items[index]),
    getItemKey: (index) => items[index]?.key ?? index,
    overscan: OVERSCAN_ITEMS,
    // A list that mounts with its items (a session opened on its prefetched page) renders its
    // last rows the first time, not the first rows and then, after scrolling, the last.
    initialOffset: () => items.reduce((sum, item) => sum + estimatedRowPx(item), 0),
    // Anchored at the end: a row that grows while the view is at the very end keeps it there. The
    // list, not the virtualizer, follows appends (below): the virtualizer would follow from within a
    // slack of the end, and so pull back a reader whose keyboard scroll has only begun to move up.
    anchorTo: 'end',
    scrollEndThreshold: readerMoving ? NEVER_AT_END : AT_END_PX,
    // Let React batch the re-render a measurement asks for with the frame's other updates,
    // instead of rendering again synchronously inside each resize callback.
    useFlushSync: false,
  });

  // Open at the newest item.
  const opened = useRef(false);
  useLayoutEffect(() => {
    if (opened.current || items.length === 0) return;
    opened.current = true;
    virtualizer.scrollToEnd();
  }, [items.length, virtualizer]);

  /** The list keeps the end in view: decided in each scroll event (followsAfterScroll). */
  const following = useRef(true);
  /** Until when a move of the view is the reader's (their last scrolling input), or Infinity while they hold the scrollbar. */
  const readerScrollingUntil = useRef(0);
  const readerScrolling = () => performance.now() < readerScrollingUntil.current;
  /** Output came below while the reader was away from the end: "Jump to latest" shows until they are back. */
  const [newBelow, setNewBelow] = useState(false);
  const jumpToEnd = useCallback(() => {
    following.current = true;
    setNewBelow(false);
    virtualizer.scrollToEnd();
  }, [virtualizer]);

  // New output is a new last item (a new row, or the last row changed by an event); older items
  // put in front leave the last one as it was.
  const last = items[items.length - 1];
  const lastSeen = useRef(last);
  // Before the frame is painted, so an appended row is never shown with the view short of it. Not
  // while the reader scrolls: their move decides whether the view still follows.
  useLayoutEffect(() => {
    if (last === lastSeen.current) return;
    lastSeen.current = last;
    if (!following.current) setNewBelow(true);
    else if (!readerScrolling()) virtualizer.scrollToEnd();
  }, [last, virtualizer]);

  useEffect(() => {
    if (endRequest > 0) jumpToEnd();
  }, [endRequest, jumpToEnd]);

  // The view itself changes height after the first paint (the chat header fills in when the
  // session's details arrive, the composer grows, a prompt appears below, the window is resized): a
  // reader who was following the end stays there, instead of losing the newest rows under the
  // bottom edge. Whether they follow is decided in each scroll event; the observer runs after the
  // frame's scroll events, so those are read against the layout the list last reacted to
  // (distanceFromEnd says why), or one reporting in the frame the view shrank would stop the
  // following for good.
  useEffect(() => {
    const element = scroller.current;
    if (!element) return undefined;
    let height = element.clientHeight;
    let previous: EndReading | undefined;
    const onScroll = () => {
      const style = getComputedStyle(element);
      const paddings = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
      const now: EndReading = {
        scrollTop: element.scrollTop,
        scrollHeight: element.scrollHeight,
        measuredScrollHeight: virtualizer.getTotalSize() + paddings,
        clientHeight: element.clientHeight,
        settledClientHeight: height,
      };
      following.current = followsAfterScroll({
        following: following.current,
        previous,
        now,
        slack: STICK_SLACK_PX,
        readerScrolling: readerScrolling(),
      });
      previous = now;
      if (following.current) setNewBelow(false);
    };
    // The reader's own scrolling: a wheel turned up, a touch, a scroll key (not typed into a
    // field), the scrollbar held (a press on the scroller itself, not on a row).
    let settle = 0;
    const settleLater = () => {
      window.clearTimeout(settle);
      settle = window.setTimeout(() => {
        if (readerScrolling()) settleLater();
        else setReaderMoving(false);
      }, READER_SCROLL_MS);
    };
    const scrolling = () => {
      readerScrollingUntil.current = Math.max(readerScrollingUntil.current, performance.now() + READER_SCROLL_MS);
      setReaderMoving(true);
      settleLater();
      virtualizer.cancelScroll();
    };
    const onWheel = (event: WheelEvent) => {
      if (event.deltaY < 0) scrolling();
    };
    const onKey = (event: KeyboardEvent) => {
      const { target } = event;
      if (target instanceof Element && target.closest('input, textarea, select, [contenteditable="true"]')) return;
      if (SCROLL_UP_KEYS.has(event.key) || (event.key === ' ' && event.shiftKey)) scrolling();
    };
    const onPress = (event: PointerEvent) => {
      if (event.target !== element) return;
      readerScrollingUntil.current = Number.POSITIVE_INFINITY;
      setReaderMoving(true);
      virtualizer.cancelScroll();
    };
    const onRelease = () => {
      if (readerScrollingUntil.current === Number.POSITIVE_INFINITY) {
        readerScrollingUntil.current = 0;
        scrolling();
      }
    };
    const observer = new ResizeObserver(() => {
      if (element.clientHeight === height) return;
      height = element.clientHeight;
      if (following.current) virtualizer.scrollToEnd();
    });
    element.addEventListener('scroll', onScroll, { passive: true });
    element.addEventListener('wheel', onWheel, { passive: true });
    element.addEventListener('touchmove', scrolling, { passive: true });
    element.addEventListener('pointerdown', onPress);
    window.addEventListener('pointerup', onRelease);
    window.addEventListener('pointercancel', onRelease);
    window.addEventListener('keydown', onKey);
    observer.observe(element);
    return () => {
      element.removeEventListener('scroll', onScroll);
      element.removeEventListener('wheel', onWheel);
      element.removeEventListener('touchmove', scrolling);
      element.removeEventListener('pointerdown', onPress);
      window.removeEventListener('pointerup', onRelease);
      window.removeEventListener('pointercancel', onRelease);
      window.removeEventListener('keydown', onKey);
      window.clearTimeout(settle);
      observer.disconnect();
    };
  }, [virtualizer]);

  // What the reader's own action added (a "Run undone" notice) comes into view even when they
  // had scrolled away from the end, where it is added.
  const revealed = useRef<string>(undefined);
  useEffect(() => {
    if (revealKey === undefined || revealed.current === revealKey) return;
    const index = items.findIndex((item) => item.key === revealKey);
    if (index < 0) return;
    revealed.current = revealKey;
    virtualizer.scrollToIndex(index, { align: 'end' });
  }, [revealKey, items, virtualizer]);

  // The match the find bar shows comes to the middle of the view, each time it is asked for.
  const findCurrent = find?.current;
  const findSeq = find?.seq;
  useEffect(() => {
    if (findCurrent === undefined) return;
    const index = items.findIndex((item) => item.key === findCurrent);
    if (index < 0) return;
    // The match stays in view while a run appends below (back at the end, the list follows again).
    following.current = false;
    virtualizer.scrollToIndex(index, { align: 'center' });
    // Only a new request moves the view, not the items changing under it: `items` is left out.
  }, [findCurrent, findSeq, virtualizer]);

  // The found text is marked in the rows in the DOM, again whenever they change (scrolling puts
  // other rows in, a reply streams in, markdown renders).
  const query = find?.query ?? '';
  useEffect(() => {
    const element = scroller.current;
    if (!element || query.trim() === '') return undefined;
    let scheduled = 0;
    const mark = () => {
      scheduled = 0;
      highlightIn(element, query);
    };
    mark();
    const observer = new MutationObserver(() => {
      if (scheduled === 0) scheduled = window.requestAnimationFrame(mark);
    });
    observer.observe(element, { childList: true, subtree: true, characterData: true });
    return () => {
      observer.disconnect();
      if (scheduled !== 0) window.cancelAnimationFrame(scheduled);
      highlightIn(null, '');
    };
  }, [query]);

  // Ask for older items while the top is near (also when the list does not fill the view yet).
  useEffect(() => {
    const element = scroller.current;
    if (hasOlder && element && element.scrollTop < OLDER_SLACK_PX) onNearTop();
  }, [hasOlder, onNearTop, items]);

  return (
    <div className="transcript-pane">
      <div
        ref={scroller}
        className="transcript-scroll"
        data-testid="transcript"
        onScroll={(event) => {
          if (hasOlder && event.currentTarget.scrollTop < OLDER_SLACK_PX) onNearTop();
        }}
      >
        {items.length === 0 && empty}
        <ol className="transcript" aria-live="polite" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((row) => {
            const item = items[row.index];
            if (!item) return null;
            return (
              <li
                key={row.key}
                data-index={row.index}
                ref={virtualizer.measureElement}
                className={`transcript-row row-${item.kind}${item.rewound ? ' rewound' : ''}${
                  find?.current === item.key ? ' find-current' : find?.keys.has(item.key) ? ' find-match' : ''
                }`}
                style={{ transform: `translateY(${row.start}px)` }}
              >
                <RowContent item={item} render={render} />
              </li>
            );
          })}
        </ol>
      </div>
      {newBelow && (
        <button type="button" className="jump-to-latest" onClick={jumpToEnd}>
          Jump to latest <span aria-hidden="true">↓</span>
        </button>
      )}
    </div>
  );
}
