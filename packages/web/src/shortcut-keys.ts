/**
 * Bastion's own keys: Alt+Shift and a letter, read by `event.code` (the key's place), so ⌥⇧ on a
 * Mac, which types a character, works too. Chrome takes Alt+Shift with B, I and T for itself, and
 * with A (its pop-ups; the page, which sees the key first, takes it for the question waiting);
 * Firefox gives Alt+Shift to the page's accesskeys, of which Bastion has none. Screen readers use
 * Insert, Caps Lock or Ctrl+Option, not Alt+Shift.
 * Tab, Esc and the Ctrl/⌘ keys stay the browser's and the page's.
 */
export interface AltShiftKey {
  /** `event.code`: "KeyN". */
  code: string;
  /** As titles, aria-keyshortcuts and /help write it: "Alt+Shift+N". */
  name: string;
  /** As a Mac keyboard shows it: "⌥⇧N". */
  mac: string;
}

function altShiftKey(letter: string): AltShiftKey {
  return { code: `Key${letter}`, name: `Alt+Shift+${letter}`, mac: `⌥⇧${letter}` };
}

export function isAltShiftKey(event: KeyboardEvent, key: AltShiftKey): boolean {
  return event.code === key.code && event.altKey && event.shiftKey && !event.ctrlKey && !event.metaKey;
}

/** In the message box: the session's mode, read-only ↔ accept-edits (mode-switch.tsx). */
export const MODE_CYCLE_KEY = altShiftKey('M');
/** To the question waiting for an answer (prompt-focus.ts). */
export const PROMPT_FOCUS_KEY = altShiftKey('A');
/** Anywhere on the page: New session. */
export const NEW_SESSION_KEY = altShiftKey('N');
/** Anywhere on the page: open the session below the open one in the list. */
export const NEXT_SESSION_KEY = altShiftKey('J');
/** Anywhere on the page: open the session above the open one in the list. */
export const PREVIOUS_SESSION_KEY = altShiftKey('K');
/** Anywhere on the page: the focus to the message box. */
export const MESSAGE_BOX_KEY = altShiftKey('C');
/** Anywhere on a session's or Settings' page: the session list shown or folded away (Sessions). */
export const SESSION_LIST_KEY = altShiftKey('S');

/** The input types a person types text into. */
const TEXT_INPUT_TYPES: ReadonlySet<string> = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number']);

/** A text field other than the message box: a session's new title, the session search, a form in Settings. */
export function isOtherTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement) || target.id === 'composer-input') return false;
  if (target instanceof HTMLTextAreaElement || target.isContentEditable) return true;
  return target instanceof HTMLInputElement && TEXT_INPUT_TYPES.has(target.type);
}

/**
 * Whether a page-wide key (New session, the next or previous session, the message box, the
 * session list) may act
 * on `event`: not when something took it first, while an input method composes, while a dialog
 * is open (the page behind it waits), nor in a text field other than the message box, where the
 * key is the field's (on a Mac it types a character) and leaving the page would lose what is
 * typed there. In the message box it acts: what the box holds stays with its session (drafts.ts).
 */
export function pageKeyMayAct(event: KeyboardEvent): boolean {
  return (
    !event.defaultPrevented &&
    !event.isComposing &&
    document.querySelector('dialog[open]') === null &&
    !isOtherTextField(event.target)
  );
}
