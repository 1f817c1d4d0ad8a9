/**
 * SEC-004 provider transport, host side, over a real framed channel with real loopback servers.
 * Every refusal is asserted by code AND by the target server's hit counter staying at zero.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  TRANSPORT_GRANT_ACK_TIMEOUT_MS,
  type ChannelErrorCode,
  type FrameOfType,
  type SidecarToHostFrame,
} from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { createSystemRoute } from '../../src/network/system-route.js';
import {
  deferred,
  failureCode,
  selfSignedCertificate,
  startFetchPair,
  startForbiddenServer,
  startRawPair,
  writeBytes,
} from './transport-harness.js';
import { startServer, type TestServer } from '@bastion/test-support';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
function track<T extends { close(): unknown }>(thing: T): T {
  cleanups.push(() => thing.close());
  return thing;
}

type RequestStart = FrameOfType<SidecarToHostFrame, 'request.start'>;

/** A `request.start` for a provider GET without a body, unless `patch` says otherwise. */
function requestStart(
  requestId: string,
  grantId: string,
  url: string,
  patch: Partial<RequestStart> = {},
): RequestStart {
  return {
    v: 1,
    type: 'request.start',
    request_id: requestId,
    grant_id: grantId,
    op: 'provider',
    method: 'GET',
    url,
    headers: [],
    has_body: false,
    ...patch,
  };
}

async function okServer(body = 'ok'): Promise<TestServer> {
  return track(
    await startServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(body));
    }),
  );
}

