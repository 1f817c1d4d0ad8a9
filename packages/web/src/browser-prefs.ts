/**
 * What the reader chose for this browser, kept in its localStorage (UI-only: the agent never sees
 * it), so every session and tab opens as they left it: the Changes panel's width, the session list
 * folded away on a wide window, and on/off choices such as notifications (stored flags). None
 * kept, or storage refused: the defaults (a refused write holds until the page closes).
 */

/** The localStorage key of the Changes panel's width, in CSS pixels. */
export const CHANGES_WIDTH_KEY = 'bastion.changes-width';

/**
 * The narrowest the panel, and the transcript beside it, may be made (as `.changes-panel`'s
 * clamp in styles.css, which holds it there when the window narrows after a drag).
 */
export const PANE_MIN_PX = 320;

/** The kept width, or undefined when none is kept, it is not a whole number of pixels, or storage is refused. */
export function readChangesWidth(): number | undefined {
  try {
    const kept = window.localStorage.getItem(CHANGES_WIDTH_KEY);
    if (kept === null || !/^\d{3,5}$/.test(kept)) return undefined;
    const width = Number(kept);
    return width >= PANE_MIN_PX ? width : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `width` (undefined: back to the default); a browser that refuses storage keeps it for this page only. */
export function saveChangesWidth(width: number | undefined): void {
  try {
    if (width === undefined) window.localStorage.removeItem(CHANGES_WIDTH_KEY);
    else window.localStorage.setItem(CHANGES_WIDTH_KEY, String(Math.round(width)));
  } catch {
    // Storage refused: the width holds until the page closes.
  }
}

/** `width` held between the panel's narrowest and the widest that leaves the transcript its narrowest in `total`. */
export function clampChangesWidth(width: number, total: number): number {
  return Math.round(Math.max(PANE_MIN_PX, Math.min(width, total - PANE_MIN_PX)));
}

/** The stored flag kept while the session list is folded away on a wide window. */
export const LIST_FOLDED_KEY = 'bastion.sessions-folded';

/** Whether the on/off choice under `key` is on (false where storage is refused). */
export function readStoredFlag(key: string): boolean {
  try {
    return window.localStorage.getItem(key) === 'on';
  } catch {
    return false;
  }
}

/** Keeps the choice under `key` (off: nothing kept); whether it holds now, false where the browser refused to store it. */
export function saveStoredFlag(key: string, on: boolean): boolean {
  try {
    if (on) window.localStorage.setItem(key, 'on');
    else window.localStorage.removeItem(key);
  } catch {
    // Storage refused: the caller's answer says so.
  }
  return readStoredFlag(key) === on;
}
