import { describe, expect, it } from 'vitest';
import { distanceFromEnd, type EndReading } from './distance-from-end.js';

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