describe('grants: refused before any connection', () => {
  it('fetch to an origin with no grant fails with TRANSPORT_NO_GRANT and sends nothing', async () => {
    const target = track(await startForbiddenServer());
    const pair = track(startFetchPair());
    await pair.synced();
    expect(await failureCode(pair.transport.fetch(`${target.origin}/v1/models`))).toBe('TRANSPORT_NO_GRANT');
    expect(target.hits).toBe(0);
  });

  it('a granted origin works end to end through the daemon fetch', async () => {
    const target = await okServer('hello');
    const pair = track(startFetchPair());
    await pair.grant(target.origin);
    await pair.synced();
    const response = await pair.transport.fetch(`${target.origin}/v1/models`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello');
    expect(target.hits).toBe(1);
  });

  it('rejects lookalike, non-canonical, wrong-port and wrong-scheme URLs under a real grant (compromised sidecar)', async () => {
    const target = track(await startForbiddenServer());
    const other = track(await startForbiddenServer());
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    const p = target.port;
    const cases: [string, string][] = [
      [`http://localhost.evil.test:${p}/`, 'TRANSPORT_ORIGIN_NOT_GRANTED'],
      [`http://127.0.0.1.nip.io:${p}/`, 'TRANSPORT_ORIGIN_NOT_GRANTED'],
      [`http://127.0.0.1.:${p}/`, 'TRANSPORT_URL_NOT_CANONICAL'],
      [`HTTP://127.0.0.1:${p}/`, 'TRANSPORT_URL_NOT_CANONICAL'],
      [`http://2130706433:${p}/`, 'TRANSPORT_URL_NOT_CANONICAL'],
      [`http://0177.0.0.1:${p}/`, 'TRANSPORT_URL_NOT_CANONICAL'],
      [`http://0x7f000001:${p}/`, 'TRANSPORT_URL_NOT_CANONICAL'],
      [`http://[::ffff:127.0.0.1]:${p}/`, 'TRANSPORT_URL_NOT_CANONICAL'],
      [`http://[::ffff:7f00:1]:${p}/`, 'TRANSPORT_ORIGIN_NOT_GRANTED'],
      [`http://[::1]:${p}/`, 'TRANSPORT_ORIGIN_NOT_GRANTED'],
      [`http://127.0.0.1:${other.port}/`, 'TRANSPORT_ORIGIN_NOT_GRANTED'],
      [`https://127.0.0.1:${p}/`, 'TRANSPORT_ORIGIN_NOT_GRANTED'],
      [`http://user:pw@127.0.0.1:${p}/`, 'TRANSPORT_URL_USERINFO'],
    ];
    for (const [index, [url, code]] of cases.entries()) {
      const id = `lookalike${index}`;
      pair.send(requestStart(id, grantId, url));
      const frame = await pair.next(id, 'response.error');
      expect({ url, code: 'code' in frame ? frame.code : undefined }).toEqual({ url, code });
    }
    // Wrong op, unknown grant, forbidden headers, body on GET: refused the same way.
    const more: [Partial<Parameters<typeof pair.send>[0]>, string][] = [
      [{ op: 'asset' }, 'TRANSPORT_OP_MISMATCH'],
      [{ grant_id: 'nope' }, 'GRANT_UNKNOWN'],
      [{ headers: [['cookie', 'a=b']] }, 'TRANSPORT_HEADER_FORBIDDEN'],
      [{ headers: [['Proxy-Authorization', 'Basic x']] }, 'TRANSPORT_HEADER_FORBIDDEN'],
      [{ headers: [['host', 'evil.test']] }, 'TRANSPORT_HEADER_FORBIDDEN'],
      [{ headers: [['transfer-encoding', 'chunked']] }, 'TRANSPORT_HEADER_FORBIDDEN'],
      [{ method: 'PUT' }, 'TRANSPORT_METHOD'],
      [{ has_body: true }, 'TRANSPORT_BODY_NOT_ALLOWED'],
      [
        { headers: Array.from({ length: 5 }, (_, i) => [`x-big-${i}`, 'a'.repeat(15_000)] as [string, string]) },
        'TRANSPORT_HEADERS_TOO_LARGE',
      ],
    ];
    for (const [index, [patch, code]] of more.entries()) {
      const id = `bad${index}`;
      pair.send({
        v: 1,
        type: 'request.start',
        request_id: id,
        grant_id: grantId,
        op: 'provider',
        method: 'GET',
        url: `${target.origin}/`,
        headers: [],
        has_body: false,
        ...patch,
      } as Parameters<typeof pair.send>[0]);
      const frame = await pair.next(id, 'response.error');
      expect({ index, code: 'code' in frame ? frame.code : undefined }).toEqual({ index, code });
    }
    expect(target.hits).toBe(0);
    expect(other.hits).toBe(0);
  });

  it('asset downloads: http, a non-default port and credential headers are refused', async () => {
    const target = track(await startForbiddenServer());
    const pair = track(startRawPair());
    // An asset grant on loopback cannot be made through consent (it is built-in only); prove the
    // https/default-port rule on a provider-granted origin by asking for the asset op on a built-in.
    const grantId = await pair.grant(target.origin);
    pair.send(requestStart('asset1', grantId, `${target.origin}/x`, { op: 'asset' }));
    expect(await pair.next('asset1', 'response.error')).toMatchObject({ code: 'TRANSPORT_OP_MISMATCH' });
    expect(target.hits).toBe(0);
  });
});

describe('bodies', () => {
  it('a gzip response reaches the sidecar decoded, with its encoding headers removed', async () => {
    const text = 'data: {"delta":"compressed"}\n\n'.repeat(500);
    const target = track(
      await startServer((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(text))),
    );
    const pair = track(startFetchPair());
    await pair.grant(target.origin);
    await pair.synced();
    const response = await pair.transport.fetch(`${target.origin}/`);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(await response.text()).toBe(text);
  });

  it('a streamed upload arrives whole and in order', async () => {
    const received: Buffer[] = [];
    const target = track(
      await startServer((req, res) => {
        req.on('data', (chunk: Buffer) => received.push(chunk));
        req.on('end', () => res.end(`${req.headers['transfer-encoding'] ?? ''}`));
      }),
    );
    const pair = track(startFetchPair());
    await pair.grant(target.origin);
    await pair.synced();
    const pieces = Array.from({ length: 40 }, (_, i) => Buffer.alloc(100_000, i));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = pieces.shift();
        if (next) controller.enqueue(new Uint8Array(next));
        else controller.close();
      },
    });
    const init: RequestInit & { duplex: 'half' } = { method: 'POST', body, duplex: 'half' };
    const response = await pair.transport.fetch(`${target.origin}/`, init);
    expect(await response.text()).toBe('chunked');
    const all = Buffer.concat(received);
    expect(all.byteLength).toBe(4_000_000);
    for (let i = 0; i < 40; i += 1) expect(all[i * 100_000]).toBe(i);
  });
});

