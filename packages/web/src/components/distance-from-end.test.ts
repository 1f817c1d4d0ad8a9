import { describe, expect, it } from 'vitest';
import { distanceFromEnd, followsAfterScroll, type EndReading } from './distance-from-end.js';

/** A reader at the end of a 2 000 px transcript in a 500 px view, everything settled. */
const atEnd: EndReading = {
  scrollTop: 1_500,
  scrollHeight: 2_000,
  measuredScrollHeight: 2_000,
  clientHeight: 500,
  settledClientHeight: 500,
};

describe('distanceFromEnd', () => {
  it('is the plain distance when the layout is settled', () => {
    expect(distanceFromEnd(atEnd)).toBe(0);
    expect(distanceFromEnd({ ...atEnd, scrollTop: 1_200 })).toBe(300);
  });

  it('reads a view that shrank since the list last reacted at its previous height (the header filling in)', () => {
    expect(distanceFromEnd({ ...atEnd, clientHeight: 434 })).toBe(0);
  });

  it('reads a view that grew at its new height (the browser already moved the reader to the new end)', () => {
    expect(distanceFromEnd({ ...atEnd, scrollTop: 1_400, clientHeight: 600 })).toBe(0);
  });

  it('takes the measured end when rows measured smaller moved the reader up before the list re-rendered', () => {
    expect(distanceFromEnd({ ...atEnd, scrollTop: 1_100, measuredScrollHeight: 1_600 })).toBe(0);
  });

  it('takes the laid-out end when a row grew past its measured size', () => {
    expect(distanceFromEnd({ ...atEnd, scrollHeight: 2_300 })).toBe(0);
  });

  it('takes the laid-out end when the list has not yet grown to rows measured larger', () => {
    expect(distanceFromEnd({ ...atEnd, measuredScrollHeight: 2_300 })).toBe(0);
  });

  it('still reads a reader who scrolled up as far from the end when the view shrank in the same frame', () => {
    expect(distanceFromEnd({ ...atEnd, scrollTop: 1_000, clientHeight: 434 })).toBe(500);
  });
});

describe('followsAfterScroll', () => {
  const SLACK = 64;
  const follows = (previous: EndReading | undefined, now: EndReading, readerScrolling = false, following = true) =>
    followsAfterScroll({ following, previous, now, slack: SLACK, readerScrolling });
  /** Read in a run of tall tool cards at 420 px: the view at the end of 2 320 px in a 692 px view. */
  const runAtEnd: EndReading = {
    scrollTop: 1_628,
    scrollHeight: 2_320,
    measuredScrollHeight: 2_320,
    clientHeight: 692,
    settledClientHeight: 692,
  };
  /** The next reading seen there: a card appended below and a card above re-measured 69 px shorter. */
  const appendedWhileRemeasured: EndReading = {
    ...runAtEnd,
    scrollTop: 1_559,
    scrollHeight: 2_773,
    measuredScrollHeight: 2_451,
  };

  it('keeps following when a move up no larger than the rows’ change came with them (the run seen stalled at 420 px)', () => {
    expect(distanceFromEnd(appendedWhileRemeasured)).toBe(200);
    expect(follows(runAtEnd, appendedWhileRemeasured)).toBe(true);
  });

  it('stops following when the reader scrolls up by wheel, touch, key or scrollbar, even by less than the rows changed', () => {
    expect(follows(runAtEnd, appendedWhileRemeasured, true)).toBe(false);
  });

  it('stops following on a move up with the layout unchanged (the app jumping to a row, the browser’s find)', () => {
    expect(follows(atEnd, { ...atEnd, scrollTop: 1_000 })).toBe(false);
  });

  it('stops following on a move up farther than the layout changed under it (a jump to the top while rows settle after a reload)', () => {
    expect(follows(atEnd, { ...atEnd, scrollTop: 0, scrollHeight: 2_060, measuredScrollHeight: 2_060 })).toBe(false);
  });

  it('keeps following on a move down that is still short of the end', () => {
    expect(follows({ ...atEnd, scrollTop: 1_000 }, { ...atEnd, scrollTop: 1_200, scrollHeight: 2_400 })).toBe(true);
  });

  it('follows again once back within the slack of the end, and stays stopped away from it', () => {
    expect(follows({ ...atEnd, scrollTop: 1_000 }, { ...atEnd, scrollTop: 1_450 }, true, false)).toBe(true);
    expect(follows({ ...atEnd, scrollTop: 800 }, { ...atEnd, scrollTop: 1_000 }, false, false)).toBe(false);
  });

  it('takes a first reading far from the end as the reader’s only while they scroll (nothing to compare it with)', () => {
    expect(follows(undefined, { ...atEnd, scrollTop: 1_000 })).toBe(true);
    expect(follows(undefined, { ...atEnd, scrollTop: 1_000 }, true)).toBe(false);
  });
});
