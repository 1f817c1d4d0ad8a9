/**
 * SEC-008 credential owner, in process, against the real loopback authorization server (PKCE
 * verified there) and a real auth.json. The fetch here is the test process's own; in the product it
 * is the host-routed transport (chatgpt-flow.test.ts covers that path).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, type ChatgptBootstrap, type LogRecord } from '@bastion/protocol';
import { ChatgptCredentials, AuthStore } from '@bastion/daemon/testing';
import { makeTempDir } from '@bastion/test-support';
import { CANARY, FakeChatgpt } from './fake-chatgpt.js';

const REDIRECT = 'http://localhost:1455/auth/callback';
let fake: FakeChatgpt;
let dir: string;
let records: LogRecord[];
let fetched: string[];

beforeEach(async () => {
  fake = await new FakeChatgpt().start();
  dir = makeTempDir('bastion-chatgpt-');
  records = [];
  fetched = [];
});
afterEach(async () => {
  await fake.stop();
  const logged = JSON.stringify(records);
  for (const secret of [CANARY, ...fake.issuedSecrets]) expect(logged).not.toContain(secret);
});

function bootstrap(overrides: Partial<ChatgptBootstrap> = {}): ChatgptBootstrap {
  return {
    host_key: 'k'.repeat(43),
    client_id: 'app_test-client',
    issuer: fake.issuer,
    authorization_endpoint: `${fake.issuer}/oauth/authorize`,
    token_endpoint: `${fake.issuer}/oauth/token`,
    responses_url: fake.responsesUrl,
    scope: 'openid profile email offline_access',
    ...overrides,
  };
}

function manager(options: { now?: () => number; config?: ChatgptBootstrap } = {}): ChatgptCredentials {
  return new ChatgptCredentials({
    config: options.config ?? bootstrap(),
    store: new AuthStore(dir),
    fetch: (input, init) => {
      fetched.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    },
    log: createLogger('daemon', (record) => records.push(record)),
    ...(options.now ? { now: options.now } : {}),
  });
}

/** start → the authorization server's redirect → its code and state. */
async function authorize(credentials: ChatgptCredentials) {
  const started = await credentials.start(REDIRECT);
  const callback = new URL(await fake.authorize(started.authorization_url));
  return {
    attempt_id: started.attempt_id,
    code: callback.searchParams.get('code') ?? '',
    state: callback.searchParams.get('state') ?? '',
    url: started.authorization_url,
  };
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'resolved';
}