describe('redirects', () => {
  it('a same-origin redirect is followed', async () => {
    const target = track(
      await startServer((req, res) => {
        if (req.url === '/start') {
          res.writeHead(302, { location: '/final' }).end();
        } else {
          res.end(`final:${req.headers.authorization ?? ''}`);
        }
      }),
    );
    const pair = track(startFetchPair());
    await pair.grant(target.origin);
    await pair.synced();
    const response = await pair.transport.fetch(`${target.origin}/start`, {
      headers: { authorization: 'Bearer same-origin' },
    });
    expect(await response.text()).toBe('final:Bearer same-origin');
    expect(target.hits).toBe(2);
  });

  describeAttack('credential-redirect', 'provider transport redirects', () => {
    it('a cross-origin redirect while carrying authorization fails closed; the target is never reached', async () => {
      const elsewhere = track(await startForbiddenServer());
      const first = track(
        await startServer((_req, res) => res.writeHead(307, { location: `${elsewhere.origin}/steal` }).end()),
      );
      const pair = track(startFetchPair());
      await pair.grant(first.origin);
      await pair.grant(elsewhere.origin);
      await pair.synced();
      const code = await failureCode(
        pair.transport.fetch(`${first.origin}/`, { headers: { authorization: 'Bearer canary-token' } }),
      );
      expect(code).toBe('TRANSPORT_REDIRECT_CREDENTIALS');
      expect(elsewhere.hits).toBe(0);
      expect(JSON.stringify(pair.records)).not.toContain('canary-token');
    });

    it("with redirect: 'manual' a 302 to another granted origin is relayed, never followed; the target is never reached", async () => {
      const elsewhere = track(await startForbiddenServer());
      const first = track(
        await startServer((_req, res) => res.writeHead(302, { location: `${elsewhere.origin}/token-lookalike` }).end()),
      );
      const pair = track(startFetchPair());
      await pair.grant(first.origin);
      await pair.grant(elsewhere.origin);
      await pair.synced();
      const response = await pair.transport.fetch(`${first.origin}/oauth/token`, {
        method: 'POST',
        body: 'grant_type=authorization_code&code=canary-code',
        redirect: 'manual',
      });
      expect(response.status).toBe(302);
      await response.body?.cancel();
      expect(elsewhere.hits).toBe(0);
    });

    it('a redirect to an ungranted origin is refused', async () => {
      const elsewhere = track(await startForbiddenServer());
      const first = track(
        await startServer((_req, res) => res.writeHead(302, { location: `${elsewhere.origin}/` }).end()),
      );
      const pair = track(startFetchPair());
      await pair.grant(first.origin);
      await pair.synced();
      expect(await failureCode(pair.transport.fetch(`${first.origin}/`))).toBe('TRANSPORT_REDIRECT_NOT_GRANTED');
      expect(elsewhere.hits).toBe(0);
    });

    it('https → http is refused even when both origins are granted', async () => {
      const plain = track(await startForbiddenServer());
      const tls = selfSignedCertificate();
      const secure = track(
        await startServer((_req, res) => res.writeHead(302, { location: `${plain.origin}/` }).end(), tls),
      );
      const pair = track(startFetchPair({ route: createSystemRoute({ ca: tls.cert }) }));
      await pair.grant(secure.origin);
      await pair.grant(plain.origin);
      await pair.synced();
      expect(await failureCode(pair.transport.fetch(`${secure.origin}/`))).toBe('TRANSPORT_REDIRECT_DOWNGRADE');
      expect(secure.hits).toBe(1);
      expect(plain.hits).toBe(0);
    });

    it('more than five hops are refused', async () => {
      const loop = track(
        await startServer((req, res) => {
          const n = Number((req.url ?? '/0').slice(1));
          res.writeHead(302, { location: `/${n + 1}` }).end();
        }),
      );
      const pair = track(startFetchPair());
      await pair.grant(loop.origin);
      await pair.synced();
      expect(await failureCode(pair.transport.fetch(`${loop.origin}/0`))).toBe('TRANSPORT_TOO_MANY_REDIRECTS');
      // The first request plus five followed hops; the sixth Location is never requested.
      expect(loop.hits).toBe(6);
    });
  });
});

