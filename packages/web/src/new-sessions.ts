/**
 * The sessions New session made in this tab and not yet left, kept in the tab's sessionStorage (a
 * reload keeps them). New session makes them `provisional`: the daemon removes one that nothing
 * touched (no run, no setting changed, not kept) once no page has shown it for a while — a tab
 * closed on it, a page that never came back (untouched-sessions.ts). This tab removes one at once
 * when it leaves it untouched: nothing typed, attached or queued in its box either; the daemon
 * removes it only if it is still provisional and no page but this one streams it (each page names
 * its streams with PAGE_VIEWER) and no other tab of this browser shows it (each holds a shared Web
 * Lock while it does: holdSessionOpen). Text typed or an image attached in it keeps it
 * (keepNewSession tells the daemon), as a mode or model chosen does, and `bastion chat` taking it.
 */
import type { BastionApi, Session } from '@bastion/bridge';
import { newClientId } from './client-id.js';
import { forgetDrafts, readDraft } from './drafts.js';
import { forgetDraftImages, readDraftImages } from './image-drafts.js';

const STORAGE_KEY = 'bastion.new-sessions';

/** This page load's id, named by its streams (`agent.stream`'s viewer) and by its removals. */
export const PAGE_VIEWER = newClientId();

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
 * A session something is being sent in, or typed or attached in: kept, here and by the daemon
 * (which removes a provisional one nothing shows), as the run may not be stored yet (its MCP
 * resources still being read, or the request on its way) and the draft is only this tab's.
 */
export function keepNewSession(bastion: BastionApi, sessionId: string): void {
  const made = readMade();
  if (!made.some(({ id }) => id === sessionId)) return;
  writeMade(made.filter(({ id }) => id !== sessionId));
  // Not kept by the daemon (the request failed): this tab no longer removes it, the daemon may.
  bastion.sessions.update(sessionId, { provisional: false }).catch(() => undefined);
}

/** Every session New session made here kept (Settings opened from one: Back must find it). */
export function keepNewSessions(bastion: BastionApi): void {
  for (const made of readMade()) keepNewSession(bastion, made.id);
}

function untouched(now: Session): boolean {
  return (
    now.provisional === true &&
    readDraft(now.id) === '' &&
    readDraft(now.id, 'queued') === '' &&
    readDraftImages(now.id).length === 0 &&
    readDraftImages(now.id, 'queued').length === 0
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
    if (now === undefined || !untouched(now)) continue;
    const gone = await whileShownNowhere(made.id, () =>
      bastion.sessions.deleteIfUntouched(made.id, PAGE_VIEWER).then(
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
