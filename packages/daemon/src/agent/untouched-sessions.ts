/**
 * Removes the sessions New session made (`provisional`) that nothing touched and nothing shows, so
 * a tab closed on one, or a page that never came back, leaves no empty "Untitled session" behind.
 * Touched is: a run (so a message), a changed setting, or being kept (a page with a draft in it,
 * `bastion chat` taking it) — each clears `provisional` in the store. Shown is: a page's open event
 * stream of it. A session is removed only when provisional and shown by no stream for
 * UNTOUCHED_SESSION_GRACE_MS, counted from when this daemon first saw it unshown (its start, for
 * those a restart left), and with no run or undo going; the store's delete checks again that
 * nothing is stored in it, in the same statement. What this does not see: a draft typed in a page
 * whose keep request never reached the daemon; the page keeps the text in its own storage.
 */
import { UNTOUCHED_SESSION_GRACE_MS, UNTOUCHED_SESSION_SWEEP_MS, type Logger } from '@bastion/protocol';
import type { SessionStore } from '../storage/session-store.js';
import type { RunManager } from './run-manager.js';

export class UntouchedSessions {
  readonly #store: SessionStore;
  readonly #runs: RunManager;
  readonly #log: Logger;
  readonly #now: () => number;
  /** When each provisional session was last seen shown (or first seen at all). */
  readonly #lastShown = new Map<string, number>();

  constructor(options: { store: SessionStore; runs: RunManager; log: Logger; now?: () => number }) {
    this.#store = options.store;
    this.#runs = options.runs;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Removes `sessionId` if it is untouched and no stream but `viewer`'s shows it (a page leaving
   * it names itself: its own stream may not have closed yet). Says whether it was removed.
   */
  removeIfUntouched(sessionId: string, viewer: string | undefined): boolean {
    if (this.#runs.hub.shownBesides(sessionId, viewer)) return false;
    if (this.#runs.isActive(sessionId) || this.#runs.isUndoing(sessionId)) return false;
    const removed = this.#store.sessions.deleteIfUntouched(sessionId);
    if (removed) this.#lastShown.delete(sessionId);
    return removed;
  }

  /** One look at every provisional session: removes those shown nowhere for the grace period. */
  sweep(): number {
    const now = this.#now();
    const provisional = new Set(this.#store.sessions.provisionalIds());
    for (const id of this.#lastShown.keys()) if (!provisional.has(id)) this.#lastShown.delete(id);
    let removed = 0;
    for (const id of provisional) {
      const since = this.#lastShown.get(id);
      if (since === undefined || this.#runs.hub.subscriberCount(id) > 0) this.#lastShown.set(id, now);
      else if (now - since >= UNTOUCHED_SESSION_GRACE_MS && this.removeIfUntouched(id, undefined)) removed += 1;
    }
    if (removed > 0) this.#log.info('sessions.untouched-removed', { count: removed });
    return removed;
  }

  /** Sweeps every UNTOUCHED_SESSION_SWEEP_MS until the returned function is called. */
  start(): () => void {
    const timer = setInterval(() => {
      try {
        this.sweep();
      } catch (error) {
        this.#log.error('sessions.untouched-sweep-failed', { code: (error as { code?: string }).code ?? 'UNKNOWN' });
      }
    }, UNTOUCHED_SESSION_SWEEP_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
