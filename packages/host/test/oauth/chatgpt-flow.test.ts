/**
 * SEC-008 end to end: a real host and sidecar, a real authorization server that verifies PKCE and a
 * real streaming Responses server on loopback, both reached only through the host-routed transport
 * (the profile's issuer and Responses overrides move the grants to them). The test plays the
 * browser. Every test ends with a canary scan: no token, code, account id or upstream body may
 * appear in any log record, status, error body or event stream.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChatgptStatus } from '@bastion/protocol';
import { AgentDriver, type RunOutcome } from '../commands/agent-stream.js';
import { bridgeHeaders, rawRequest } from '../support/raw-request.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { connectionOutcome } from './callback-client.js';
import { CANARY, FakeChatgpt, gate, type Gate } from './fake-chatgpt.js';

let fake: FakeChatgpt;
let host: TempHost | undefined;
let opened: string[];
/** Everything a client was shown: statuses, error bodies, event streams. Scanned after each test. */
let shown: string[];
/** Per-spawn host keys for /auth/chatgpt/*: never logged or shown either. */
let hostKeys: string[];

beforeEach(async () => {
  fake = await new FakeChatgpt().start();
  opened = [];
  shown = [];
  hostKeys = [];
});

afterEach(async () => {
  const records = host ? JSON.stringify(host.records) : '';
  await host?.stop();
  host = undefined;
  await fake.stop();
  const secrets = [CANARY, ...fake.issuedSecrets, ...hostKeys];
  for (const secret of secrets) {
    expect(records, 'a log record carries a credential').not.toContain(secret);
    for (const text of shown) expect(text, 'a client saw a credential').not.toContain(secret);
  }
});

async function startHost(): Promise<TempHost> {
  host = await startTempHost({
    chatgpt: { issuer: fake.issuer, responsesUrl: fake.responsesUrl },
    chatgptOpener: (url) => {
      opened.push(url);
      return Promise.resolve(true);
    },
  });
  const hostKey = host.supervisor.current?.config.chatgpt?.host_key;
  expect(hostKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
  hostKeys.push(hostKey ?? '');
  return host;
}

function show<T>(value: T): T {
  shown.push(JSON.stringify(value));
  return value;
}

async function status(h: TempHost): Promise<ChatgptStatus> {
  return show(await h.chatgpt.status());
}

/** connect → the test plays the browser → the callback → the exchange settles. */
async function signIn(h: TempHost): Promise<ChatgptStatus> {
  expect(show(await h.chatgpt.connect())).toEqual({ state: 'connecting' });
  const authorizationUrl = opened.at(-1) ?? '';
  const callback = await fake.authorize(authorizationUrl);
  const page = await fetch(callback);
  show(await page.text());
  expect(page.status).toBe(200);
  return show(await h.chatgpt.settled());
}

function storedEntry(
  h: TempHost,
): { type: string; access: string; refresh: string; account_id: string; email?: string } | undefined {
  const path = join(h.userData, 'auth.json');
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { entries: Record<string, never> }).entries.chatgpt;
  } catch {
    return undefined;
  }
}

async function chatgptSession(h: TempHost): Promise<AgentDriver> {
  return AgentDriver.create(h, { provider: 'chatgpt', model: 'gpt-5.1-codex' });
}

function runText(outcome: RunOutcome): string {
  shown.push(outcome.raw, JSON.stringify(outcome.body));
  return outcome.events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
}

function runError(outcome: RunOutcome): string | undefined {
  shown.push(outcome.raw, JSON.stringify(outcome.body));
  const last = outcome.events.at(-1);
  return last?.type === 'run-error' ? last.code : undefined;
}

/**
 * Signed in, its access token then expired, and a run started: resolves once the run's refresh has
 * reached the token endpoint, which holds it until `held` is released.
 */
