/**
 * How far the reader is from the end of the transcript, read in a scroll event, as the list knows
 * its layout rather than as the layout is at that instant.
 *
 * The browser dispatches a frame's scroll events before its ResizeObservers run, so a scroll event
 * (often the list's own write reporting back) can read a layout that changed under it and that the
 * list has not reacted to yet: a view that shrank (the chat header filling in after a reload, the
 * window made shorter or narrower), rows the virtualizer measured smaller and moved the scroll
 * position for before the list re-rendered shorter, a row that grew past its measured size. Read
 * raw, each of these looks like the reader scrolling away from the end. So the view is taken at the
 * height the list last reacted to (when it shrank since), and the end at whichever of the laid-out
 * and the measured ends is nearer. A reader who really scrolled away is far from both.
 */
export interface EndReading {
  scrollTop: number;
  /** The element's scrollHeight: the end as laid out, a row that outgrew its measurement included. */
  scrollHeight: number;
  /** The end by the rows' measured sizes (the virtualizer's total and the element's paddings). */
  measuredScrollHeight: number;
  clientHeight: number;
  /** The view's height when the list last reacted to a change of it (its ResizeObserver). */
  settledClientHeight: number;
}

export function distanceFromEnd({
  scrollTop,
  scrollHeight,
  measuredScrollHeight,
  clientHeight,
  settledClientHeight,
}: EndReading): number {
  return Math.min(scrollHeight, measuredScrollHeight) - scrollTop - Math.max(clientHeight, settledClientHeight);
}

/**
 * Whether the list still follows the end after a scroll event, given the reading before it.
 *
 * Back within `slack` of the end, it follows again. Otherwise only a move up leaves the end, and
 * only one that is the reader's: made while they scroll (a wheel turned up, a touch, a scroll key,
 * the scrollbar held), or farther than the layout changed since the last reading (the app's own
 * jump to a row, the browser's find). A move up no larger than the rows' growing or shrinking is
 * the virtualizer keeping a re-measured row in place while a run appends below; taken as the
 * reader's, it would stop the view following a run that nobody scrolled away from.
 */
export function followsAfterScroll({
  following,
  previous,
  now,
  slack,
  readerScrolling,
}: {
  following: boolean;
  previous: EndReading | undefined;
  now: EndReading;
  slack: number;
  readerScrolling: boolean;
}): boolean {
  if (distanceFromEnd(now) <= slack) return true;
  if (!following) return false;
  if (previous === undefined) return !readerScrolling;
  const movedUp = previous.scrollTop - now.scrollTop;
  if (movedUp <= 0) return true;
  if (readerScrolling) return false;
  const layoutMoved = Math.max(
    Math.abs(now.scrollHeight - previous.scrollHeight),
    Math.abs(now.measuredScrollHeight - previous.measuredScrollHeight),
    Math.abs(now.clientHeight - previous.clientHeight),
  );
  return movedUp <= layoutMoved;
}
