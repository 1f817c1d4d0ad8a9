/**
 * Removes the sessions New session made (`provisional`) that nothing touched and nothing shows, so
 * a tab closed on one, or a page that never came back, leaves no empty "Untitled session" behind.
 * Touched is: a run (so a message), a changed setting, or being kept (a page with a draft in it,
 * `bastion chat` taking it) — each clears `provisional` in the store. Shown is: a page's open event
 * stream of it. A session is removed only when provisional and shown by no stream for
 * UNTOUCHED_SESSION_GRACE_MS, counted from when this daemon first saw it unshown (its start, for
 * those a restart left) or its last stream closed (a page reconnecting or reloading), and with no
 * run or undo going; the store's delete checks again that nothing is stored in it, in the same
 * statement. What this does not see: a draft typed in a page whose keep request never reached the
 * daemon; the page keeps the text in its own storage.
 */
import { UNTOUCHED_SESSION_GRACE_MS, UNTOUCHED_SESSION_SWEEP_MS, type Logger } from '@bastion/protocol';
import type { SessionStore } from '../storage/session-store.js';
import type { RunManager } from './run-manager.js';

export class UntouchedSessions {
  readonly #store: SessionStore;
  readonly #runs: Pick<RunManager, 'hub' | 'isActive' | 'isUndoing'>;
  readonly #log: Logger;
  readonly #now: () => number;
  /** When each provisional session was last seen shown (or first seen at all). */
  readonly #lastShown = new Map<string, number>();
  /**
   * When a stream of a session last closed, by the page that opened it: a page reconnecting (a
   * dropped link, a restart) or reloading still shows it, for the grace period.
   */
  readonly #closedAt = new Map<string, Map<string | undefined, number>>();

  constructor(options: {
    store: SessionStore;
    runs: Pick<RunManager, 'hub' | 'isActive' | 'isUndoing'>;
    log: Logger;
    now?: () => number;
  }) {
    this.#store = options.store;
    this.#runs = options.runs;
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    this.#runs.hub.onStreamClosed((sessionId, viewer) => {
      const closed = this.#closedAt.get(sessionId) ?? new Map<string | undefined, number>();
      closed.set(viewer, this.#now());
      this.#closedAt.set(sessionId, closed);
    });
  }

  /** Whether a stream of the session, not `viewer`'s (any, without one), closed within the grace period. */
  #closedLately(sessionId: string, viewer: string | undefined): boolean {
    const since = this.#now() - UNTOUCHED_SESSION_GRACE_MS;
    for (const [opener, at] of this.#closedAt.get(sessionId) ?? []) {
      if (at > since && (viewer === undefined || opener !== viewer)) return true;
    }
    return false;
  }

  /**
   * Removes `sessionId` if it is untouched and no stream but `viewer`'s shows it or closed within
   * the grace period (a page leaving it names itself: its own stream may not have closed yet).
   * Says whether it was removed.
   */
  removeIfUntouched(sessionId: string, viewer: string | undefined): boolean {
    if (this.#runs.hub.shownBesides(sessionId, viewer) || this.#closedLately(sessionId, viewer)) return false;
    if (this.#runs.isActive(sessionId) || this.#runs.isUndoing(sessionId)) return false;
    const removed = this.#store.sessions.deleteIfUntouched(sessionId);
    if (removed) {
      this.#lastShown.delete(sessionId);
      this.#closedAt.delete(sessionId);
    }
    return removed;
  }

  /** One look at every provisional session: removes those shown nowhere for the grace period. */
  sweep(): number {
    const now = this.#now();
    const provisional = new Set(this.#store.sessions.provisionalIds());
    for (const id of this.#lastShown.keys()) if (!provisional.has(id)) this.#lastShown.delete(id);
    // Closes older than the grace period no longer count; those of sessions no longer provisional never will.
    for (const [id, closed] of this.#closedAt) {
      for (const [viewer, at] of closed) if (now - at >= UNTOUCHED_SESSION_GRACE_MS) closed.delete(viewer);
      if (closed.size === 0 || !provisional.has(id)) this.#closedAt.delete(id);
    }
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