describe('ChatGPT credential owner', () => {
  it('each attempt has fresh state (≥ 24 bytes), S256 challenge and id (≥ 24 bytes)', async () => {
    const credentials = manager();
    const a = await credentials.start(REDIRECT);
    const b = await credentials.start(REDIRECT);
    const [ua, ub] = [new URL(a.authorization_url), new URL(b.authorization_url)];
    expect(ua.searchParams.get('code_challenge_method')).toBe('S256');
    expect(ua.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(ua.searchParams.get('state') ?? '', 'base64url').length).toBeGreaterThanOrEqual(24);
    expect(Buffer.from(a.attempt_id, 'base64url').length).toBeGreaterThanOrEqual(24);
    expect(ua.searchParams.get('state')).not.toBe(ub.searchParams.get('state'));
    expect(ua.searchParams.get('code_challenge')).not.toBe(ub.searchParams.get('code_challenge'));
    expect(a.attempt_id).not.toBe(b.attempt_id);
  });

  it('completes once through the exact token endpoint; PKCE verified; tokens in auth.json 0600', async () => {
    const credentials = manager();
    const got = await authorize(credentials);
    expect(await credentials.complete(got)).toEqual({ state: 'connected', email: 'one@example.test', plan: 'plus' });
    expect(fake.tokenRequests).toEqual({ code: 1, refresh: 0, pkceFailures: 0 });
    expect(fetched).toEqual([`${fake.issuer}/oauth/token`]);
    expect(statSync(join(dir, 'auth.json')).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(join(dir, 'auth.json'), 'utf8')) as {
      entries: { chatgpt: Record<string, unknown> };
    };
    expect(Object.keys(file.entries.chatgpt).sort()).toEqual([
      'access',
      'account_id',
      'email',
      'expires',
      'plan',
      'refresh',
      'type',
    ]);
    expect(file.entries.chatgpt.account_id).toBe(fake.account.accountId);
    // The attempt is consumed: a replay of the same completion is refused without a token request.
    expect(await failure(credentials.complete(got))).toBe('OAUTH_ATTEMPT');
    expect(fake.tokenRequests.code).toBe(1);
  });

  it('a wrong state is refused and leaves the attempt usable', async () => {
    const credentials = manager();
    const got = await authorize(credentials);
    expect(await failure(credentials.complete({ ...got, state: `${got.state}x` }))).toBe('OAUTH_STATE');
    expect(fake.tokenRequests.code).toBe(0);
    expect((await credentials.complete(got)).state).toBe('connected');
  });

  it('an unknown attempt id is refused', async () => {
    const credentials = manager();
    const got = await authorize(credentials);
    expect(await failure(credentials.complete({ ...got, attempt_id: 'x'.repeat(32) }))).toBe('OAUTH_ATTEMPT');
  });

  it('an attempt older than its TTL is refused with OAUTH_TIMEOUT, before any token request', async () => {
    let now = 1_000_000;
    const credentials = manager({ now: () => now });
    const got = await authorize(credentials);
    now += 10 * 60_000 + 1;
    expect(await failure(credentials.complete(got))).toBe('OAUTH_TIMEOUT');
    expect(fake.tokenRequests.code).toBe(0);
  });

  it('a cancelled attempt cannot complete', async () => {
    const credentials = manager();
    const got = await authorize(credentials);
    credentials.cancel(got.attempt_id);
    expect(await failure(credentials.complete(got))).toBe('OAUTH_ATTEMPT');
    expect(fake.tokenRequests.code).toBe(0);
  });

  it('a token response over 1 MiB is refused as OAUTH_EXCHANGE and nothing is stored', async () => {
    const huge: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'a', token_type: 'Bearer', pad: 'x'.repeat(1024 * 1024 + 10) }));
    });
    await new Promise<void>((resolve) => huge.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(huge.address() as AddressInfo).port}`;
    try {
      const credentials = manager({ config: bootstrap({ token_endpoint: `${origin}/oauth/token` }) });
      const got = await authorize(credentials);
      expect(await failure(credentials.complete(got))).toBe('OAUTH_EXCHANGE');
      expect(readdirSync(dir)).not.toContain('auth.json');
    } finally {
      await new Promise<void>((resolve) => huge.close(() => resolve()));
    }
  });

  it('a token response without the account claim is refused (claims come only from the token endpoint)', async () => {
    const credentials = manager();
    fake.account = { accountId: '', email: 'x@example.test', plan: 'plus' };
    const got = await authorize(credentials);
    expect(await failure(credentials.complete(got))).toBe('OAUTH_EXCHANGE');
    expect(readdirSync(dir)).not.toContain('auth.json');
  });

  it('the exchange error carries no upstream detail', async () => {
    const credentials = manager();
    const got = await authorize(credentials);
    try {
      // The authorization server answers invalid_grant with a description naming the canary.
      await credentials.complete({ ...got, code: `${got.code}-forged` });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toBe('the sign-in could not be completed');
      expect((error as Error).cause).toBeUndefined();
    }
  });

  it('sign-out during the code exchange wins: nothing is stored', async () => {
    const credentials = manager();
    const got = await authorize(credentials);
    const completing = failure(credentials.complete(got));
    await credentials.signOut();
    expect(['OAUTH_SIGNED_OUT', 'OAUTH_EXCHANGE']).toContain(await completing);
    expect(await credentials.status()).toEqual({ state: 'signed-out' });
    const stored = readdirSync(dir).includes('auth.json') ? readFileSync(join(dir, 'auth.json'), 'utf8') : '';
    expect(stored).not.toContain('access-');
  });

  it("never reads another application's credentials (no ~/.codex import)", () => {
    const sources = [
      'chatgpt-credentials.ts',
      'chatgpt-token-endpoint.ts',
      'chatgpt-provider.ts',
      'chatgpt-routes.ts',
    ].map((file) => readFileSync(new URL(`../../../daemon/src/oauth/${file}`, import.meta.url), 'utf8'));
    for (const source of sources) {
      // Code, not the comments that promise it: no path literal, no home-directory lookup.
      expect(source).not.toMatch(/['"`][^'"`\n]*\.codex|homedir\(|CODEX_HOME|process\.env/);
    }
  });
});