async function runHeldInRefresh(): Promise<{ h: TempHost; held: Gate; run: Promise<RunOutcome> }> {
  const h = await startHost();
  await signIn(h);
  fake.expired.add(storedEntry(h)?.access ?? '');
  const held = gate();
  fake.refreshGate = held;
  const refreshing = new Promise<void>((resolve) => (fake.onRefresh = resolve));
  const session = await chatgptSession(h);
  const run = session.say('hello');
  await refreshing;
  return { h, held, run };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('ChatGPT sign-in, end to end', () => {
  it('full flow: callback, tokens stored 0600, display-only status, and an agent run streams through chatgpt', async () => {
    const h = await startHost();
    expect(await status(h)).toEqual({ state: 'signed-out' });
    expect(await signIn(h)).toEqual({ state: 'connected', email: 'one@example.test', plan: 'plus' });

    const auth = statSync(join(h.userData, 'auth.json'));
    expect(auth.mode & 0o777).toBe(0o600);
    const entry = storedEntry(h);
    expect(entry?.type).toBe('oauth');
    expect(entry?.account_id).toBe(fake.account.accountId);
    expect(fake.tokenRequests).toEqual({ code: 1, refresh: 0, pkceFailures: 0 });
    // The redirect was the registered one and the listener is gone.
    expect(new URL(opened[0] ?? '').searchParams.get('redirect_uri')).toBe('http://localhost:1455/auth/callback');
    expect(await connectionOutcome(1455)).toBe('ECONNREFUSED');

    const session = await chatgptSession(h);
    expect(session.session.provider).toBe('chatgpt');
    const outcome = await session.say('hello');
    expect(runText(outcome)).toBe('Hello from ChatGPT.');
    expect(outcome.events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    const call = fake.responsesCalls.at(-1);
    expect(call?.authorization).toBe(`Bearer ${entry?.access}`);
    expect(call?.accountId).toBe(fake.account.accountId);
    expect(call?.originator).toBe('bastion');
    expect(call?.body).toMatchObject({ model: 'gpt-5.1-codex', stream: true, store: false });
  });

  it('port 1455 busy: the listener falls back to 1457 and the flow completes', async () => {
    const h = await startHost();
    const squatter: Server = createServer((_req, res) => res.end('squatter'));
    await new Promise<void>((resolve) => squatter.listen(1455, '127.0.0.1', resolve));
    try {
      expect(await signIn(h)).toMatchObject({ state: 'connected' });
      expect(new URL(opened[0] ?? '').searchParams.get('redirect_uri')).toBe('http://localhost:1457/auth/callback');
    } finally {
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it('wrong state on the live callback: 400, and the same attempt still completes', async () => {
    const h = await startHost();
    await h.chatgpt.connect();
    const callback = new URL(await fake.authorize(opened.at(-1) ?? ''));
    const forged = new URL(callback);
    forged.searchParams.set('state', 'forged-state-value-000000000000000000');
    const refused = await fetch(forged);
    expect(refused.status).toBe(400);
    show(await refused.text());
    expect(show(await h.chatgpt.status())).toEqual({ state: 'connecting' });
    expect((await fetch(callback)).status).toBe(200);
    expect(show(await h.chatgpt.settled())).toMatchObject({ state: 'connected' });
    // A replay of the used callback finds no listener at all.
    expect(await connectionOutcome(1455)).toBe('ECONNREFUSED');
    expect(fake.tokenRequests.code).toBe(1);
  });

  it('cancel: the listener closes and the daemon forgets the attempt', async () => {
    const h = await startHost();
    await h.chatgpt.connect();
    const callback = await fake.authorize(opened.at(-1) ?? '');
    expect(await h.chatgpt.cancel()).toEqual({ state: 'signed-out' });
    expect(await connectionOutcome(1455)).toBe('ECONNREFUSED');
    await expect(fetch(callback)).rejects.toThrow();
    expect(fake.tokenRequests.code).toBe(0);
    expect(storedEntry(h)).toBeUndefined();
  });

  it('a renderer holding the daemon password cannot use /auth/chatgpt/* (host key required)', async () => {
    const h = await startHost();
    const password = h.supervisor.current?.password ?? '';
    const headers = { ...bridgeHeaders(h, password), 'content-type': 'application/json' };
    for (const [method, path, body] of [
      ['POST', '/auth/chatgpt/start', JSON.stringify({ redirect_uri: 'http://localhost:1455/auth/callback' })],
      ['POST', '/auth/chatgpt/complete', JSON.stringify({ attempt_id: 'a'.repeat(32), code: 'c', state: 's' })],
      ['GET', '/auth/chatgpt/status', undefined],
      ['POST', '/auth/chatgpt/sign-out', '{}'],
    ] as const) {
      const answer = await rawRequest({ port: h.socketHost.port, method, path, headers, ...(body ? { body } : {}) });
      expect(answer.status, path).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({ code: 'OAUTH_HOST_ONLY', message: 'this route is for the host only' });
      const wrongKey = await rawRequest({
        port: h.socketHost.port,
        method,
        path,
        headers: { ...headers, 'x-bastion-host-key': 'x'.repeat(43) },
        ...(body ? { body } : {}),
      });
      expect(wrongKey.status, path).toBe(403);
    }
    expect(await status(h)).toEqual({ state: 'signed-out' });
  });

  it('sign-out removes the tokens and the provider stops working, with no fallback', async () => {
    const h = await startHost();
    await signIn(h);
    expect(show(await h.chatgpt.signOut())).toEqual({ state: 'signed-out' });
    expect(storedEntry(h)).toBeUndefined();
    const session = await chatgptSession(h);
    expect(runError(await session.say('hello'))).toBe('OAUTH_SIGNED_OUT');
    expect(fake.responsesCalls).toHaveLength(0);
  });

  it.each([
    [429, 'PROVIDER_RATE_LIMIT'],
    [403, 'PROVIDER_ENTITLEMENT'],
  ])('upstream %i stays on chatgpt as %s (no silent fallback)', async (upstream, code) => {
    const h = await startHost();
    await signIn(h);
    fake.responsesStatus = upstream;
    const session = await chatgptSession(h);
    expect(runError(await session.say('hello'))).toBe(code);
    expect(fake.responsesCalls).toHaveLength(1);
    const reread = await h.client.request<{ provider: string }>('GET', `/sessions/${session.session.id}`);
    expect(reread.body.provider).toBe('chatgpt');
  });

  it('a model outside the closed list: the session is made, its run is refused 400 PROVIDER_MODEL, and nothing reaches the Responses endpoint', async () => {
    const h = await startHost();
    await signIn(h);
    const created = await h.client.request<{ id: string }>('POST', '/sessions', {
      provider: 'chatgpt',
      model: 'gpt-4o',
    });
    expect(created.status).toBe(201);
    const run = await h.client.request('POST', '/agent/run', { session_id: created.body.id, message: 'hi' });
    expect(run).toMatchObject({ status: 400, body: { code: 'PROVIDER_MODEL' } });
    expect(fake.responsesCalls).toHaveLength(0);
  });
});

describe('ChatGPT credential races', () => {
  it('two concurrent 401s cause exactly one refresh, and both runs replay once and finish', async () => {
    const h = await startHost();
    await signIn(h);
    const first = storedEntry(h);
    fake.expired.add(first?.access ?? '');
    const held = gate();
    fake.refreshGate = held;
    const [a, b] = [await chatgptSession(h), await chatgptSession(h)];
    const runs = Promise.all([a.say('one'), b.say('two')]);
    await until(() => fake.responsesCalls.length >= 2);
    held.release();
    const [outA, outB] = await runs;
    expect(runText(outA)).toBe('Hello from ChatGPT.');
    expect(runText(outB)).toBe('Hello from ChatGPT.');
    expect(fake.tokenRequests.refresh).toBe(1);
    // Two 401s, then one replay each with the rotated token.
    expect(fake.responsesCalls).toHaveLength(4);
    const second = storedEntry(h);
    expect(second?.refresh).not.toBe(first?.refresh);
    expect(fake.responsesCalls.slice(2).every((call) => call.authorization === `Bearer ${second?.access}`)).toBe(true);
  });

  it('sign-out during a refresh leaves no tokens', async () => {
    const { h, held, run } = await runHeldInRefresh();
    expect(show(await h.chatgpt.signOut())).toEqual({ state: 'signed-out' });
    held.release();
    const code = runError(await run);
    expect(['OAUTH_SIGNED_OUT', 'OAUTH_SUPERSEDED']).toContain(code);
    expect(storedEntry(h)).toBeUndefined();
    expect(await status(h)).toEqual({ state: 'signed-out' });
  });

  it('a late refresh after an account switch does not overwrite the new account', async () => {
    const { h, held, run } = await runHeldInRefresh();
    fake.account = { accountId: `acct-${CANARY}-two`, email: 'two@example.test', plan: 'pro' };
    expect(await signIn(h)).toEqual({ state: 'connected', email: 'two@example.test', plan: 'pro' });
    const switched = storedEntry(h);
    held.release();
    expect(runError(await run)).toBe('OAUTH_SUPERSEDED');
    expect(storedEntry(h)).toEqual(switched);
    expect(storedEntry(h)?.account_id).toBe(`acct-${CANARY}-two`);
    expect(await status(h)).toEqual({ state: 'connected', email: 'two@example.test', plan: 'pro' });
  });

  it('sign-out during a streaming inference ends the run; the rest of the answer never arrives', async () => {
    const h = await startHost();
    await signIn(h);
    const held = gate();
    fake.responsesGate = held;
    const session = await chatgptSession(h);
    const run = session.say('hello');
    await until(() => fake.responsesCalls.length === 1);
    expect(show(await h.chatgpt.signOut())).toEqual({ state: 'signed-out' });
    held.release();
    const outcome = await run;
    expect(outcome.events.at(-1)?.type).toBe('run-error');
    expect(runText(outcome)).not.toContain('ChatGPT.');
    expect(storedEntry(h)).toBeUndefined();
  });

  it('a refresh-token reuse error is permanent and asks the user to reconnect', async () => {
    const h = await startHost();
    await signIn(h);
    fake.expired.add(storedEntry(h)?.access ?? '');
    fake.refreshError = 'refresh_token_reused';
    const session = await chatgptSession(h);
    expect(runError(await session.say('hello'))).toBe('OAUTH_REFRESH');
    expect(storedEntry(h)).toBeUndefined();
    expect(await status(h)).toEqual({ state: 'error', code: 'OAUTH_REFRESH' });
    // Permanent: the next run does not try again.
    expect(runError(await session.say('again'))).toBe('OAUTH_REFRESH');
    expect(fake.tokenRequests.refresh).toBe(1);
    // Connecting again clears it.
    fake.refreshError = undefined;
    expect(await signIn(h)).toMatchObject({ state: 'connected' });
  });
});
