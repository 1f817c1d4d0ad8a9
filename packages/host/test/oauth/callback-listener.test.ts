/**
 * SEC-008 loopback callback, attack by attack, against a real listener on both loopbacks. Every
 * refusal proves the attempt was not consumed (the claim handler never ran and a valid callback
 * still completes afterwards) or the listener is gone (connection refused).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { createLogger, type LogRecord } from '@bastion/protocol';
import { waitFor } from '@bastion/test-support';
import { CallbackListener, isLoopbackPeer, type CallbackClaim } from '../../src/oauth/callback-listener.js';
import { callbackRequest, connectionOutcome } from './callback-client.js';

const STATE = 'S'.repeat(20) + 'tate-canary-0123456789ab';
const CODE = 'code-canary-7f3a9c';

interface Harness {
  listener: CallbackListener;
  claims: CallbackClaim[];
  records: LogRecord[];
  /** Release the pending claim handler with this outcome. */
  release: (completed: boolean) => void;
}

const open: CallbackListener[] = [];

async function startListener(
  options: { timeoutMs?: number; arm?: boolean; holdClaim?: boolean } = {},
): Promise<Harness> {
  const records: LogRecord[] = [];
  const claims: CallbackClaim[] = [];
  let release: (completed: boolean) => void = () => undefined;
  const listener = await CallbackListener.open({
    ports: [0],
    log: createLogger('host', (record) => records.push(record)),
    timeoutMs: options.timeoutMs,
    onClaim: (claim) => {
      claims.push(claim);
      if (!options.holdClaim) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => (release = resolve));
    },
  });
  open.push(listener);
  if (options.arm !== false) listener.arm(STATE);
  return { listener, claims, records, release: (completed) => release(completed) };
}

const valid = `/auth/callback?code=${CODE}&state=${STATE}&scope=openid`;

afterEach(async () => {
  await Promise.all(open.splice(0).map((listener) => listener.cancel()));
});

describe('callback listener: the legitimate callback', () => {
  it('accepts the valid callback over IPv4, claims once and closes', async () => {
    const { listener, claims } = await startListener();
    const response = await callbackRequest({ port: listener.port, target: valid });
    expect(response.status).toBe(200);
    expect(response.body).toContain('connected');
    expect(claims).toEqual([{ kind: 'code', code: CODE, state: STATE }]);
    expect(await listener.ended).toBe('completed');
    expect(await connectionOutcome(listener.port)).toBe('ECONNREFUSED');
    expect(await connectionOutcome(listener.port, '::1')).toBe('ECONNREFUSED');
  });

  it('accepts the valid callback over IPv6 loopback', async () => {
    const { listener, claims } = await startListener();
    const response = await callbackRequest({ port: listener.port, address: '::1', target: valid });
    expect(response.status).toBe(200);
    expect(claims).toHaveLength(1);
    expect(await listener.ended).toBe('completed');
  });

  it('answers with a fixed page under a strict CSP', async () => {
    const { listener } = await startListener();
    const response = await callbackRequest({ port: listener.port, target: valid });
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).not.toContain(CODE);
    expect(response.body).not.toContain(STATE);
  });

  it('isLoopbackPeer accepts only loopback addresses', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackPeer(address)).toBe(true);
    for (const address of [undefined, '10.0.0.1', '::ffff:10.0.0.1', '192.168.1.2', 'fe80::1', '::', '0.0.0.0']) {
      expect(isLoopbackPeer(address)).toBe(false);
    }
  });
});

