/**
 * The sessions New session made in this tab and not yet left, kept in the tab's sessionStorage (a
 * reload keeps them). One left untouched is removed, as `bastion chat` that ran no prompt removes
 * the session it made: New session clicked and left, again and again, added an empty "Untitled
 * session" to the list each time. Untouched is: no run (none here, in another tab or from the CLI),
 * no text or image in its message box, nothing queued, and title, mode, model, reasoning effort and
 * Ask before writes as New session made them (a choice the person made keeps the session). A tab
 * that opened the session and only typed in its box is not seen: its draft is in its own storage.
 */
import type { BastionApi, Session } from '@bastion/bridge';
import { forgetDrafts, readDraft } from './drafts.js';
import { forgetDraftImages, readDraftImages } from './image-drafts.js';

const STORAGE_KEY = 'bastion.new-sessions';

/** What of a session a person can change without a run; any of them changed, the session is theirs. */
const CHOSEN = ['title', 'mode', 'provider', 'model', 'ask_before_writes', 'reasoning_effort', 'auto_consent'] as const;
/** The session as New session made it. */
type Made = Session;

function readMade(): Made[] {
  try {
    // Written by writeMade only, in this tab's own storage.
    return JSON.parse(window.sessionStorage.getItem(STORAGE_KEY) ?? '[]') as Made[];
  } catch {
    return [];
  }
}

function writeMade(made: readonly Made[]): void {
  try {
    if (made.length === 0) window.sessionStorage.removeItem(STORAGE_KEY);
    else window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(made));
  } catch {
    // Storage refused: the session is kept, as any other.
  }
}

/** A session New session just made: removed when left untouched (removeLeftNewSessions). */
export function rememberNewSession(session: Session): void {
  writeMade([...readMade(), session]);
}

/**
 * A session something is being sent in: kept whatever the daemon says when it is left, as the run
 * may not be stored yet (its MCP resources still being read, or the request on its way).
 */
export function keepNewSession(sessionId: string): void {
  const made = readMade();
  if (made.some(({ id }) => id === sessionId)) writeMade(made.filter(({ id }) => id !== sessionId));
}

function untouched(made: Made, now: Session): boolean {
  return (
    now.last_run === null &&
    !now.approval_pending &&
    CHOSEN.every((key) => JSON.stringify(now[key] ?? null) === JSON.stringify(made[key] ?? null)) &&
    readDraft(made.id) === '' &&
    readDraft(made.id, 'queued') === '' &&
    readDraftImages(made.id).length === 0 &&
    readDraftImages(made.id, 'queued').length === 0
  );
}

/**
 * Removes each session New session made here, other than `openId`, that was left untouched; each is
 * looked at once, when left (a session kept then is the person's). Resolves whether one was removed.
 */
export async function removeLeftNewSessions(bastion: BastionApi, openId: string | undefined): Promise<boolean> {
  const all = readMade();
  const left = all.filter((made) => made.id !== openId);
  if (left.length === 0) return false;
  // Taken off the list before the first await, so a route change meanwhile does not look at them again.
  writeMade(all.filter((made) => made.id === openId));
  let removed = false;
  for (const made of left) {
    const now = await bastion.sessions.get(made.id).catch(() => undefined);
    if (now === undefined || !untouched(made, now)) continue;
    try {
      await bastion.sessions.delete(made.id);
    } catch {
      continue;
    }
    forgetDrafts(made.id);
    forgetDraftImages(made.id);
    removed = true;
  }
  return removed;
}
