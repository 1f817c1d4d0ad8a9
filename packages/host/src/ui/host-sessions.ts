/**
 * SEC-004: host sessions, what a redeemed launch ticket becomes. The token lives only in an
 * HttpOnly; SameSite=Strict cookie and in this process's memory, so it dies with the host.
 * Cookies do not separate ports, so the cookie name carries the UI port: two hosts on one
 * machine do not clobber each other, and a cookie another loopback port planted under the same
 * name is just an unknown token.
 *
 * The cookie is not a secret from other loopback servers: the browser sends it to every
 * 127.0.0.1 port it visits (SameSite cannot tell ports apart), so any local listener the user
 * reaches by one link sees it. Origin and Referer checks stop a browser riding it, not a client
 * that forges them. So each session also has a page key, a second secret the cookie never
 * carries: the launch redirect hands it to the page in the URL fragment, which no request and no
 * Referer ever contains, and host IPC demands both (hasPageKey). Only digests are kept. Does not
 * catch script running in a desktop page, which can read the key like the bridge does.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { UI_MAX_HOST_SESSIONS, UI_PAGE_KEY_BYTES, UI_SESSION_TOKEN_BYTES } from '@bastion/protocol';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const PAGE_KEY = new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((UI_PAGE_KEY_BYTES * 4) / 3)}}$`);
/** Cookie headers with more pairs than this are not searched further. */
const MAX_COOKIE_PAIRS = 64;

function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** A new session: the Set-Cookie header value, and the page key the launch redirect hands over. */
export interface CreatedHostSession {
  setCookie: string;
  pageKey: string;
}

export class HostSessions {
  readonly cookieName: string;
  /** Digest of each live session token (base64) → digest of its page key. */
  readonly #live = new Map<string, Buffer>();

  constructor(uiPort: number) {
    this.cookieName = `bastion_session_${uiPort}`;
  }

  /** Start a session bound to a fresh page key. */
  create(): CreatedHostSession {
    const token = randomBytes(UI_SESSION_TOKEN_BYTES).toString('base64url');
    const pageKey = randomBytes(UI_PAGE_KEY_BYTES).toString('base64url');
    this.#live.set(digest(token).toString('base64'), digest(pageKey));
    while (this.#live.size > UI_MAX_HOST_SESSIONS) {
      this.#live.delete(this.#live.keys().next().value as string);
    }
    return { setCookie: `${this.cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`, pageKey };
  }

  /** True if the Cookie header carries a live session token under this host's cookie name. */
  isValid(cookieHeader: string | undefined): boolean {
    return this.#pageKeysOf(cookieHeader).length > 0;
  }

  /**
   * True if `pageKey` is the page key of a live session the Cookie header carries. Every live
   * session's key is compared, in constant time, against the digest of the one given.
   */
  hasPageKey(cookieHeader: string | undefined, pageKey: string | undefined): boolean {
    if (pageKey === undefined || !PAGE_KEY.test(pageKey)) return false;
    const given = digest(pageKey);
    let found = false;
    for (const expected of this.#pageKeysOf(cookieHeader)) found = timingSafeEqual(given, expected) || found;
    return found;
  }

  /** The page-key digests of the live sessions among the Cookie header's pairs under this name. */
  #pageKeysOf(cookieHeader: string | undefined): Buffer[] {
    if (cookieHeader === undefined) return [];
    const keys: Buffer[] = [];
    for (const pair of cookieHeader.split(';', MAX_COOKIE_PAIRS)) {
      const separator = pair.indexOf('=');
      if (separator < 0 || pair.slice(0, separator).trim() !== this.cookieName) continue;
      const token = pair.slice(separator + 1).trim();
      const key = TOKEN.test(token) ? this.#live.get(digest(token).toString('base64')) : undefined;
      if (key) keys.push(key);
    }
    return keys;
  }
}
