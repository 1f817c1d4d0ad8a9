/**
 * SEC-008: the one owner of the ChatGPT credential. It creates short-lived sign-in attempts (PKCE
 * S256 verifier and state from oauth4webapi's 32 random bytes, a 24-byte attempt id, 10-minute
 * TTL), completes them once through the pinned token endpoint, keeps the tokens in auth.json
 * (`{ type: 'oauth', … }`, 0600, atomic), and refreshes single-flight: a rotated refresh token is
 * written with compare-and-swap before the new access token is used.
 *
 * Every sign-out and every completed sign-in starts a new epoch: it aborts in-flight exchanges,
 * refreshes and inference of the old epoch, and a result that arrives for an old epoch is dropped,
 * so a late refresh never overwrites a newer account or a sign-out. Nothing here imports
 * credentials from another application (no ~/.codex/auth.json).
 *
 * Does not catch: a process running as the same user reading auth.json (0600 is the control).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import {
  CHATGPT_OAUTH_ATTEMPT_ID_BYTES,
  CHATGPT_OAUTH_ATTEMPT_TTL_MS,
  CHATGPT_REFRESH_SKEW_MS,
  type ChatgptBootstrap,
  type ChatgptStatus,
  type Logger,
} from '@bastion/protocol';
import type { ProviderFetch } from '../providers/provider-registry.js';
import type { AuthEntry, AuthStore } from '../secrets/auth-store.js';
import { ChatgptAuthError } from './chatgpt-auth-error.js';
import { ChatgptTokenEndpoint, TokenEndpointFailure } from './chatgpt-token-endpoint.js';

export const CHATGPT_PROVIDER_ID = 'chatgpt';

type OAuthEntry = Extract<AuthEntry, { type: 'oauth' }>;

/** What the provider attaches to one inference request. */
export interface ChatgptAuthorization {
  access: string;
  accountId: string;
  /** Aborts when the epoch ends (sign-out, another sign-in). */
  signal: AbortSignal;
}

