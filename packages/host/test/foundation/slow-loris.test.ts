import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_HEADERS_TIMEOUT_MS } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe('daemon slow-loris defence (real daemon behind the socket host)', () => {
  it('cuts a connection that trickles header bytes, and keeps serving others meanwhile', async () => {
    host = await startTempHost();
    const port = host.socketHost.port;
    const outcome = await new Promise<{ closed: boolean; firstLine: string }>((resolve) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`POST /handshake HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`),
      );
      const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 500);
      let firstLine = '';
      socket.on('data', (data: Buffer) => {
        firstLine ||= data.toString('latin1').split('\r\n')[0] ?? '';
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(trickle);
        clearTimeout(giveUp);
        resolve({ closed: true, firstLine });
      });
      // Generous bound: fails only if the daemon never enforces a headers deadline.
      const giveUp = setTimeout(() => {
        clearInterval(trickle);
        socket.destroy();
        resolve({ closed: false, firstLine });
      }, DAEMON_HEADERS_TIMEOUT_MS * 3);
      void host?.client.request('POST', '/handshake').then((r) => expect(r.status).toBe(200));
    });
    expect(outcome.closed).toBe(true);
    expect(outcome.firstLine).toBe('HTTP/1.1 408 Request Timeout');
  }, 60_000);
});