describeAttack('oauth-callback', 'ChatGPT loopback callback listener', () => {
  it('wrong state: 400, and the attempt still completes afterwards', async () => {
    const { listener, claims } = await startListener();
    const wrong = await callbackRequest({
      port: listener.port,
      target: `/auth/callback?code=evil&state=${'x'.repeat(44)}`,
    });
    expect(wrong.status).toBe(400);
    expect(claims).toHaveLength(0);
    expect(listener.open).toBe(true);
    const right = await callbackRequest({ port: listener.port, target: valid });
    expect(right.status).toBe(200);
    expect(claims).toEqual([{ kind: 'code', code: CODE, state: STATE }]);
  });

  it('missing state: 400, attempt untouched', async () => {
    const { listener, claims, records } = await startListener();
    const response = await callbackRequest({ port: listener.port, target: `/auth/callback?code=${CODE}` });
    expect(response.status).toBe(400);
    expect(claims).toHaveLength(0);
    expect(listener.open).toBe(true);
    expect(records.some((record) => record.fields.code === 'CALLBACK_STATE')).toBe(true);
  });

  it('a callback before the attempt is armed is refused as a state mismatch', async () => {
    const { listener, claims } = await startListener({ arm: false });
    expect((await callbackRequest({ port: listener.port, target: valid })).status).toBe(400);
    expect(claims).toHaveLength(0);
  });

  it('replay after success: 409 while the exchange runs, connection refused once closed', async () => {
    const { listener, claims, release } = await startListener({ holdClaim: true });
    const first = callbackRequest({ port: listener.port, target: valid });
    await waitFor(() => claims.length > 0, 5_000, 'the callback to be claimed');
    const replay = await callbackRequest({ port: listener.port, target: valid });
    expect(replay.status).toBe(409);
    release(true);
    expect((await first).status).toBe(200);
    expect(await listener.ended).toBe('completed');
    expect(await connectionOutcome(listener.port)).toBe('ECONNREFUSED');
    expect(claims).toHaveLength(1);
  });

  it('concurrent valid callbacks: exactly one claims', async () => {
    const { listener, claims } = await startListener();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        callbackRequest({ port: listener.port, target: valid }).then(
          (r) => r.status,
          () => 0,
        ),
      ),
    );
    expect(answers.filter((status) => status === 200)).toHaveLength(1);
    expect(claims).toHaveLength(1);
  });

  it.each([
    ['127.0.0.1:<port>', (port: number) => `127.0.0.1:${port}`],
    ['evil.test', () => 'evil.test'],
    ['localhost without port', () => 'localhost'],
    ['localhost on another port', (port: number) => `localhost:${port + 1}`],
    ['LOCALHOST:<port>', (port: number) => `LOCALHOST:${port}`],
  ])('wrong Host %s: 400, attempt untouched', async (_name, host) => {
    const { listener, claims } = await startListener();
    const response = await callbackRequest({ port: listener.port, target: valid, host: host(listener.port) });
    expect(response.status).toBe(400);
    expect(claims).toHaveLength(0);
    expect((await callbackRequest({ port: listener.port, target: valid })).status).toBe(200);
  });

  it('POST: 405, attempt untouched', async () => {
    const { listener, claims } = await startListener();
    const response = await callbackRequest({ port: listener.port, target: valid, method: 'POST' });
    expect(response.status).toBe(405);
    expect(claims).toHaveLength(0);
    expect(listener.open).toBe(true);
  });

  it('HEAD and OPTIONS: 405', async () => {
    const { listener, claims } = await startListener();
    expect((await callbackRequest({ port: listener.port, target: valid, method: 'HEAD' })).status).toBe(405);
    expect((await callbackRequest({ port: listener.port, target: valid, method: 'OPTIONS' })).status).toBe(405);
    expect(claims).toHaveLength(0);
  });

  it('a GET with a body: 400', async () => {
    const { listener, claims } = await startListener();
    const response = await callbackRequest({
      port: listener.port,
      target: valid,
      headers: { 'content-length': '4', 'content-type': 'text/plain' },
      body: 'abcd',
    });
    expect(response.status).toBe(400);
    expect(claims).toHaveLength(0);
  });

  it.each(['/auth/callback/', '/AUTH/callback', '/auth/%63allback', '/auth//callback', '/x/../auth/callback', '/'])(
    'path %s: 404',
    async (path) => {
      const { listener, claims } = await startListener();
      const response = await callbackRequest({ port: listener.port, target: `${path}?code=${CODE}&state=${STATE}` });
      expect(response.status).toBe(404);
      expect(claims).toHaveLength(0);
    },
  );

  it('over-long target: 414, attempt untouched', async () => {
    const { listener, claims } = await startListener();
    const response = await callbackRequest({ port: listener.port, target: `${valid}&pad=${'a'.repeat(9 * 1024)}` });
    expect(response.status).toBe(414);
    expect(claims).toHaveLength(0);
    expect(listener.open).toBe(true);
  });

  it('13 parameters: 400; 12 are accepted', async () => {
    const { listener, claims } = await startListener();
    const extra = (n: number) => Array.from({ length: n }, (_v, i) => `p${i}=1`).join('&');
    const thirteen = await callbackRequest({ port: listener.port, target: `${valid}&${extra(10)}` });
    expect(thirteen.status).toBe(400);
    expect(claims).toHaveLength(0);
    const twelve = await callbackRequest({ port: listener.port, target: `${valid}&${extra(9)}` });
    expect(twelve.status).toBe(200);
  });

  it.each([
    ['state', `/auth/callback?code=${CODE}&state=${STATE}&state=${STATE}`],
    ['code', `/auth/callback?code=${CODE}&code=other&state=${STATE}`],
    ['error', `/auth/callback?error=a&error=b&state=${STATE}`],
  ])('duplicate %s: 400, attempt untouched', async (_name, target) => {
    const { listener, claims } = await startListener();
    expect((await callbackRequest({ port: listener.port, target })).status).toBe(400);
    expect(claims).toHaveLength(0);
    expect(listener.open).toBe(true);
  });

  it('error=<script> is not reflected, with or without the right state', async () => {
    const { listener, claims } = await startListener();
    const payload = encodeURIComponent('<script>alert(1)</script>');
    const unstated = await callbackRequest({
      port: listener.port,
      target: `/auth/callback?error=${payload}&error_description=${payload}`,
    });
    expect(unstated.status).toBe(400);
    expect(unstated.body).not.toMatch(/script|alert/);
    expect(listener.open).toBe(true);
    const stated = await callbackRequest({
      port: listener.port,
      target: `/auth/callback?error=${payload}&error_description=${payload}&state=${STATE}`,
    });
    expect(stated.status).toBe(200);
    expect(stated.body).not.toMatch(/script|alert/);
    expect(stated.headers['content-security-policy']).toContain("default-src 'none'");
    // With the real state the authorization server's refusal ends the attempt, without a claim handler run.
    expect(await listener.ended).toBe('denied');
    expect(claims).toHaveLength(0);
  });

  it('cancel: the listener closes on both loopbacks', async () => {
    const { listener, claims } = await startListener();
    expect(await listener.cancel()).toBe('cancelled');
    expect(await connectionOutcome(listener.port)).toBe('ECONNREFUSED');
    expect(await connectionOutcome(listener.port, '::1')).toBe('ECONNREFUSED');
    expect(claims).toHaveLength(0);
  });

  it('cancel during the exchange wins: the attempt ends cancelled', async () => {
    const { listener, claims, release } = await startListener({ holdClaim: true });
    const pending = callbackRequest({ port: listener.port, target: valid }).catch(() => undefined);
    await waitFor(() => claims.length > 0, 5_000, 'the callback to be claimed');
    expect(await listener.cancel()).toBe('cancelled');
    release(true);
    await pending;
    expect(await listener.ended).toBe('cancelled');
  });

  it('timeout: the attempt ends and the listener closes', async () => {
    const { listener, claims } = await startListener({ timeoutMs: 50 });
    expect(await listener.ended).toBe('timeout');
    expect(await connectionOutcome(listener.port)).toBe('ECONNREFUSED');
    expect(claims).toHaveLength(0);
  });

  it('logs carry neither the code nor the state', async () => {
    const { listener, records } = await startListener();
    await callbackRequest({ port: listener.port, target: `/auth/callback?code=${CODE}&state=wrong${STATE}` });
    await callbackRequest({ port: listener.port, target: valid });
    await listener.ended;
    const text = JSON.stringify(records);
    expect(text).not.toContain(CODE);
    expect(text).not.toContain(STATE);
  });
});
