/**
 * SEC-004: the one-time launch ticket `bastion start` puts in the URL it opens. 256 random bits,
 * dead after 60 s or its first use, whichever comes first. Only its SHA-256 digest is kept, so
 * the lookup never compares the secret itself. Does not catch a local process that reads the
 * URL from the terminal or the browser's command line within those 60 s and uses it first; the
 * browser that loses the race then sees the "run bastion open for a new one" page.
 */
import { createHash, randomBytes } from 'node:crypto';
import { UI_LAUNCH_TICKET_BYTES, UI_LAUNCH_TICKET_TTL_MS, UI_MAX_LAUNCH_TICKETS } from '@bastion/protocol';

const TICKET = /^[A-Za-z0-9_-]{43}$/;

function digest(ticket: string): string {
  return createHash('sha256').update(ticket, 'utf8').digest('base64');
}

export class LaunchTickets {
  /** digest → expiry (ms since epoch), oldest first. */
  readonly #live = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  issue(): string {
    const ticket = randomBytes(UI_LAUNCH_TICKET_BYTES).toString('base64url');
    this.#live.set(digest(ticket), this.#now() + UI_LAUNCH_TICKET_TTL_MS);
    while (this.#live.size > UI_MAX_LAUNCH_TICKETS) {
      const oldest = this.#live.keys().next().value as string;
      this.#live.delete(oldest);
    }
    return ticket;
  }

  /** True once for a live ticket; false for a replayed, expired, unknown or malformed one. */
  redeem(ticket: string): boolean {
    if (!TICKET.test(ticket)) return false;
    const key = digest(ticket);
    const expires = this.#live.get(key);
    if (expires === undefined) return false;
    this.#live.delete(key);
    return this.#now() < expires;
  }
}
