import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../../test/support/attack.js';
import { originGuard } from './origin-guard.js';
import { appBehind, codeOf, UI_ORIGIN } from '../../../test/support/perimeter-kit.js';

const guard = () => originGuard({ allowedOrigins: [UI_ORIGIN], cors: true });

describeAttack('cross-origin', 'daemon Origin (originGuard)', () => {
  const refusedOrigins: [string, string | undefined][] = [
    ['a missing Origin', undefined],
    ['the opaque origin "null"', 'null'],
    ['a foreign site', 'https://evil.test'],
    ['the right host on another port', 'http://127.0.0.1:1'],
    ['https instead of http', UI_ORIGIN.replace('http:', 'https:')],
    ['localhost instead of the IP literal', UI_ORIGIN.replace('127.0.0.1', 'localhost')],
    ['a prefix match with a suffix appended', `${UI_ORIGIN}.evil.test`],
    ['a trailing slash', `${UI_ORIGIN}/`],
    ['uppercase scheme', UI_ORIGIN.replace('http', 'HTTP')],
    ['a path after the origin', `${UI_ORIGIN}/desktop`],
    ['a list of two origins', `${UI_ORIGIN} https://evil.test`],
  ];
  for (const [name, origin] of refusedOrigins) {
    it(`refuses ${name} with PERIMETER_ORIGIN and never reaches the handler`, async () => {
      const { app, reached } = appBehind(guard());
      const response = await app.request('/x', { method: 'POST', headers: origin === undefined ? {} : { origin } });
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe('PERIMETER_ORIGIN');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(reached()).toBe(0);
    });
  }

  it('refuses a preflight from a foreign origin without CORS headers', async () => {
    const { app, reached } = appBehind(guard());
    const response = await app.request('/x', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(reached()).toBe(0);
  });

  it('answers a preflight from the allowlisted origin with that exact origin, never *, no credentials', async () => {
    const { app, reached } = appBehind(guard());
    const response = await app.request('/x', {
      method: 'OPTIONS',
      headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(reached()).toBe(0);
  });
});

describe('origin-guard lets the legitimate caller through', () => {
  it('passes the exact allowlisted origin and labels the response for it', async () => {
    const { app, reached } = appBehind(guard());
    const response = await app.request('/x', { method: 'POST', headers: { origin: UI_ORIGIN } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(response.headers.get('vary')).toContain('Origin');
    expect(reached()).toBe(1);
  });
});
