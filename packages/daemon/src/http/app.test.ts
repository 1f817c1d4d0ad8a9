import { describe, expect, it } from 'vitest';
import { createDaemonApp } from './app.js';
import { TEST_PORT, UI_ORIGIN } from '../../test/support/perimeter-kit.js';

const PASSWORD = 'p4ssw0rd-for-the-app-test-0123456789';
const good = {
  host: `127.0.0.1:${TEST_PORT}`,
  origin: UI_ORIGIN,
  referer: `${UI_ORIGIN}/desktop/`,
  authorization: `Basic ${Buffer.from(`bastion:${PASSWORD}`).toString('base64')}`,
};

function makeApp() {
  let calls = 0;
  const app = createDaemonApp({ port: TEST_PORT, allowedOrigins: [UI_ORIGIN], password: PASSWORD }, [
    (a) => {
      a.post('/probe', (c) => {
        calls += 1;
        return c.json({ ok: true });
      });
    },
  ]);
  return { app, reached: () => calls };
}

async function code(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code;
}

describe('createDaemonApp perimeter', () => {
  it('serves a request that passes every guard', async () => {
    const { app, reached } = makeApp();
    const response = await app.request('/probe', { method: 'POST', headers: good });
    expect(response.status).toBe(200);
    expect(reached()).toBe(1);
  });

  it('runs the guards in order Host → Origin → Referer → Auth', async () => {
    const { app, reached } = makeApp();
    const allBad = {
      host: 'evil.test',
      origin: 'https://evil.test',
      referer: 'https://evil.test/',
      authorization: 'Basic x',
    };
    expect(await code(await app.request('/probe', { method: 'POST', headers: allBad }))).toBe('PERIMETER_HOST');
    expect(await code(await app.request('/probe', { method: 'POST', headers: { ...allBad, host: good.host } }))).toBe(
      'PERIMETER_ORIGIN',
    );
    expect(
      await code(
        await app.request('/probe', { method: 'POST', headers: { ...allBad, host: good.host, origin: good.origin } }),
      ),
    ).toBe('PERIMETER_REFERER');
    expect(
      await code(await app.request('/probe', { method: 'POST', headers: { ...good, authorization: 'Basic x' } })),
    ).toBe('PERIMETER_AUTH');
    expect(reached()).toBe(0);
  });

  it('guards unknown paths too: no credentials, no 404 oracle', async () => {
    const { app } = makeApp();
    const response = await app.request('/no-such-route', { method: 'POST', headers: { ...good, authorization: '' } });
    expect(response.status).toBe(401);
    const authed = await app.request('/no-such-route', { method: 'POST', headers: good });
    expect(authed.status).toBe(404);
    expect(await code(authed)).toBe('ROUTE_NOT_FOUND');
  });

  it('refuses an authenticated body over the limit with 413 before the handler', async () => {
    const { app, reached } = makeApp();
    const response = await app.request('/probe', {
      method: 'POST',
      headers: { ...good, 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) },
      body: 'x'.repeat(2 * 1024 * 1024),
    });
    expect(response.status).toBe(413);
    expect(reached()).toBe(0);
  });
});

describe('request body bounds', () => {
  it('refuses a chunked body that declares no length with 411, before the handler', async () => {
    const { app, reached } = makeApp();
    const response = await app.request('/probe', {
      method: 'POST',
      headers: { ...good, 'transfer-encoding': 'chunked' },
    });
    expect(response.status).toBe(411);
    expect(await code(response)).toBe('BODY_LENGTH_REQUIRED');
    expect(reached()).toBe(0);
  });

  it('refuses a malformed Content-Length with 400, before the handler', async () => {
    const { app, reached } = makeApp();
    const response = await app.request('/probe', { method: 'POST', headers: { ...good, 'content-length': '-1' } });
    expect(response.status).toBe(400);
    expect(reached()).toBe(0);
  });
});
