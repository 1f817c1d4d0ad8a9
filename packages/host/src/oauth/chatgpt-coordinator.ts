/**
 * SEC-008: the host's side of "Sign in with your ChatGPT account". The four operations a renderer
 * may ask for (through host IPC) are `connect`, `cancel`, `status` and `signOut`; each answers with
 * the safe status only. `connect` opens the loopback callback listener first, then asks the daemon
 * for an attempt, checks the authorization URL it built, and only then hands it to the system
 * browser (or prints it). The callback's code goes straight to the daemon, which exchanges it; the
 * host keeps no token and logs no code, state or URL. Daemon calls carry the per-spawn host key.
 *
 * Does not catch: a malicious program that the user's browser hands the authorization page to.
 */
import {
  chatgptStartResponseSchema,
  chatgptStatusSchema,
  isWireErrorCode,
  type ChatgptStatus,
  type Logger,
  type WireErrorCode,
} from '@bastion/protocol';
import type { DaemonResponse } from '../daemon-client.js';
import { checkAuthorizationUrl } from './authorization-url-check.js';
import { CallbackListener, type CallbackClaim, type CallbackEnd } from './callback-listener.js';
import type { ChatgptOAuthConfig } from './chatgpt-oauth-config.js';

/** A daemon call with the host key attached (the host's client only). */
export type ChatgptDaemonCall = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<DaemonResponse>;

/** Hands a checked authorization URL to the user; resolves false when it could only be printed. */
export type AuthorizationOpener = (url: string) => Promise<boolean>;

interface Attempt {
  listener: CallbackListener;
  attemptId: string | undefined;
  /** Resolves when the attempt has ended and its outcome is recorded. */
  settled: Promise<void>;
}

