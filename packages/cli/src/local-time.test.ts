import { describe, expect, it } from 'vitest';
import { atLocalTime, localDateTime, timeAgo } from './local-time.js';

const now = new Date(2026, 11, 7, 9, 30, 0);
const minutesBefore = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();

describe('local-time', () => {
  it('localDateTime prints local date and minute, and "?" for a time that does not parse', () => {
    expect(localDateTime(new Date(2026, 0, 5, 3, 4, 59).toISOString())).toBe('2026-01-05 03:04');
    expect(localDateTime('not a time')).toBe('?');
  });

  it('atLocalTime says only the time for today, and the date too for another day', () => {
    expect(atLocalTime(new Date(2026, 11, 7, 6, 41).toISOString(), now)).toBe('at 06:41');
    expect(atLocalTime(new Date(2026, 11, 6, 23, 5).toISOString(), now)).toBe('on 2026-12-06 at 23:05');
  });

  it('timeAgo rounds down to minutes, hours and minutes, then days and hours', () => {
    expect(timeAgo(minutesBefore(0.5), now)).toBe('less than a minute ago');
    expect(timeAgo(minutesBefore(5), now)).toBe('5 min ago');
    expect(timeAgo(minutesBefore(180), now)).toBe('3 h ago');
    expect(timeAgo(minutesBefore(185), now)).toBe('3 h 5 min ago');
    expect(timeAgo(minutesBefore(52 * 60 + 10), now)).toBe('2 d 4 h ago');
    expect(timeAgo('not a time', now)).toBe('some time ago');
  });
});
