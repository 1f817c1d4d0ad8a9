/**
 * Test support for the provider transport: the host's executor and grant sync on one end of a
 * real framed channel (a pair of in-process pipes, the same codec as stdin/stdout), and on the other
 * end either the daemon's real transport fetch or a raw frame recorder playing a compromised
 * sidecar. Plus loopback HTTP(S) servers that count (or forbid) their hits.
 */
import { execFileSync, spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  type ChannelError,
  createLogger,
  FramedChannel,
  hostToSidecarFrameSchema,
  sidecarToHostFrameSchema,
  type HostToSidecarFrame,
  type LogRecord,
  type SidecarToHostFrame,
} from '@bastion/protocol';
import { createHostConfirmer } from '../../src/consent/host-confirmer.js';
import { GrantSync } from '../../src/network/grant-sync.js';
import { NetworkAuthority } from '../../src/network/network-authority.js';
import { ProviderExecutor } from '../../src/network/provider-executor.js';
import { EgressGuard } from '../../src/network/egress-guard.js';
import { makeTempDir, startServer, type TestServer } from '@bastion/test-support';

import { createSystemRoute, type SystemRoute } from '../../src/network/system-route.js';
import { sidecarArgv } from '../../src/supervisor/sidecar-launcher.js';
import type { SidecarChannel } from '../../src/supervisor/sidecar-supervisor.js';
import { ProviderTransport, type HostChannel } from '@bastion/daemon/testing';

/** The guard the harness's host end checks with, for a benchmark that passes its own (same class as the harness's). */
export { EgressGuard };

/**
 * Answer with a `total`-byte octet-stream body, written in 256 KiB blocks as fast as the socket
 * drains; `onSent` sees the running count after each block is queued.
 */
