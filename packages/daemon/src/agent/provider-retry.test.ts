import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import {
  PROVIDER_ERROR_MESSAGE_MAX_CHARS,
  PROVIDER_MAX_ATTEMPTS,
  PROVIDER_RETRY_BUDGET_MS,
  PROVIDER_RETRY_INITIAL_DELAY_MS,
} from '@bastion/protocol';
import {
  providerErrorDetails,
  retryAfterMs,
  sanitizeProviderMessage,
  withRetries,
  type ProviderRetry,
} from './provider-retry.js';

function httpError(status: number, headers: Record<string, string> = {}, message = `status ${status}`): APICallError {
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1',
    requestBodyValues: {},
    statusCode: status,
    responseHeaders: headers,
  });
}

/** A call failing with `errors` in turn, then answering 'ok'; counts its attempts. */
function scripted(errors: Error[]) {
  const state = { calls: 0 };
  const call = () => {
    const error = errors[state.calls];
    state.calls += 1;
    if (error === undefined) return Promise.resolve('ok');
    return Promise.reject(error);
  };
  return { call, state };
}

async function runWith(errors: Error[]) {
  const { call, state } = scripted(errors);
  const retries: ProviderRetry[] = [];
  const outcome = await withRetries(call, { signal: undefined, onRetry: (retry) => retries.push(retry) }).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return { outcome, retries, calls: state.calls };
}

describe('retryAfterMs', () => {
  it('reads retry-after-ms, retry-after seconds and an HTTP date, ignoring case', () => {
    expect(retryAfterMs({ 'Retry-After-Ms': '250' })).toBe(250);
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    const now = Date.parse('2026-12-03T10:00:00Z');
    expect(retryAfterMs({ 'retry-after': 'Thu, 03 Dec 2026 10:00:05 GMT' }, now)).toBe(5000);
  });

  it('is undefined without the header or with a value that means nothing', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after-ms': '-5' })).toBeUndefined();
  });
});

describe('sanitizeProviderMessage', () => {
  it('removes control and bidi characters, redacts key-like runs and bounds the length', () => {
    expect(sanitizeProviderMessage('bad\u001b[31m key sk-abcdefghijklmnopqrstuvwxyz012345\u202e!')).toBe(
      'bad [31m key [redacted] !',
    );
    const long = sanitizeProviderMessage('word '.repeat(200));
    expect(long.length).toBeLessThanOrEqual(PROVIDER_ERROR_MESSAGE_MAX_CHARS + 1);
  });

  it('describes a provider error by status, Retry-After and sanitized message, through a cause chain', () => {
    const wrapped = new TypeError('fetch failed', { cause: httpError(503, { 'retry-after': '3' }, 'overloaded\n') });
    expect(providerErrorDetails(wrapped)).toEqual({ status: 503, retryAfterMs: 3000, message: 'overloaded' });
    expect(providerErrorDetails(new Error('local'))).toBeUndefined();
  });
});

describe('withRetries', () => {
  it('retries a 429 after the Retry-After the provider gave, then returns the answer', async () => {
    const { outcome, retries, calls } = await runWith([httpError(429, { 'retry-after-ms': '20' }, 'slow down')]);
    expect(outcome).toEqual({ value: 'ok' });
    expect(calls).toBe(2);
    expect(retries).toEqual([
      { attempt: 1, maxAttempts: PROVIDER_MAX_ATTEMPTS, delayMs: 20, status: 429, message: 'slow down' },
    ]);
  });

  it('backs off exponentially on 5xx without a Retry-After', async () => {
    const { retries, calls } = await runWith([httpError(500), httpError(502)]);
    expect(calls).toBe(3);
    expect(retries.map((retry) => retry.delayMs)).toEqual([
      PROVIDER_RETRY_INITIAL_DELAY_MS,
      PROVIDER_RETRY_INITIAL_DELAY_MS * 2,
    ]);
  });

  it(`gives up after ${PROVIDER_MAX_ATTEMPTS} attempts and surfaces the last error`, async () => {
    const last = httpError(429, { 'retry-after-ms': '1' }, 'third');
    const { outcome, retries, calls } = await runWith([
      httpError(429, { 'retry-after-ms': '1' }),
      httpError(429, { 'retry-after-ms': '1' }),
      last,
    ]);
    expect(outcome).toEqual({ error: last });
    expect(calls).toBe(PROVIDER_MAX_ATTEMPTS);
    expect(retries).toHaveLength(PROVIDER_MAX_ATTEMPTS - 1);
  });

  it(`surfaces at once a Retry-After beyond the ${PROVIDER_RETRY_BUDGET_MS} ms budget`, async () => {
    const { outcome, retries, calls } = await runWith([
      httpError(429, { 'retry-after': String(PROVIDER_RETRY_BUDGET_MS / 1000 + 1) }),
    ]);
    expect(outcome).toHaveProperty('error');
    expect(calls).toBe(1);
    expect(retries).toEqual([]);
  });

  it('does not retry a 400, a 401 or an error that is no provider answer', async () => {
    for (const error of [httpError(400), httpError(401), new Error('socket closed')]) {
      const { outcome, calls } = await runWith([error]);
      expect(outcome).toEqual({ error });
      expect(calls).toBe(1);
    }
  });

  it('stops waiting when the run is aborted', async () => {
    const controller = new AbortController();
    const { call, state } = scripted([httpError(429, { 'retry-after': '30' })]);
    const running = withRetries(call, {
      signal: controller.signal,
      onRetry: () => controller.abort(new Error('stop')),
    });
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(state.calls).toBe(1);
  });
});