describe('revocation and grant updates', () => {
  it('a request under a grant revoked before execution is refused and never reaches the server', async () => {
    const target = track(await startForbiddenServer());
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    pair.authority.revokeCustomGrant(target.origin);
    pair.send(requestStart('late', grantId, `${target.origin}/`));
    expect(await pair.next('late', 'response.error')).toMatchObject({ code: 'GRANT_UNKNOWN' });
    expect(target.hits).toBe(0);
  });

  it('revoking mid-upload aborts the request; the server never receives the rest of the body', async () => {
    let received = 0;
    let completed = false;
    const firstBytes = deferred();
    const closed = deferred();
    const target = track(
      await startServer((req, res) => {
        req.on('data', (chunk: Buffer) => {
          received += chunk.byteLength;
          firstBytes.resolve();
        });
        req.on('end', () => {
          completed = true;
          res.end('done');
        });
        req.on('close', () => closed.resolve());
      }),
    );
    const pair = track(startFetchPair());
    await pair.grant(target.origin);
    await pair.synced();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= 8) {
          await new Promise((resolve) => setTimeout(resolve, 60_000));
          return;
        }
        sent += 1;
        controller.enqueue(new Uint8Array(1024).fill(65));
      },
    });
    // `duplex` is required for a stream body but missing from some RequestInit typings.
    const init: RequestInit & { duplex: 'half' } = { method: 'POST', body, duplex: 'half' };
    const fetching = pair.transport.fetch(`${target.origin}/upload`, init);
    const outcome = failureCode(fetching);
    await firstBytes.promise;
    expect(pair.authority.revokeCustomGrant(target.origin)).toBe(true);
    expect(await outcome).toBe('GRANT_REVOKED');
    await closed.promise;
    expect(completed).toBe(false);
    expect(received).toBeLessThanOrEqual(8 * 1024);
    expect(pair.executor.inFlight).toBe(0);
  });

  it('revoking mid-download errors the body with GRANT_REVOKED and closes the upstream connection', async () => {
    const closed = deferred();
    const target = track(
      await startServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        req.on('close', () => closed.resolve());
      }),
    );
    const pair = track(startFetchPair());
    await pair.grant(target.origin);
    await pair.synced();
    const response = await pair.transport.fetch(`${target.origin}/stream`);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    pair.authority.revokeCustomGrant(target.origin);
    expect(await failureCode(reader.read())).toBe('GRANT_REVOKED');
    await closed.promise;
    expect(pair.executor.inFlight).toBe(0);
  });

  it('an unacknowledged grant update triggers the ack timeout once its bound has passed, not before', () => {
    const pair = track(startRawPair());
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      pair.sync.start();
      const update = pair.frames.find((frame) => frame.type === 'grant.update');
      expect(update).toBeDefined();
      vi.advanceTimersByTime(TRANSPORT_GRANT_ACK_TIMEOUT_MS - 1);
      expect(pair.ackTimeouts).toBe(0);
      vi.advanceTimersByTime(1);
      expect(pair.ackTimeouts).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('an acknowledged update does not time out; an ack for a revision never sent closes the channel', async () => {
    const pair = track(startRawPair());
    pair.sync.start();
    const revision = pair.authority.snapshot.revision;
    pair.send({ v: 1, type: 'grant.applied', revision });
    pair.send({ v: 1, type: 'grant.applied', revision: revision + 7 });
    expect((await pair.hostClosed)?.code).toBe('CHANNEL_GRANT_REVISION');
    expect(pair.ackTimeouts).toBe(0);
  });
});

