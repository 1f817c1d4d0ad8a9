/**
 * Fault injection on both listeners of the real host: the daemon's (host socket → transferred to
 * the sidecar's socketless server) and the UI server's. Many hostile connections at once —
 * slow-loris, one huge header, thousands of headers — are each cut (408 or 431, then closed by the
 * server), while legitimate requests made during the attack are all served. How fast they are
 * served under attack is a benchmark figure (bench/faults.bench.ts), not a test assertion.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DAEMON_HEADERS_TIMEOUT_MS, UI_HEADERS_TIMEOUT_MS } from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { rawRequest } from '../support/raw-request.js';
import { EXPECTED_CUT, openAttack, type ListenerAttack } from '../support/listener-attacks.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const CONNECTIONS = 32;
const LEGITIMATE_REQUESTS = 10;

let host: TempHost;

beforeAll(async () => {
  host = await startTempHost();
}, 60_000);

afterAll(async () => {
  await host?.stop();
});

interface Listener {
  port: () => number;
  headersTimeoutMs: number;
  /** One legitimate request; resolves with its status. */
  legitimate: () => Promise<number>;
  servedStatus: number;
}

const LISTENERS: Record<'daemon' | 'UI', Listener> = {
  daemon: {
    port: () => host.socketHost.port,
    headersTimeoutMs: DAEMON_HEADERS_TIMEOUT_MS,
    legitimate: async () => (await host.client.request('POST', '/handshake')).status,
    servedStatus: 200,
  },
  UI: {
    port: () => host.ui.port,
    headersTimeoutMs: UI_HEADERS_TIMEOUT_MS,
    legitimate: async () =>
      (
        await rawRequest({
          port: host.ui.port,
          method: 'GET',
          path: '/',
          headers: { host: `127.0.0.1:${host.ui.port}` },
        })
      ).status,
    servedStatus: 303,
  },
};

async function underAttack(listener: Listener, kind: ListenerAttack): Promise<void> {
  // Generous bound: an attack connection still open after it is left open, and the test fails.
  const giveUpMs = listener.headersTimeoutMs * 3;
  const attacks = Array.from({ length: CONNECTIONS }, () => openAttack(kind, listener.port(), { giveUpMs }));
  const statuses: number[] = [];
  for (let i = 0; i < LEGITIMATE_REQUESTS; i++) statuses.push(await listener.legitimate());
  const outcomes = await Promise.all(attacks.map((attack) => attack.outcome));
  // Served while every attack connection was still open or being cut.
  expect(statuses).toEqual(Array.from({ length: LEGITIMATE_REQUESTS }, () => listener.servedStatus));
  expect(outcomes).toEqual(
    Array.from({ length: CONNECTIONS }, () => ({ closedByServer: true, firstLine: EXPECTED_CUT[kind] })),
  );
  // And after the attack, the listener still serves.
  expect(await listener.legitimate()).toBe(listener.servedStatus);
}

for (const [name, listener] of Object.entries(LISTENERS)) {
  describeAttack('resource-exhaustion', `${name} listener floods (real host)`, () => {
    it(`${CONNECTIONS} header-flood connections with one 64 KiB header each get 431 and are closed; legitimate requests are served`, async () => {
      await underAttack(listener, 'huge-header');
    });

    it(`${CONNECTIONS} header-flood connections with 4 096 headers each get 431 and are closed; legitimate requests are served`, async () => {
      await underAttack(listener, 'many-headers');
    });

    it(`${CONNECTIONS} slow-loris connections trickling headers get 408 and are closed; legitimate requests are served`, async () => {
      await underAttack(listener, 'slow-loris');
    }, 60_000);
  });
}
