/**
 * What the reader has typed and not sent, per session: kept in the tab's sessionStorage, so a
 * half-written prompt survives opening another session and a reload. Sending clears it, as does
 * deleting the session; a browser that refuses storage (quota, privacy settings) keeps drafts for
 * as long as the view lives, as before.
 */
const keyOf = (sessionId: string): string => `bastion.draft.${sessionId}`;

export function readDraft(sessionId: string): string {
  try {
    return window.sessionStorage.getItem(keyOf(sessionId)) ?? '';
  } catch {
    return '';
  }
}

export function saveDraft(sessionId: string, text: string): void {
  try {
    if (text === '') window.sessionStorage.removeItem(keyOf(sessionId));
    else window.sessionStorage.setItem(keyOf(sessionId), text);
  } catch {
    // Storage refused: the draft lives in the view's state only.
  }
}