interface Attempt {
  id: string;
  state: string;
  verifier: string;
  redirectUri: string;
  expiresAt: number;
  epoch: number;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Secret comparison as SHA-256 digests in constant time (lengths leak nothing either). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export class ChatgptCredentials {
  readonly #config: ChatgptBootstrap;
  readonly #store: AuthStore;
  readonly #tokens: ChatgptTokenEndpoint;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #attemptTtlMs: number;
  #attempt: Attempt | undefined;
  #epoch = 0;
  #epochAbort = new AbortController();
  #refreshing: Promise<ChatgptAuthorization> | undefined;
  /** Set when the refresh token died (reuse, revocation): the user must connect again. */
  #reconnectRequired = false;

  constructor(options: {
    config: ChatgptBootstrap;
    store: AuthStore;
    /** The host-routed transport's fetch. */
    fetch: ProviderFetch;
    log: Logger;
    now?: () => number;
    attemptTtlMs?: number;
  }) {
    this.#config = options.config;
    this.#store = options.store;
    this.#tokens = new ChatgptTokenEndpoint(options.config, options.fetch);
    this.#log = options.log;
    this.#now = options.now ?? Date.now;
    this.#attemptTtlMs = options.attemptTtlMs ?? CHATGPT_OAUTH_ATTEMPT_TTL_MS;
  }

  get responsesUrl(): string {
    return this.#config.responses_url;
  }

  /** A fresh attempt for this redirect; an earlier unfinished attempt is dropped. */
  async start(redirectUri: string): Promise<{ attempt_id: string; authorization_url: string }> {
    const verifier = oauth.generateRandomCodeVerifier();
    const attempt: Attempt = {
      id: randomBytes(CHATGPT_OAUTH_ATTEMPT_ID_BYTES).toString('base64url'),
      state: oauth.generateRandomState(),
      verifier,
      redirectUri,
      expiresAt: this.#now() + this.#attemptTtlMs,
      epoch: this.#epoch,
    };
    const url = new URL(this.#config.authorization_endpoint);
    const params: [string, string][] = [
      ['response_type', 'code'],
      ['client_id', this.#config.client_id],
      ['redirect_uri', redirectUri],
      ['scope', this.#config.scope],
      ['code_challenge', await oauth.calculatePKCECodeChallenge(verifier)],
      ['code_challenge_method', 'S256'],
      ['id_token_add_organizations', 'true'],
      ['codex_cli_simplified_flow', 'true'],
      ['originator', 'bastion'],
      ['state', attempt.state],
    ];
    for (const [name, value] of params) url.searchParams.set(name, value);
    this.#attempt = attempt;
    this.#log.info('chatgpt.attempt-started');
    return { attempt_id: attempt.id, authorization_url: url.href };
  }

  /** Exchange the callback's code once. The attempt is consumed before the exchange starts. */
  async complete(input: { attempt_id: string; code: string; state: string }): Promise<ChatgptStatus> {
    const attempt = this.#attempt;
    if (!attempt || !sameSecret(attempt.id, input.attempt_id)) throw new ChatgptAuthError('OAUTH_ATTEMPT');
    if (this.#now() > attempt.expiresAt) {
      this.#attempt = undefined;
      throw new ChatgptAuthError('OAUTH_TIMEOUT');
    }
    // A wrong state leaves the attempt usable, as the callback listener does.
    if (!sameSecret(attempt.state, input.state)) throw new ChatgptAuthError('OAUTH_STATE');
    this.#attempt = undefined;
    if (attempt.epoch !== this.#epoch) throw new ChatgptAuthError('OAUTH_SIGNED_OUT');
    const signal = this.#epochAbort.signal;
    let grant;
    try {
      grant = await this.#tokens.exchange({
        code: input.code,
        state: input.state,
        redirectUri: attempt.redirectUri,
        verifier: attempt.verifier,
        signal,
      });
    } catch {
      if (attempt.epoch !== this.#epoch) throw new ChatgptAuthError('OAUTH_SIGNED_OUT');
      this.#log.warn('chatgpt.exchange-failed', { code: 'OAUTH_EXCHANGE' });
      throw new ChatgptAuthError('OAUTH_EXCHANGE');
    }
    // A sign-out while the exchange ran wins: the tokens are dropped unseen.
    if (attempt.epoch !== this.#epoch) throw new ChatgptAuthError('OAUTH_SIGNED_OUT');
    const claims = grant.claims;
    if (!grant.refresh || !claims) throw new ChatgptAuthError('OAUTH_EXCHANGE');
    const entry: OAuthEntry = {
      type: 'oauth',
      access: grant.access,
      refresh: grant.refresh,
      expires: grant.expires,
      account_id: claims.account_id,
      ...(claims.email ? { email: claims.email } : {}),
      ...(claims.plan ? { plan: claims.plan } : {}),
    };
    // A new sign-in (same or another account) ends the old epoch: its refreshes and runs stop.
    this.#newEpoch('OAUTH_SUPERSEDED');
    this.#reconnectRequired = false;
    await this.#store.set(CHATGPT_PROVIDER_ID, entry);
    this.#log.info('chatgpt.connected', { provider: CHATGPT_PROVIDER_ID });
    return this.#statusOf(entry);
  }

  /** Drop the unfinished attempt (all of them when no id is given). */
  cancel(attemptId?: string): void {
    const attempt = this.#attempt;
    if (!attempt) return;
    if (attemptId !== undefined && !sameSecret(attempt.id, attemptId)) return;
    this.#attempt = undefined;
    this.#log.info('chatgpt.attempt-cancelled');
  }

  /** Safe status: state, and the account's display fields only. */
  async status(): Promise<ChatgptStatus> {
    if (this.#reconnectRequired) return { state: 'error', code: 'OAUTH_REFRESH' };
    const entry = await this.#entry();
    if (entry) return this.#statusOf(entry);
    return { state: this.#attempt ? 'connecting' : 'signed-out' };
  }

  /** Sign-out wins over everything in flight: a new epoch, no attempt, no tokens. */
  async signOut(): Promise<void> {
    this.#newEpoch('OAUTH_SIGNED_OUT');
    this.#attempt = undefined;
    this.#reconnectRequired = false;
    await this.#store.delete(CHATGPT_PROVIDER_ID);
    this.#log.info('chatgpt.signed-out', { provider: CHATGPT_PROVIDER_ID });
  }

  /** The authorization for the next inference request, refreshed first when it is about to expire. */
  async authorization(): Promise<ChatgptAuthorization> {
    if (this.#reconnectRequired) throw new ChatgptAuthError('OAUTH_REFRESH');
    const entry = await this.#entry();
    if (!entry) throw new ChatgptAuthError('OAUTH_SIGNED_OUT');
    if (entry.expires - CHATGPT_REFRESH_SKEW_MS > this.#now()) return this.#authorizationOf(entry);
    return this.refreshAfter(entry.access);
  }

  /**
   * The upstream refused `failedAccess` (401) or it expired: refresh once for everybody who saw
   * it. A caller whose token was already replaced gets the current one without a new refresh.
   */
  async refreshAfter(failedAccess: string): Promise<ChatgptAuthorization> {
    if (this.#refreshing) return this.#refreshing;
    if (this.#reconnectRequired) throw new ChatgptAuthError('OAUTH_REFRESH');
    const entry = await this.#entry();
    if (!entry) throw new ChatgptAuthError('OAUTH_SIGNED_OUT');
    if (this.#refreshing) return this.#refreshing;
    if (!sameSecret(entry.access, failedAccess)) return this.#authorizationOf(entry);
    const refreshing = this.#refresh(entry).finally(() => {
      if (this.#refreshing === refreshing) this.#refreshing = undefined;
    });
    this.#refreshing = refreshing;
    return refreshing;
  }

  async #refresh(entry: OAuthEntry): Promise<ChatgptAuthorization> {
    const epoch = this.#epoch;
    const signal = this.#epochAbort.signal;
    this.#log.info('chatgpt.refresh-started');
    let grant;
    try {
      grant = await this.#tokens.refresh(entry.refresh, signal);
    } catch (error) {
      if (epoch !== this.#epoch) throw new ChatgptAuthError('OAUTH_SUPERSEDED');
      if (error instanceof TokenEndpointFailure && error.permanent) {
        // The refresh token is dead (reused, revoked): drop it, unless something newer is stored.
        if (await this.#store.compareAndSwap(CHATGPT_PROVIDER_ID, entry, undefined)) this.#reconnectRequired = true;
        this.#log.warn('chatgpt.refresh-refused', { code: 'OAUTH_REFRESH', reason: 'reconnect' });
      } else {
        this.#log.warn('chatgpt.refresh-failed', { code: 'OAUTH_REFRESH' });
      }
      throw new ChatgptAuthError('OAUTH_REFRESH');
    }
    if (epoch !== this.#epoch) throw new ChatgptAuthError('OAUTH_SUPERSEDED');
    if (grant.claims && grant.claims.account_id !== entry.account_id) throw new ChatgptAuthError('OAUTH_REFRESH');
    const next: OAuthEntry = {
      ...entry,
      access: grant.access,
      refresh: grant.refresh ?? entry.refresh,
      expires: grant.expires,
      ...(grant.claims?.email ? { email: grant.claims.email } : {}),
      ...(grant.claims?.plan ? { plan: grant.claims.plan } : {}),
    };
    // Persist the rotation before anyone uses it; losing the race (sign-out, new account) drops it.
    if (!(await this.#store.compareAndSwap(CHATGPT_PROVIDER_ID, entry, next)) || epoch !== this.#epoch) {
      throw new ChatgptAuthError('OAUTH_SUPERSEDED');
    }
    this.#log.info('chatgpt.refreshed');
    return this.#authorizationOf(next);
  }

  #newEpoch(reason: 'OAUTH_SIGNED_OUT' | 'OAUTH_SUPERSEDED'): void {
    this.#epoch += 1;
    this.#epochAbort.abort(new ChatgptAuthError(reason));
    this.#epochAbort = new AbortController();
    this.#refreshing = undefined;
  }

  async #entry(): Promise<OAuthEntry | undefined> {
    const entry = await this.#store.get(CHATGPT_PROVIDER_ID);
    return entry?.type === 'oauth' ? entry : undefined;
  }

  #authorizationOf(entry: OAuthEntry): ChatgptAuthorization {
    return { access: entry.access, accountId: entry.account_id, signal: this.#epochAbort.signal };
  }

  #statusOf(entry: OAuthEntry): ChatgptStatus {
    return {
      state: 'connected',
      ...(entry.email ? { email: entry.email } : {}),
      ...(entry.plan ? { plan: entry.plan } : {}),
    };
  }
}