/** The daemon's wire code if it is one, else the fallback: nothing else of its body is kept. */
function codeOf(response: DaemonResponse, fallback: WireErrorCode): WireErrorCode {
  const code = (response.body as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && isWireErrorCode(code) ? code : fallback;
}

const END_CODES: Partial<Record<CallbackEnd, WireErrorCode>> = {
  timeout: 'OAUTH_TIMEOUT',
  denied: 'OAUTH_DENIED',
};

export class ChatgptCoordinator {
  readonly #config: ChatgptOAuthConfig;
  readonly #daemon: ChatgptDaemonCall;
  readonly #open: AuthorizationOpener;
  readonly #log: Logger;
  readonly #timeoutMs: number | undefined;
  #attempt: Attempt | undefined;
  /** The last attempt's failure, shown by `status` until the next connect or sign-out. */
  #lastError: WireErrorCode | undefined;

  constructor(options: {
    config: ChatgptOAuthConfig;
    daemon: ChatgptDaemonCall;
    open: AuthorizationOpener;
    log: Logger;
    /** Attempt timeout (default CHATGPT_OAUTH_ATTEMPT_TTL_MS). */
    timeoutMs?: number;
  }) {
    this.#config = options.config;
    this.#daemon = options.daemon;
    this.#open = options.open;
    this.#log = options.log;
    this.#timeoutMs = options.timeoutMs;
  }

  /** Start a sign-in (or report the one in progress). Resolves once the browser was handed the URL. */
  async connect(): Promise<ChatgptStatus> {
    if (this.#attempt) return { state: 'connecting' };
    this.#lastError = undefined;
    let listener: CallbackListener;
    try {
      listener = await CallbackListener.open({
        ports: this.#config.callbackPorts,
        log: this.#log,
        timeoutMs: this.#timeoutMs,
        onClaim: (claim) => this.#complete(attempt, claim),
      });
    } catch (error) {
      return this.#fail(
        (error as { code?: string }).code === 'OAUTH_CALLBACK_PORT' ? 'OAUTH_CALLBACK_PORT' : 'OAUTH_UNAVAILABLE',
      );
    }
    const attempt: Attempt = { listener, attemptId: undefined, settled: Promise.resolve() };
    this.#attempt = attempt;
    attempt.settled = listener.ended.then((end) => this.#ended(attempt, end));

    const started = await this.#daemon('POST', '/auth/chatgpt/start', { redirect_uri: listener.redirectUri }).catch(
      () => undefined,
    );
    if (this.#attempt !== attempt) return this.status();
    if (!started || started.status !== 200) {
      await this.#abandon(attempt);
      return this.#fail(started ? codeOf(started, 'OAUTH_UNAVAILABLE') : 'OAUTH_UNAVAILABLE');
    }
    const parsed = chatgptStartResponseSchema.safeParse(started.body);
    const checked = parsed.success
      ? checkAuthorizationUrl(parsed.data.authorization_url, {
          config: this.#config,
          redirectUri: listener.redirectUri,
        })
      : undefined;
    if (!parsed.success || !checked?.ok) {
      attempt.attemptId = parsed.success ? parsed.data.attempt_id : undefined;
      await this.#abandon(attempt);
      this.#log.error('chatgpt.authorization-url-refused', { code: 'OAUTH_AUTHORIZATION_URL' });
      return this.#fail('OAUTH_AUTHORIZATION_URL');
    }
    attempt.attemptId = parsed.data.attempt_id;
    listener.arm(checked.state);
    const opened = await this.#open(checked.url).catch(() => false);
    this.#log.info('chatgpt.browser-opened', { reason: opened ? 'system-browser' : 'printed', port: listener.port });
    return { state: 'connecting' };
  }

  /** End the attempt in progress, if any. */
  async cancel(): Promise<ChatgptStatus> {
    const attempt = this.#attempt;
    if (attempt) await this.#abandon(attempt);
    return this.status();
  }

  /** Safe status: an attempt in progress, the daemon's account display fields, or the last failure. */
  async status(): Promise<ChatgptStatus> {
    if (this.#attempt) return { state: 'connecting' };
    const answer = await this.#daemon('GET', '/auth/chatgpt/status').catch(() => undefined);
    const parsed = answer?.status === 200 ? chatgptStatusSchema.safeParse(answer.body) : undefined;
    if (!parsed?.success)
      return { state: 'error', code: answer ? codeOf(answer, 'OAUTH_UNAVAILABLE') : 'OAUTH_UNAVAILABLE' };
    if (parsed.data.state === 'signed-out' && this.#lastError) return { state: 'error', code: this.#lastError };
    return parsed.data;
  }

  /** Sign out: the attempt in progress ends, the daemon drops the tokens and stops their use. */
  async signOut(): Promise<ChatgptStatus> {
    const attempt = this.#attempt;
    if (attempt) await this.#abandon(attempt);
    this.#lastError = undefined;
    const answer = await this.#daemon('POST', '/auth/chatgpt/sign-out', {}).catch(() => undefined);
    if (answer?.status !== 200)
      return { state: 'error', code: answer ? codeOf(answer, 'OAUTH_UNAVAILABLE') : 'OAUTH_UNAVAILABLE' };
    this.#log.info('chatgpt.signed-out');
    return this.status();
  }

  /** Resolves when the attempt in progress (if any) has ended: for the CLI and tests. */
  async settled(): Promise<ChatgptStatus> {
    await this.#attempt?.settled;
    return this.status();
  }

  /** Close the listener on host stop. */
  async close(): Promise<void> {
    const attempt = this.#attempt;
    if (attempt) await this.#abandon(attempt);
  }

  async #complete(attempt: Attempt, claim: CallbackClaim): Promise<boolean> {
    if (claim.kind !== 'code' || attempt.attemptId === undefined || this.#attempt !== attempt) return false;
    const answer = await this.#daemon('POST', '/auth/chatgpt/complete', {
      attempt_id: attempt.attemptId,
      code: claim.code,
      state: claim.state,
    }).catch(() => undefined);
    if (answer?.status === 200) return true;
    this.#lastError = answer ? codeOf(answer, 'OAUTH_EXCHANGE') : 'OAUTH_EXCHANGE';
    this.#log.warn('chatgpt.complete-failed', { code: this.#lastError });
    return false;
  }

  async #ended(attempt: Attempt, end: CallbackEnd): Promise<void> {
    const code = END_CODES[end];
    if (code) {
      this.#lastError = code;
      if (attempt.attemptId)
        await this.#daemon('POST', '/auth/chatgpt/cancel', { attempt_id: attempt.attemptId }).catch(() => undefined);
    }
    if (this.#attempt === attempt) this.#attempt = undefined;
    this.#log.info('chatgpt.attempt-ended', { reason: end, code: code ?? null });
  }

  /** Close the listener and drop the daemon's attempt. */
  async #abandon(attempt: Attempt): Promise<void> {
    if (this.#attempt === attempt) this.#attempt = undefined;
    await attempt.listener.cancel();
    if (attempt.attemptId)
      await this.#daemon('POST', '/auth/chatgpt/cancel', { attempt_id: attempt.attemptId }).catch(() => undefined);
    await attempt.settled;
  }

  #fail(code: WireErrorCode): ChatgptStatus {
    this.#lastError = code;
    this.#log.warn('chatgpt.connect-failed', { code });
    return { state: 'error', code };
  }
}
