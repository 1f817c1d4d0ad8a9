/**
 * SEC-004: host sessions, what a redeemed launch ticket becomes. The token lives only in an
 * HttpOnly; SameSite=Strict cookie and in this process's memory, so it dies with the host.
 * Cookies do not separate ports, so the cookie name carries the UI port: two hosts on one
 * machine do not clobber each other, and a cookie another loopback port planted under the same
 * name is just an unknown token. Does not catch a same-site page (any 127.0.0.1 port) riding the
 * cookie: SameSite cannot tell ports apart, which is why host IPC also demands the exact Origin.
 */
import { createHash, randomBytes } from 'node:crypto';
import { UI_MAX_HOST_SESSIONS, UI_SESSION_TOKEN_BYTES } from '@bastion/protocol';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Cookie headers with more pairs than this are not searched further. */
const MAX_COOKIE_PAIRS = 64;

function digest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64');
}

export class HostSessions {
  readonly cookieName: string;
  readonly #live = new Set<string>();

  constructor(uiPort: number) {
    this.cookieName = `bastion_session_${uiPort}`;
  }

  /** Start a session; the answer is the Set-Cookie header value. */
  create(): string {
    const token = randomBytes(UI_SESSION_TOKEN_BYTES).toString('base64url');
    this.#live.add(digest(token));
    while (this.#live.size > UI_MAX_HOST_SESSIONS) {
      this.#live.delete(this.#live.values().next().value as string);
    }
    return `${this.cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`;
  }

  /** True if the Cookie header carries a live session token under this host's cookie name. */
  isValid(cookieHeader: string | undefined): boolean {
    if (cookieHeader === undefined) return false;
    const pairs = cookieHeader.split(';', MAX_COOKIE_PAIRS);
    for (const pair of pairs) {
      const separator = pair.indexOf('=');
      if (separator < 0 || pair.slice(0, separator).trim() !== this.cookieName) continue;
      const token = pair.slice(separator + 1).trim();
      if (TOKEN.test(token) && this.#live.has(digest(token))) return true;
    }
    return false;
  }
}
