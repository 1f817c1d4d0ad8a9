/**
 * What the reader has typed and not sent, per session: kept in the tab's sessionStorage, so a
 * half-written prompt survives opening another session and a reload. Two slots a session: the
 * message box's draft, and the message queued while a run goes (sent when it ends). Sending clears
 * a slot, as does deleting the session; a browser that refuses storage (quota, privacy settings)
 * keeps them for as long as the view lives, as before.
 */
/** `queued-images`: how many images the queued message carries (they are kept in memory only). */
export type DraftSlot = 'draft' | 'queued' | 'queued-images';

const keyOf = (sessionId: string, slot: DraftSlot): string => `bastion.${slot}.${sessionId}`;

export function readDraft(sessionId: string, slot: DraftSlot = 'draft'): string {
  try {
    return window.sessionStorage.getItem(keyOf(sessionId, slot)) ?? '';
  } catch {
    return '';
  }
}

export function saveDraft(sessionId: string, text: string, slot: DraftSlot = 'draft'): void {
  try {
    if (text === '') window.sessionStorage.removeItem(keyOf(sessionId, slot));
    else window.sessionStorage.setItem(keyOf(sessionId, slot), text);
  } catch {
    // Storage refused: the text lives in the view's state only.
  }
}

/** A deleted session's draft and queued message (their images: forgetDraftImages). */
export function forgetDrafts(sessionId: string): void {
  saveDraft(sessionId, '', 'draft');
  saveDraft(sessionId, '', 'queued');
  saveDraft(sessionId, '', 'queued-images');
}
