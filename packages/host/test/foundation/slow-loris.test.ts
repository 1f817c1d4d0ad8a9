import { describe, expect, it } from 'vitest';
import { DAEMON_HEADERS_TIMEOUT_MS } from '@bastion/protocol';
import { EXPECTED_CUT, openAttack } from '../support/listener-attacks.js';
import { closedAfterEachTest } from '../../../../test/support/per-test.js';
import { startTempHost } from '../support/temp-host.js';

const startHost = closedAfterEachTest(startTempHost, (host) => host.stop());

describe('daemon slow-loris defence (real daemon behind the socket host)', () => {
  it('cuts a connection that trickles header bytes, and keeps serving others meanwhile', async () => {
    const host = await startHost();
    const port = host.socketHost.port;
    // Generous bound: fails only if the daemon never enforces a headers deadline.
    const attack = openAttack('slow-loris', port, { giveUpMs: DAEMON_HEADERS_TIMEOUT_MS * 3 });
    expect((await host.client.request('POST', '/handshake')).status).toBe(200);
    expect(await attack.outcome).toEqual({ closedByServer: true, firstLine: EXPECTED_CUT['slow-loris'] });
  }, 60_000);
});