export function writeBytes(res: ServerResponse, total: number, onSent: (sent: number) => void = () => undefined): void {
  const block = Buffer.alloc(256 * 1024, 0x62);
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(total) });
  let sent = 0;
  const pump = (): void => {
    while (sent < total) {
      const size = Math.min(block.byteLength, total - sent);
      sent += size;
      onSent(sent);
      if (!res.write(size === block.byteLength ? block : block.subarray(0, size))) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

/** A server whose handler must never run: reaching it fails the test that owns it. */
export async function startForbiddenServer(): Promise<TestServer> {
  return startServer((_req, res) => {
    res.statusCode = 418;
    res.end('reached');
  });
}

/** A self-signed certificate for 127.0.0.1 (openssl, in a temp dir removed at once). */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bastion-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface PairBase {
  authority: NetworkAuthority;
  executor: ProviderExecutor;
  sync: GrantSync;
  records: LogRecord[];
  /** Resolves with the error that closed the host's end of the channel. */
  hostClosed: Promise<ChannelError | undefined>;
  ackTimeouts: number;
  /** Consent to and grant a custom endpoint (the test plays `--allow-endpoint`). */
  grant(url: string): Promise<string>;
  close(): void;
}

function hostEnd(options: { route?: SystemRoute; maxResponseBytes?: number; egress?: EgressGuard | null }) {
  const toHost = new PassThrough();
  const toSidecar = new PassThrough();
  const records: LogRecord[] = [];
  const log = createLogger('host', (record) => records.push(record));
  let closeResolve: (error: ChannelError | undefined) => void = () => undefined;
  const hostClosed = new Promise<ChannelError | undefined>((resolve) => (closeResolve = resolve));
  const channel: SidecarChannel = new FramedChannel({
    source: toHost,
    sink: toSidecar,
    inbound: sidecarToHostFrameSchema,
    outbound: hostToSidecarFrameSchema,
    onClose: (error) => closeResolve(error),
  });
  const authority = new NetworkAuthority({ builtins: [], env: {} });
  const route = options.route ?? createSystemRoute();
  // A guard of the harness's own is closed with the pair; a caller's is the caller's to close.
  const ownGuard = options.egress === undefined ? new EgressGuard({ userData: makeTempDir('bastion-egress-') }) : null;
  const executor = new ProviderExecutor({
    channel,
    authority,
    route,
    log,
    egress: ownGuard ?? options.egress ?? null,
    ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
  });
  const state = { ackTimeouts: 0 };
  const sync = new GrantSync({ channel, authority, log, onAckTimeout: () => (state.ackTimeouts += 1) });
  void hostClosed.then(() => {
    sync.close();
    executor.close();
    ownGuard?.close();
  });
  return {
    toHost,
    toSidecar,
    base: {
      authority,
      executor,
      sync,
      records,
      hostClosed,
      get ackTimeouts() {
        return state.ackTimeouts;
      },
      async grant(url: string) {
        const result = await authority.requestCustomGrant(
          url,
          createHostConfirmer({ allowedEndpoints: [new URL(url).origin] }),
        );
        if (!result.ok) throw new Error(`grant refused: ${result.code}`);
        return result.grant.grant_id;
      },
      close() {
        sync.close();
        executor.close();
        ownGuard?.close();
        toHost.end();
        toSidecar.end();
      },
    } satisfies PairBase,
  };
}

export interface FetchPair extends PairBase {
  transport: ProviderTransport;
  /** Waits until the sidecar has applied the host's current snapshot. */
  synced(): Promise<void>;
}

/** Host executor ↔ the daemon's real transport fetch. */
export function startFetchPair(
  options: { route?: SystemRoute; maxResponseBytes?: number; egress?: EgressGuard | null } = {},
): FetchPair {
  const { toHost, toSidecar, base } = hostEnd(options);
  const sidecarChannel: HostChannel = new FramedChannel({
    source: toSidecar,
    sink: toHost,
    inbound: hostToSidecarFrameSchema,
    outbound: sidecarToHostFrameSchema,
    onClose: () => undefined,
  });
  const transport = new ProviderTransport(sidecarChannel);
  base.sync.start();
  const pair: FetchPair = Object.assign(base, {
    transport,
    async synced() {
      while (transport.revision < base.authority.snapshot.revision)
        await new Promise((resolve) => setTimeout(resolve, 2));
    },
  });
  return pair;
}

/** A promise with its resolve function outside (Node 20 has no Promise.withResolvers). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

export interface RawPair extends PairBase {
  /** Every frame the host sent, in order. */
  frames: HostToSidecarFrame[];
  /** The host's bytes toward the sidecar: pause it to play a sidecar that has stopped reading. */
  hostOutput: PassThrough;
  send(frame: SidecarToHostFrame): void;
  /** Write a length-prefixed JSON payload without the outbound schema check (oversize frames). */
  sendUnchecked(frame: object): void;
  /** Write any payload behind a length prefix. */
  sendPayload(payload: Buffer): void;
  /** Resolves with the first host frame for this request id that matches. */
  next(requestId: string, type: HostToSidecarFrame['type']): Promise<HostToSidecarFrame>;
}

/** Host executor ↔ a raw frame writer (a compromised or buggy sidecar). */
export function startRawPair(
  options: { route?: SystemRoute; maxResponseBytes?: number; egress?: EgressGuard | null } = {},
): RawPair {
  const { toHost, toSidecar, base } = hostEnd(options);
  const frames: HostToSidecarFrame[] = [];
  const waiters: { id: string; type: string; resolve: (frame: HostToSidecarFrame) => void }[] = [];
  const raw = new FramedChannel({
    source: toSidecar,
    sink: toHost,
    inbound: hostToSidecarFrameSchema,
    outbound: sidecarToHostFrameSchema,
    onClose: () => undefined,
  });
  const record = (frame: HostToSidecarFrame) => {
    frames.push(frame);
    const id = 'request_id' in frame ? frame.request_id : '';
    for (const waiter of [...waiters]) {
      if (waiter.id === id && waiter.type === frame.type) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      }
    }
  };
  const sendPayload = (payload: Buffer) => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(payload.byteLength, 0);
    toHost.write(Buffer.concat([header, payload]));
  };
  for (const type of [
    'grant.update',
    'request.credit',
    'response.start',
    'response.chunk',
    'response.end',
    'response.error',
  ] as const) {
    raw.on(type, record);
  }
  return Object.assign(base, {
    frames,
    hostOutput: toSidecar,
    send: (frame: SidecarToHostFrame) => raw.send(frame),
    sendUnchecked: (frame: object) => sendPayload(Buffer.from(JSON.stringify(frame), 'utf8')),
    sendPayload,
    next: (id: string, type: HostToSidecarFrame['type']) =>
      new Promise<HostToSidecarFrame>((resolve) => {
        const found = frames.find((frame) => 'request_id' in frame && frame.request_id === id && frame.type === type);
        if (found) resolve(found);
        else waiters.push({ id, type, resolve });
      }),
  });
}

