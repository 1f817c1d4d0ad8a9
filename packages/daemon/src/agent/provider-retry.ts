/**
 * SEC-008 (no silent failover): a model call that a provider answers with 429 or 5xx is tried
 * again on the SAME model and transport, never another provider, after a backoff that honours the
 * provider's Retry-After (`retry-after-ms`, `retry-after` in seconds or as an HTTP date), doubling
 * from PROVIDER_RETRY_INITIAL_DELAY_MS without one. At most PROVIDER_MAX_ATTEMPTS attempts and
 * PROVIDER_RETRY_BUDGET_MS of waiting in all; a wait that would not fit surfaces the error at
 * once. Each retry is reported (the run's `run-retry` event) before its wait. Only a failure to
 * start a call is retried: once a stream has begun, its errors end the run.
 *
 * Errors are described for events by providerErrorDetails(): the HTTP status, the Retry-After,
 * and the provider's message with control characters removed, long token-like runs (keys,
 * request ids) redacted and its length bounded.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { APICallError, type LanguageModelV3 } from '@ai-sdk/provider';
import {
  PROVIDER_ERROR_MESSAGE_MAX_CHARS,
  PROVIDER_MAX_ATTEMPTS,
  PROVIDER_RETRY_BUDGET_MS,
  PROVIDER_RETRY_INITIAL_DELAY_MS,
} from '@bastion/protocol';
import { isDaemonError, type DaemonError } from '../errors.js';
import { withModelCalls } from './model-calls.js';

export interface ProviderRetry {
  /** The attempt that failed (1-based). */
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  status: number | undefined;
  message: string;
}

export interface ProviderErrorDetails {
  status: number | undefined;
  retryAfterMs: number | undefined;
  message: string;
}

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g;
/** 20 or more key-ish characters in a row: an API key, a token, a request id. */
const TOKEN_LIKE = /[A-Za-z0-9_\-.]{20,}/g;

export function sanitizeProviderMessage(message: string): string {
  const clean = message.replace(CONTROL_CHARACTERS, ' ').replace(TOKEN_LIKE, '[redacted]').trim();
  return clean.length > PROVIDER_ERROR_MESSAGE_MAX_CHARS
    ? `${clean.slice(0, PROVIDER_ERROR_MESSAGE_MAX_CHARS)}…`
    : clean;
}

/** The first of `error` and a few of its `cause` links that `match` picks. */
export function causeIn<T>(error: unknown, match: (cause: unknown) => cause is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The provider's HTTP answer behind an error. */
const apiCallErrorIn = (error: unknown): APICallError | undefined =>
  causeIn(error, (cause): cause is APICallError => APICallError.isInstance(cause));

/** An error answer too large to read (bounded-reply-fetch.ts): a retry would read as much again. */
const isReplyTooLarge = (error: unknown): boolean =>
  causeIn(error, (cause): cause is DaemonError => isDaemonError(cause) && cause.code === 'PROVIDER_REPLY_TOO_LARGE') !==
  undefined;

/** Milliseconds the provider asked to wait, from its headers; undefined when it did not say (or said nonsense). */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim()]));
  const ms = lower['retry-after-ms'];
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const after = lower['retry-after'];
  if (after === undefined) return undefined;
  if (/^\d+$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function providerErrorDetails(error: unknown): ProviderErrorDetails | undefined {
  const call = apiCallErrorIn(error);
  if (!call) return undefined;
  return {
    status: call.statusCode,
    retryAfterMs: retryAfterMs(call.responseHeaders),
    message: sanitizeProviderMessage(call.message),
  };
}

function isRetryableStatus(status: number | undefined): boolean {
  return status === 429 || (status !== undefined && status >= 500 && status <= 599);
}

/** Run `call`, retrying a provider's 429/5xx within the bounds above. */
export async function withRetries<T>(
  call: () => PromiseLike<T>,
  options: { signal: AbortSignal | undefined; onRetry: (retry: ProviderRetry) => void },
): Promise<T> {
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const details = providerErrorDetails(error);
      if (attempt >= PROVIDER_MAX_ATTEMPTS || !details || !isRetryableStatus(details.status) || isReplyTooLarge(error))
        throw error;
      const delayMs = details.retryAfterMs ?? PROVIDER_RETRY_INITIAL_DELAY_MS * 2 ** (attempt - 1);
      if (waited + delayMs > PROVIDER_RETRY_BUDGET_MS) throw error;
      waited += delayMs;
      options.onRetry({
        attempt,
        maxAttempts: PROVIDER_MAX_ATTEMPTS,
        delayMs,
        status: details.status,
        message: details.message,
      });
      await delay(delayMs, undefined, { signal: options.signal });
    }
  }
}

/** The same model, its calls retried by withRetries (both streamed steps and the compaction summary). */
export function retryingModel(model: LanguageModelV3, onRetry: (retry: ProviderRetry) => void): LanguageModelV3 {
  return withModelCalls(model, {
    doStream: (options) => withRetries(() => model.doStream(options), { signal: options.abortSignal, onRetry }),
    doGenerate: (options) => withRetries(() => model.doGenerate(options), { signal: options.abortSignal, onRetry }),
  });
}
