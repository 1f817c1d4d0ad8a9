/**
 * The sessions New session made in this tab and not yet left, kept in the tab's sessionStorage (a
 * reload keeps them). One left untouched is removed, as `bastion chat` that ran no prompt removes
 * the session it made: New session clicked and left, again and again, added an empty "Untitled
 * session" to the list each time. Untouched is: no run (none here, in another tab or from the CLI),
 * no text or image in its message box, nothing queued, and title, mode, model, reasoning effort and
 * Ask before writes as New session made them (a choice the person made keeps the session), and no
 * other tab of this browser showing it (each holds a shared Web Lock while it does: holdSessionOpen).
 * The CLI's `bastion chat` on it is seen once it has run a prompt.
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

const openLockName = (sessionId: string) => `bastion.session-open.${sessionId}`;

/**
 * Says to the page's other tabs that this one shows `sessionId`, until the returned function is
 * called: a shared Web Lock, which a tab closing or crashing gives up too. Without Web Locks nothing is said.
 */
export function holdSessionOpen(sessionId: string): () => void {
  if (!('locks' in navigator)) return () => undefined;
  let release!: () => void;
  const shown = new Promise<void>((resolve) => (release = resolve));
  navigator.locks.request(openLockName(sessionId), { mode: 'shared' }, () => shown).catch(() => undefined);
  return release;
}

/**
 * Runs `remove` while no tab shows `sessionId`, holding its lock so that none opens it meanwhile;
 * shown in a tab (this one's lock not given up yet counts too), nothing is removed.
 */
async function whileShownNowhere(sessionId: string, remove: () => Promise<boolean>): Promise<boolean> {
  if (!('locks' in navigator)) return remove();
  return navigator.locks.request(openLockName(sessionId), { ifAvailable: true }, (lock) =>
    lock === null ? false : remove(),
  );
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
    // Read first: by its answer this tab's own lock on the session it left has been given up.
    const now = await bastion.sessions.get(made.id).catch(() => undefined);
    if (now === undefined || !untouched(made, now)) continue;
    const gone = await whileShownNowhere(made.id, () =>
      bastion.sessions.delete(made.id).then(
        () => true,
        () => false,
      ),
    );
    if (!gone) continue;
    forgetDrafts(made.id);
    forgetDraftImages(made.id);
    removed = true;
  }
  return removed;
}