describeAttack('channel-abuse', 'provider transport frames from a compromised sidecar', () => {
  /**
   * Runs `send` against a real upstream, expects the host to close the channel with `code`, waits
   * for every upstream request to finish, and returns the body each one received, in order.
   */
  async function expectClosed(
    send: (pair: ReturnType<typeof startRawPair>, grantId: string, origin: string) => Promise<void> | void,
    code: ChannelErrorCode,
  ): Promise<Buffer[]> {
    const bodies: Buffer[][] = [];
    const settled: Promise<unknown>[] = [];
    const target = track(
      await startServer((req, res) => {
        const chunks: Buffer[] = [];
        bodies.push(chunks);
        settled.push(new Promise((resolve) => req.on('close', resolve)));
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => res.end('ok'));
      }),
    );
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    await send(pair, grantId, target.origin);
    expect((await pair.hostClosed)?.code).toBe(code);
    await Promise.all(settled);
    return bodies.map((chunks) => Buffer.concat(chunks));
  }

  it('a frame for an unknown request id closes with CHANNEL_UNKNOWN_REQUEST and reaches no upstream', async () => {
    const upstream = await expectClosed(
      (pair) => pair.send({ v: 1, type: 'request.chunk', request_id: 'never-started', data: Buffer.from([0, 0, 0]) }),
      'CHANNEL_UNKNOWN_REQUEST',
    );
    expect(upstream).toEqual([]);
  });

  it('a chunk after request.end closes with CHANNEL_FRAME_OUT_OF_ORDER; upstream gets only the bytes before the end', async () => {
    const upstream = await expectClosed(async (pair, grantId, origin) => {
      pair.send(requestStart('r1', grantId, `${origin}/`, { method: 'POST', has_body: true }));
      await pair.next('r1', 'request.credit');
      pair.send({ v: 1, type: 'request.chunk', request_id: 'r1', data: Buffer.from([1, 1, 1]) });
      pair.send({ v: 1, type: 'request.end', request_id: 'r1' });
      pair.send({ v: 1, type: 'request.chunk', request_id: 'r1', data: Buffer.from([9, 9, 9]) });
    }, 'CHANNEL_FRAME_OUT_OF_ORDER');
    expect(upstream.every((body) => !body.includes(9))).toBe(true);
    expect(upstream.every((body) => body.byteLength <= 3)).toBe(true);
  });

  it('upload bytes beyond the granted credit close with CHANNEL_CREDIT_EXCEEDED; the chunk over the credit never reaches upstream', async () => {
    let allowed = 0;
    const window = 64 * 1024;
    const upstream = await expectClosed(async (pair, grantId, origin) => {
      pair.send(requestStart('r2', grantId, `${origin}/`, { method: 'POST', has_body: true }));
      const credit = await pair.next('r2', 'request.credit');
      allowed = 'bytes' in credit ? credit.bytes : 0;
      // Chunks inside the credit carry 1s; the one that crosses it carries 9s.
      for (let sent = 0; sent <= allowed; sent += window) {
        const over = sent + window > allowed;
        pair.send({ v: 1, type: 'request.chunk', request_id: 'r2', data: Buffer.alloc(window, over ? 9 : 1) });
      }
    }, 'CHANNEL_CREDIT_EXCEEDED');
    expect(allowed).toBeGreaterThan(0);
    expect(upstream.every((body) => !body.includes(9))).toBe(true);
    expect(upstream.every((body) => body.byteLength <= allowed)).toBe(true);
  });

  it('an oversized body chunk, a JSON body chunk, an oversized URL or header value close with CHANNEL_FRAME_SCHEMA and reach no upstream', async () => {
    const oversized: ((pair: ReturnType<typeof startRawPair>, grantId: string, origin: string) => void)[] = [
      // A binary body frame one byte over the chunk bound (kind 1 = request.chunk, id "x").
      (pair) =>
        pair.sendPayload(Buffer.concat([Buffer.from([0, 1, 1]), Buffer.from('x'), Buffer.alloc(64 * 1024 + 1)])),
      // A body chunk smuggled as JSON instead of the binary kind.
      (pair) => pair.sendUnchecked({ v: 1, type: 'request.chunk', request_id: 'x', data_b64: 'AAAA' }),
      (pair, grantId, origin) => pair.sendUnchecked(requestStart('u', grantId, `${origin}/${'a'.repeat(33 * 1024)}`)),
      (pair, grantId, origin) =>
        pair.sendUnchecked({ ...requestStart('h', grantId, `${origin}/`), headers: [['x-a', 'a'.repeat(17 * 1024)]] }),
    ];
    for (const send of oversized) expect(await expectClosed(send, 'CHANNEL_FRAME_SCHEMA')).toEqual([]);
  });

  it('reusing a request id closes with CHANNEL_REQUEST_ID_REUSED; upstream sees the first request only', async () => {
    const upstream = await expectClosed(async (pair, grantId, origin) => {
      pair.send(requestStart('dup', grantId, `${origin}/`));
      await pair.next('dup', 'response.start');
      pair.send({ v: 1, type: 'response.credit', request_id: 'dup', bytes: 1024 });
      await pair.next('dup', 'response.end');
      pair.send(requestStart('dup', grantId, `${origin}/`));
    }, 'CHANNEL_REQUEST_ID_REUSED');
    expect(upstream).toHaveLength(1);
  });
});

