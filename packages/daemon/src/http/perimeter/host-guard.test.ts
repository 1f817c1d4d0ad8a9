import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../../test/support/attack.js';
import { hostGuard } from './host-guard.js';
import { appBehind, codeOf, TEST_PORT } from '../../../test/support/perimeter-kit.js';

describeAttack('dns-rebinding', 'daemon Host header (hostGuard)', () => {
  const refusedHosts: [string, string | undefined][] = [
    ['a rebound DNS name on the right port', `evil.test:${TEST_PORT}`],
    ['localhost instead of the IP literal', `localhost:${TEST_PORT}`],
    ['the right address with the wrong port', `127.0.0.1:${TEST_PORT + 1}`],
    ['the address without a port', '127.0.0.1'],
    ['another loopback address', `127.0.0.2:${TEST_PORT}`],
    ['the IPv6 loopback', `[::1]:${TEST_PORT}`],
    ['a trailing dot', `127.0.0.1.:${TEST_PORT}`],
    ['a suffix after the port', `127.0.0.1:${TEST_PORT}.evil.test`],
    ['a decimal IPv4 form', `2130706433:${TEST_PORT}`],
    ['userinfo before the host', `a@127.0.0.1:${TEST_PORT}`],
    ['an empty Host', ''],
  ];
  for (const [name, host] of refusedHosts) {
    it(`refuses ${name} with PERIMETER_HOST and never reaches the handler`, async () => {
      const { app, reached } = appBehind(hostGuard({ port: TEST_PORT }));
      const response = await app.request('/x', { headers: host === undefined ? {} : { host } });
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe('PERIMETER_HOST');
      expect(reached()).toBe(0);
    });
  }

  it('does not echo the offending Host in the refusal', async () => {
    const { app } = appBehind(hostGuard({ port: TEST_PORT }));
    const response = await app.request('/x', { headers: { host: 'canary-host-91c2.test' } });
    expect(await response.text()).not.toContain('canary-host-91c2');
  });
});

describe('host-guard lets the legitimate caller through', () => {
  it('passes exactly 127.0.0.1:<port>', async () => {
    const { app, reached } = appBehind(hostGuard({ port: TEST_PORT }));
    const response = await app.request('/x', { headers: { host: `127.0.0.1:${TEST_PORT}` } });
    expect(response.status).toBe(200);
    expect(reached()).toBe(1);
  });
});
