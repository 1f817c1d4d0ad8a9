import { beforeEach, describe, expect, it } from 'vitest';
import {
  CHANGES_WIDTH_KEY,
  clampChangesWidth,
  LIST_FOLDED_KEY,
  PANE_MIN_PX,
  readChangesWidth,
  readStoredFlag,
  saveChangesWidth,
  saveStoredFlag,
} from './browser-prefs.js';

/** This browser's localStorage, or one that refuses every call (storage turned off). */
const stored = new Map<string, string>();
let refused = false;
const refuse = () => {
  if (refused) throw new DOMException('denied', 'SecurityError');
};
Object.assign(globalThis, {
  window: {
    localStorage: {
      getItem: (key: string) => (refuse(), stored.get(key) ?? null),
      setItem: (key: string, value: string) => (refuse(), void stored.set(key, value)),
      removeItem: (key: string) => (refuse(), void stored.delete(key)),
    },
  },
});

beforeEach(() => {
  stored.clear();
  refused = false;
});

describe('the Changes panel’s kept width', () => {
  it('reads back a width it kept, as whole pixels, and none once the default is put back', () => {
    saveChangesWidth(512.6);
    expect(stored.get(CHANGES_WIDTH_KEY)).toBe('513');
    expect(readChangesWidth()).toBe(513);
    saveChangesWidth(undefined);
    expect(stored.has(CHANGES_WIDTH_KEY)).toBe(false);
    expect(readChangesWidth()).toBeUndefined();
  });

  it.each(['', 'wide', '-500', '5e2', '512.5', '100', '319', '1234567'])(
    'takes a kept value of %j, not a whole number of pixels from the narrowest up to five digits, as none',
    (value) => {
      stored.set(CHANGES_WIDTH_KEY, value);
      expect(readChangesWidth()).toBeUndefined();
    },
  );

  it('reads the narrowest itself as kept', () => {
    stored.set(CHANGES_WIDTH_KEY, String(PANE_MIN_PX));
    expect(readChangesWidth()).toBe(PANE_MIN_PX);
  });

  it('reads none and keeps nothing, without throwing, where the browser refuses storage', () => {
    refused = true;
    expect(() => saveChangesWidth(600)).not.toThrow();
    expect(readChangesWidth()).toBeUndefined();
    expect(stored.size).toBe(0);
  });

  it('holds a width between the panel’s narrowest and the widest that leaves the transcript its narrowest', () => {
    expect(clampChangesWidth(100, 1000)).toBe(PANE_MIN_PX);
    expect(clampChangesWidth(900, 1000)).toBe(1000 - PANE_MIN_PX);
    expect(clampChangesWidth(500.4, 1000)).toBe(500);
    expect(clampChangesWidth(Infinity, 999)).toBe(999 - PANE_MIN_PX);
    expect(clampChangesWidth(-Infinity, 999)).toBe(PANE_MIN_PX);
  });
});

describe('a stored on/off flag (the session list folded away, notifications)', () => {
  it('reads back on once kept so, and off once that is taken back, with nothing left kept', () => {
    expect(readStoredFlag(LIST_FOLDED_KEY)).toBe(false);
    expect(saveStoredFlag(LIST_FOLDED_KEY, true)).toBe(true);
    expect(readStoredFlag(LIST_FOLDED_KEY)).toBe(true);
    expect(saveStoredFlag(LIST_FOLDED_KEY, false)).toBe(true);
    expect(readStoredFlag(LIST_FOLDED_KEY)).toBe(false);
    expect(stored.has(LIST_FOLDED_KEY)).toBe(false);
  });

  it('reads any other kept value as off; where the browser refuses storage, reads off and says a save of on did not hold, without throwing', () => {
    stored.set(LIST_FOLDED_KEY, 'true');
    expect(readStoredFlag(LIST_FOLDED_KEY)).toBe(false);
    stored.clear();
    refused = true;
    expect(saveStoredFlag(LIST_FOLDED_KEY, true)).toBe(false);
    expect(readStoredFlag(LIST_FOLDED_KEY)).toBe(false);
    expect(stored.size).toBe(0);
  });
});