describe('bounds', () => {
  it('an upload over 32 MiB is cut with TRANSPORT_BODY_TOO_LARGE', async () => {
    let received = 0;
    const target = track(await startServer((req) => req.on('data', (chunk: Buffer) => (received += chunk.byteLength))));
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    pair.send(requestStart('big', grantId, `${target.origin}/`, { method: 'POST', has_body: true }));
    const chunk = Buffer.alloc(64 * 1024, 1);
    let granted = 0;
    let sent = 0;
    while (!pair.frames.some((frame) => frame.type === 'response.error')) {
      granted = pair.frames
        .filter((frame) => frame.type === 'request.credit')
        .reduce((sum, frame) => sum + ('bytes' in frame ? frame.bytes : 0), 0);
      if (sent < granted) {
        pair.send({ v: 1, type: 'request.chunk', request_id: 'big', data: chunk });
        sent += 64 * 1024;
      } else {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    expect(await pair.next('big', 'response.error')).toMatchObject({ code: 'TRANSPORT_BODY_TOO_LARGE' });
    expect(received).toBeLessThanOrEqual(32 * 1024 * 1024);
  });

  it('a response over the bound is cut with TRANSPORT_RESPONSE_TOO_LARGE', async () => {
    const target = track(await startServer((_req, res) => res.end(Buffer.alloc(3 * 1024 * 1024))));
    const pair = track(startFetchPair({ maxResponseBytes: 1024 * 1024 }));
    await pair.grant(target.origin);
    await pair.synced();
    const response = await pair.transport.fetch(`${target.origin}/`);
    expect(await failureCode(response.arrayBuffer())).toBe('TRANSPORT_RESPONSE_TOO_LARGE');
  });

  it('the host never sends more response bytes than the sidecar granted', async () => {
    const target = track(await startServer((_req, res) => res.end(Buffer.alloc(512 * 1024, 7))));
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    pair.send(requestStart('c', grantId, `${target.origin}/`));
    await pair.next('c', 'response.start');
    pair.send({ v: 1, type: 'response.credit', request_id: 'c', bytes: 1000 });
    const bytes = () =>
      pair.frames
        .filter((frame) => frame.type === 'response.chunk')
        .reduce((sum, frame) => sum + ('data' in frame ? frame.data.byteLength : 0), 0);
    await expect.poll(bytes).toBe(1000);
    // and no byte past the credit, however long the sidecar waits
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bytes()).toBe(1000);
    pair.send({ v: 1, type: 'response.credit', request_id: 'c', bytes: 1024 * 1024 });
    await pair.next('c', 'response.end');
    expect(bytes()).toBe(512 * 1024);
  });

  it('a sidecar that stops reading holds the response body at the channel buffer, whatever credit it granted; the body resumes whole', async () => {
    const total = 8 * 1024 * 1024;
    const target = track(await startServer((_req, res) => writeBytes(res, total)));
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    pair.send(requestStart('d', grantId, `${target.origin}/`));
    await pair.next('d', 'response.start');
    pair.hostOutput.pause();
    pair.send({ v: 1, type: 'response.credit', request_id: 'd', bytes: 16 * 1024 * 1024 });
    await expect.poll(() => pair.hostOutput.writableLength).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Credit for the whole body, yet the host stopped once the channel's buffer was full: what waits
    // there is about a chunk past its high-water mark, not the 8 MiB the credit would allow.
    expect(pair.hostOutput.writableLength).toBeGreaterThan(0);
    expect(pair.hostOutput.writableLength).toBeLessThanOrEqual(4 * CHANNEL_MAX_BODY_CHUNK_BYTES);
    pair.hostOutput.resume();
    await pair.next('d', 'response.end');
    const received = pair.frames
      .filter((frame) => frame.type === 'response.chunk')
      .reduce((sum, frame) => sum + ('data' in frame ? frame.data.byteLength : 0), 0);
    expect(received).toBe(total);
  });

  it('twelve bodies waiting on one full channel share its drain: no listener warning, and each arrives whole', async () => {
    const total = 1024 * 1024;
    const target = track(await startServer((_req, res) => writeBytes(res, total)));
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const ids = Array.from({ length: 12 }, (_, index) => `w${index}`);
      for (const id of ids) pair.send(requestStart(id, grantId, `${target.origin}/`));
      await Promise.all(ids.map((id) => pair.next(id, 'response.start')));
      // The sidecar stops reading, then grants each body all it needs: every body fills the
      // channel's buffer and waits for its drain at once.
      pair.hostOutput.pause();
      for (const id of ids) pair.send({ v: 1, type: 'response.credit', request_id: id, bytes: total });
      await new Promise((resolve) => setTimeout(resolve, 200));
      pair.hostOutput.resume();
      await Promise.all(ids.map((id) => pair.next(id, 'response.end')));
      for (const id of ids) {
        const received = pair.frames
          .filter((frame) => frame.type === 'response.chunk' && frame.request_id === id)
          .reduce((sum, frame) => sum + ('data' in frame ? frame.data.byteLength : 0), 0);
        expect(received).toBe(total);
      }
      expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a body that ends upstream while its last bytes wait for credit is still sent whole before response.end', async () => {
    const target = track(await startServer((_req, res) => res.end('{"short":"body"}')));
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    pair.send(requestStart('e', grantId, `${target.origin}/`));
    const mine = () => pair.frames.filter((frame) => 'request_id' in frame && frame.request_id === 'e');
    await pair.next('e', 'response.start');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mine().map((frame) => frame.type)).toEqual(['response.start']);
    pair.send({ v: 1, type: 'response.credit', request_id: 'e', bytes: 4 });
    pair.send({ v: 1, type: 'response.credit', request_id: 'e', bytes: 1024 });
    await pair.next('e', 'response.end');
    const chunks = mine().flatMap((frame) => (frame.type === 'response.chunk' ? [frame.data] : []));
    expect(Buffer.concat(chunks).toString()).toBe('{"short":"body"}');
    expect(mine().at(-1)?.type).toBe('response.end');
  });

  it('more than 32 concurrent requests are refused with TRANSPORT_TOO_MANY_REQUESTS', async () => {
    const target = track(await startServer(() => undefined));
    const pair = track(startRawPair());
    const grantId = await pair.grant(target.origin);
    for (let i = 0; i < 33; i += 1) {
      pair.send(requestStart(`q${i}`, grantId, `${target.origin}/`));
    }
    expect(await pair.next('q32', 'response.error')).toMatchObject({ code: 'TRANSPORT_TOO_MANY_REQUESTS' });
    expect(pair.executor.inFlight).toBe(32);
  });
});

describe('abort', () => {
  it('an AbortSignal becomes request.abort and ends the upstream request', async () => {
    const closed = deferred();
    const target = track(
      await startServer((req, res) => {
        res.writeHead(200);
        res.write('first');
        req.on('close', () => closed.resolve());
      }),
    );
    const pair = track(startFetchPair());
    await pair.grant(target.origin);
    await pair.synced();
    const controller = new AbortController();
    const response = await pair.transport.fetch(`${target.origin}/`, { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first');
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await closed.promise;
    await expect.poll(() => pair.executor.inFlight).toBe(0);
  });
});
