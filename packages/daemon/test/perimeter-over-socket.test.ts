/**
 * The daemon app's perimeter served from Node, as the sidecar serves it (createDaemonApp behind
 * @hono/node-server's listener on a real loopback socket, raw request bytes): the guards read
 * Node's raw header list and set the answer's headers on Node's response. Same answers as through
 * the Fetch API (src/http/app.test.ts), and a repeated header — which Node's own `headers` object
 * would reduce to its first value — is refused.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDaemonApp } from '../src/http/app.js';
import { UI_ORIGIN } from './support/perimeter-kit.js';

const PASSWORD = 'p4ssw0rd-for-the-socket-test-0123456789';

describe('createDaemonApp perimeter over a real socket', () => {
  let server: Server;
  let port: number;
  let calls = 0;

  beforeAll(async () => {
    const routing: { listener?: ReturnType<typeof getRequestListener> } = {};
    server = createServer((req, res) => void routing.listener?.(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const app = createDaemonApp({ port, allowedOrigins: [UI_ORIGIN], password: PASSWORD }, [
      (a) => {
        a.post('/probe', (c) => {
          calls += 1;
          return c.json({ ok: true });
        });
      },
    ]);
    routing.listener = getRequestListener(app.fetch);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** Header lines exactly as given, repeats included; the answer's status, lower-cased headers and code. */
  function send(lines: [string, string][]) {
    return new Promise<{ status: number; headers: Map<string, string>; code: string | undefined }>(
      (resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        const head = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('');
        socket.end(`POST /probe HTTP/1.1\r\n${head}content-length: 0\r\nconnection: close\r\n\r\n`);
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const [top = '', body = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
          const [status = '', ...fields] = top.split('\r\n');
          const headers = new Map(
            fields.map((field) => [
              field.slice(0, field.indexOf(':')).toLowerCase(),
              field.slice(field.indexOf(':') + 1).trim(),
            ]),
          );
          const code = body.includes('"code"') ? (JSON.parse(body) as { code: string }).code : undefined;
          resolve({ status: Number(status.split(' ')[1]), headers, code });
        });
      },
    );
  }

  const goodLines = (): [string, string][] => [
    ['Host', `127.0.0.1:${port}`],
    ['Origin', UI_ORIGIN],
    ['Referer', `${UI_ORIGIN}/desktop/`],
    ['Authorization', `Basic ${Buffer.from(`bastion:${PASSWORD}`).toString('base64')}`],
  ];

  it('serves a request that passes every guard, its answer carrying the CORS headers for its origin', async () => {
    const before = calls;
    const answer = await send(goodLines());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(answer.headers.get('vary')).toBe('Origin');
    expect(calls).toBe(before + 1);
  });

  it('refuses a wrong password with 401, WWW-Authenticate and the CORS headers (the page can read why), before the handler', async () => {
    const before = calls;
    const lines = goodLines();
    lines[3] = ['Authorization', `Basic ${Buffer.from('bastion:wrong').toString('base64')}`];
    const answer = await send(lines);
    expect(answer).toMatchObject({ status: 401, code: 'PERIMETER_AUTH' });
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm="bastion"/);
    expect(answer.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
    expect(calls).toBe(before);
  });

  const repeats: [string, number, string, string][] = [
    ['Host', 0, 'evil.test', 'PERIMETER_HOST'],
    ['Origin', 1, 'https://evil.test', 'PERIMETER_ORIGIN'],
    ['Referer', 2, 'https://evil.test/desktop/', 'PERIMETER_REFERER'],
    ['Authorization', 3, `Basic ${Buffer.from('bastion:wrong').toString('base64')}`, 'PERIMETER_AUTH'],
  ];
  for (const [name, at, second, refusal] of repeats) {
    it(`refuses a second ${name} header after a good one with ${refusal}, before the handler`, async () => {
      const before = calls;
      const lines = goodLines();
      lines.splice(at + 1, 0, [name, second]);
      const answer = await send(lines);
      expect(answer.code).toBe(refusal);
      expect(calls).toBe(before);
    });
  }

  it('reads header names whatever their case', async () => {
    const before = calls;
    const answer = await send(goodLines().map(([name, value]) => [name.toUpperCase(), value]));
    expect(answer.status).toBe(200);
    expect(calls).toBe(before + 1);
  });

  it('answers a preflight from the UI origin with 204 and the CORS headers, before any route', async () => {
    const before = calls;
    const answer = await new Promise<number>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.end(
        `OPTIONS /probe HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: ${UI_ORIGIN}\r\nconnection: close\r\n\r\n`,
      );
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        expect(text.toLowerCase()).toContain('access-control-allow-methods: get, post, patch, delete');
        expect(text.toLowerCase()).toContain(`access-control-allow-origin: ${UI_ORIGIN}`);
        resolve(Number(text.split(' ')[1]));
      });
    });
    expect(answer).toBe(204);
    expect(calls).toBe(before);
  });
});
