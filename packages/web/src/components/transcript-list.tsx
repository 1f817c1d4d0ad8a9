/**
 * The transcript, virtualized: only the items near the viewport are in the DOM (measured as they
 * render), so a session of many thousand parts opens and scrolls like a short one. It follows the
 * newest item while the reader is at the bottom and stays put once they scroll up.
 */
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TranscriptItem } from '../transcript.js';

/** Within this many pixels of the bottom counts as "at the bottom". */
const STICK_SLACK_PX = 64;
const ESTIMATED_ITEM_PX = 72;
const OVERSCAN_ITEMS = 6;

export function TranscriptList({
  items,
  render,
}: {
  items: readonly TranscriptItem[];
  render: (item: TranscriptItem) => ReactNode;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATED_ITEM_PX,
    getItemKey: (index) => items[index]?.key ?? index,
    overscan: OVERSCAN_ITEMS,
    initialOffset: () => Number.MAX_SAFE_INTEGER,
  });
  const total = virtualizer.getTotalSize();

  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && stick.current) element.scrollTop = element.scrollHeight;
  }, [total, items]);

  return (
    <div
      ref={scroller}
      className="transcript-scroll"
      data-testid="transcript"
      onScroll={(event) => {
        const element = event.currentTarget;
        stick.current = element.scrollHeight - element.scrollTop - element.clientHeight < STICK_SLACK_PX;
      }}
    >
      <ol className="transcript" aria-live="polite" style={{ height: total }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index];
          if (!item) return null;
          return (
            <li
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className={`transcript-row row-${item.kind}`}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              {render(item)}
            </li>
          );
        })}
      </ol>
    </div>
  );
}