/** The stable code a transported fetch failed with. */
export async function failureCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause;
    return typeof cause?.code === 'string' ? cause.code : `not-a-transport-error: ${String(error)}`;
  }
  return 'resolved';
}

/**
 * Run `script` as a real second process whose stdio is the sidecar's channel (see
 * fixtures/stdio-transport.mjs), behind the host's real executor with `origin` granted. Resolves
 * when it exits, with its exit code and the last line it wrote to stderr, parsed as JSON. With
 * `control`, the child also gets an IPC channel (fd 3), and `control` is called with it once spawned.
 */
export async function runTransportChild(
  script: string,
  args: string[],
  origin: string,
  options: {
    maxResponseBytes?: number;
    egress?: EgressGuard | null;
    /** A certificate the route trusts (a loopback HTTPS server's). */
    ca?: string;
    control?: (child: ChildProcess) => void;
  } = {},
): Promise<{ code: number | null; report: unknown }> {
  const { control, ca, ...executorOptions } = options;
  // Without a guard of the caller's, one over an empty userData: secret formats only.
  const emptyUserData = mkdtempSync(join(tmpdir(), 'bastion-egress-'));
  const authority = new NetworkAuthority({ builtins: [], env: {} });
  const granted = await authority.requestCustomGrant(origin, createHostConfirmer({ allowedEndpoints: [origin] }));
  if (!granted.ok) throw new Error(`the grant for ${origin} was refused: ${granted.code}`);
  // Started like a real sidecar (sidecarArgv), so its heap behaves like one's under a streamed body.
  const [command, ...argv] = sidecarArgv(script);
  // stdin, stdout and stderr are pipes whatever the fourth descriptor is.
  const child = spawn(command, [...argv, ...args], {
    stdio: ['pipe', 'pipe', 'pipe', control ? 'ipc' : 'ignore'],
  }) as ChildProcessWithoutNullStreams;
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const log = createLogger('host', () => undefined);
  const channel: SidecarChannel = new FramedChannel({
    source: child.stdout,
    sink: child.stdin,
    inbound: sidecarToHostFrameSchema,
    outbound: hostToSidecarFrameSchema,
    onClose: () => undefined,
  });
  const route = createSystemRoute(ca === undefined ? {} : { ca });
  const ownGuard = new EgressGuard({ userData: emptyUserData });
  const executor = new ProviderExecutor({
    channel,
    authority,
    route,
    log,
    egress: ownGuard,
    ...executorOptions,
  });
  const sync = new GrantSync({ channel, authority, log, onAckTimeout: () => undefined });
  sync.start();
  control?.(child);
  // 'close', not 'exit': the report is the last line of stderr, which may not all be read at exit.
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  sync.close();
  executor.close();
  ownGuard.close();
  await route.close();
  rmSync(emptyUserData, { recursive: true, force: true });
  const last = stderr.trim().split('\n').at(-1) ?? '';
  if (code !== 0) return { code, report: last };
  return { code, report: JSON.parse(last) as unknown };
}
