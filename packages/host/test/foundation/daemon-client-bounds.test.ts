/**
 * The host's daemon client reads what a (compromised) sidecar answers as hostile: a body over
 * DAEMON_RESPONSE_MAX_BYTES is cut off (the response destroyed, not buffered to the end), a success
 * body outside the route's schema and an error body that is not `{ code, message }` are refused.
 * A real loopback server stands in for the daemon.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { DAEMON_RESPONSE_MAX_BYTES, sessionSchema } from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { DaemonClient } from '../../src/daemon-client.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function fakeDaemon(answer: (res: ServerResponse) => void): Promise<DaemonClient> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new DaemonClient({ uiOrigin: 'http://127.0.0.1:1', target: () => Promise.resolve({ port, password: 'p' }) });
}

describeAttack('channel-abuse', 'daemon client answers', () => {
  it('a body over DAEMON_RESPONSE_MAX_BYTES: DAEMON_RESPONSE_TOO_LARGE, and the response is cut before the server finished', async () => {
    const total = DAEMON_RESPONSE_MAX_BYTES + 8 * 1024 * 1024;
    let finished = false;
    const client = await fakeDaemon((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(() => (finished = true));
      };
      res.on('error', () => undefined);
      pump();
    });
    await expect(client.request('POST', '/sessions')).rejects.toMatchObject({ code: 'DAEMON_RESPONSE_TOO_LARGE' });
    expect(finished).toBe(false);
  });

  it('a success body outside the route schema: DAEMON_RESPONSE, no body handed on', async () => {
    const client = await fakeDaemon((res) => {
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: '../../etc', title: 1 }));
    });
    await expect(client.call('POST', '/sessions', {}, sessionSchema)).rejects.toMatchObject({
      code: 'DAEMON_RESPONSE',
    });
  });

  it('an error body that is not { code, message }: reported as DAEMON_RESPONSE with the status, its text not passed on', async () => {
    const client = await fakeDaemon((res) => {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 7, html: '<script>' }));
    });
    expect(await client.call('POST', '/sessions', {}, sessionSchema)).toEqual({
      ok: false,
      status: 500,
      error: { code: 'DAEMON_RESPONSE', message: 'daemon answered 500' },
    });
  });
});
