/**
 * SEC-008 coordinator ordering and its authorization-URL gate, with a scripted daemon (the daemon
 * side has its own tests): the listener is up before the daemon is asked, and a URL that fails the
 * check never reaches the browser — the listener closes and the daemon's attempt is cancelled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, type LogRecord } from '@bastion/protocol';
import { ChatgptCoordinator } from '../../src/oauth/chatgpt-coordinator.js';
import { resolveChatgptOAuthConfig } from '../../src/oauth/chatgpt-oauth-config.js';
import { connectionOutcome } from './callback-client.js';

// Port 0: the OS picks, so this file never contends for 1455 with the end-to-end tests.
const config = { ...resolveChatgptOAuthConfig({ env: {} }), callbackPorts: [0] };
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const STATE = 'state-canary-abcdefghijklmnopqrstuvwxyz012';
const ATTEMPT = 'attempt-canary-abcdefghijklmnopqrstuvw';

function authorizationUrl(redirectUri: string, change: (url: URL) => void = () => undefined): string {
  const url = new URL(config.authorizationEndpoint);
  const params: [string, string][] = [
    ['response_type', 'code'],
    ['client_id', config.clientId],
    ['redirect_uri', redirectUri],
    ['scope', config.scope],
    ['code_challenge', CHALLENGE],
    ['code_challenge_method', 'S256'],
    ['id_token_add_organizations', 'true'],
    ['codex_cli_simplified_flow', 'true'],
    ['originator', 'bastion'],
    ['state', STATE],
  ];
  for (const [name, value] of params) url.searchParams.append(name, value);
  change(url);
  return url.href;
}

interface Scripted {
  coordinator: ChatgptCoordinator;
  calls: { method: string; path: string; body: unknown; listenerUp?: string }[];
  opened: string[];
  records: LogRecord[];
}

const coordinators: ChatgptCoordinator[] = [];
afterEach(async () => {
  await Promise.all(coordinators.splice(0).map((coordinator) => coordinator.close()));
});

function scripted(urlFor: (redirectUri: string) => string): Scripted {
  const calls: Scripted['calls'] = [];
  const opened: string[] = [];
  const records: LogRecord[] = [];
  const coordinator = new ChatgptCoordinator({
    config,
    log: createLogger('host', (record) => records.push(record)),
    open: (url) => {
      opened.push(url);
      return Promise.resolve(true);
    },
    daemon: async (method, path, body) => {
      const call: Scripted['calls'][number] = { method, path, body };
      calls.push(call);
      if (path === '/auth/chatgpt/start') {
        const redirect = (body as { redirect_uri: string }).redirect_uri;
        call.listenerUp = await connectionOutcome(Number(new URL(redirect).port));
        return { status: 200, body: { attempt_id: ATTEMPT, authorization_url: urlFor(redirect) } };
      }
      if (path === '/auth/chatgpt/status') return { status: 200, body: { state: 'signed-out' } };
      return { status: 200, body: { state: 'signed-out' } };
    },
  });
  coordinators.push(coordinator);
  return { coordinator, calls, opened, records };
}

describe('ChatGPT coordinator', () => {
  it('opens the listener before asking the daemon, then hands the checked URL to the browser', async () => {
    const { coordinator, calls, opened } = scripted((redirect) => authorizationUrl(redirect));
    expect(await coordinator.connect()).toEqual({ state: 'connecting' });
    expect(calls[0]?.path).toBe('/auth/chatgpt/start');
    // The listener answered (with a refusal page) while the daemon was being asked.
    expect(calls[0]?.listenerUp).toBe('answered');
    expect(opened).toHaveLength(1);
    expect(await coordinator.connect()).toEqual({ state: 'connecting' });
    expect(calls.filter((call) => call.path === '/auth/chatgpt/start')).toHaveLength(1);
  });

  it.each([
    ['a lookalike origin', (url: URL) => (url.host = 'auth.openai.com.evil.test')],
    ['an extra parameter', (url: URL) => url.searchParams.append('prompt', 'none')],
    ['a missing challenge', (url: URL) => url.searchParams.delete('code_challenge')],
    ['the plain method', (url: URL) => url.searchParams.set('code_challenge_method', 'plain')],
    ['a wrong redirect', (url: URL) => url.searchParams.set('redirect_uri', 'http://localhost:1457/auth/callback')],
  ])('refuses %s: no browser, listener closed, daemon attempt cancelled', async (_name, change) => {
    let redirect = '';
    const { coordinator, calls, opened, records } = scripted((uri) => {
      redirect = uri;
      return authorizationUrl(uri, change);
    });
    expect(await coordinator.connect()).toEqual({ state: 'error', code: 'OAUTH_AUTHORIZATION_URL' });
    expect(opened).toEqual([]);
    expect(await connectionOutcome(Number(new URL(redirect).port))).toBe('ECONNREFUSED');
    expect(
      calls.some(
        (call) => call.path === '/auth/chatgpt/cancel' && (call.body as { attempt_id: string }).attempt_id === ATTEMPT,
      ),
    ).toBe(true);
    expect(await coordinator.status()).toEqual({ state: 'error', code: 'OAUTH_AUTHORIZATION_URL' });
    const logged = JSON.stringify(records);
    expect(logged).not.toContain(STATE);
    expect(logged).not.toContain(ATTEMPT);
    expect(logged).not.toContain('evil');
  });

  it('a daemon refusal of start closes the listener and reports its code only', async () => {
    const calls: string[] = [];
    let port = 0;
    const coordinator = new ChatgptCoordinator({
      config,
      log: createLogger('host', () => undefined),
      open: () => Promise.reject(new Error('must not open')),
      daemon: (_method, path, body) => {
        calls.push(path);
        if (path === '/auth/chatgpt/start')
          port = Number(new URL((body as { redirect_uri: string }).redirect_uri).port);
        return Promise.resolve({ status: 503, body: { code: 'OAUTH_UNAVAILABLE', message: 'upstream said <script>' } });
      },
    });
    coordinators.push(coordinator);
    expect(await coordinator.connect()).toEqual({ state: 'error', code: 'OAUTH_UNAVAILABLE' });
    expect(await connectionOutcome(port)).toBe('ECONNREFUSED');
  });

  it('an attempt nobody completes times out: listener closed, daemon attempt cancelled, status OAUTH_TIMEOUT', async () => {
    const calls: { path: string; body: unknown }[] = [];
    let port = 0;
    const coordinator = new ChatgptCoordinator({
      config,
      log: createLogger('host', () => undefined),
      open: () => Promise.resolve(true),
      timeoutMs: 50,
      daemon: (_method, path, body) => {
        calls.push({ path, body });
        if (path === '/auth/chatgpt/start') {
          const redirect = (body as { redirect_uri: string }).redirect_uri;
          port = Number(new URL(redirect).port);
          return Promise.resolve({
            status: 200,
            body: { attempt_id: ATTEMPT, authorization_url: authorizationUrl(redirect) },
          });
        }
        return Promise.resolve({ status: 200, body: { state: 'signed-out' } });
      },
    });
    coordinators.push(coordinator);
    expect(await coordinator.connect()).toEqual({ state: 'connecting' });
    expect(await coordinator.settled()).toEqual({ state: 'error', code: 'OAUTH_TIMEOUT' });
    expect(await connectionOutcome(port)).toBe('ECONNREFUSED');
    expect(calls).toContainEqual({ path: '/auth/chatgpt/cancel', body: { attempt_id: ATTEMPT } });
  });

  it('status never passes through fields beyond the safe schema', async () => {
    const coordinator = new ChatgptCoordinator({
      config,
      log: createLogger('host', () => undefined),
      open: () => Promise.resolve(true),
      daemon: () =>
        Promise.resolve({ status: 200, body: { state: 'connected', email: 'a@b.test', access: 'access-CANARY' } }),
    });
    expect(await coordinator.status()).toEqual({ state: 'error', code: 'OAUTH_UNAVAILABLE' });
  });
});
