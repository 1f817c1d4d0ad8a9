/**
 * SEC-004: the host end of the provider transport. It takes `request.*` frames from one sidecar,
 * authorises each against the network authority's current snapshot (request-policy), performs it
 * with undici through the system route (EnvHttpProxyAgent: HTTP(S)_PROXY / NO_PROXY), follows
 * redirects by hand with every hop re-authorised, and streams `response.*` frames back no faster
 * than the sidecar's credit. Uploads flow under `request.credit` from this side; every upload
 * chunk is re-checked against the current snapshot before it is written; revoking a grant aborts
 * the requests under it. Credentials pass through in flight only: they are never logged or stored.
 *
 * The secret-egress guard (egress-guard.ts) scans the URL and the headers before any connection
 * (and before each redirect hop, under the hop's grant) and every upload chunk before it is
 * written; a hit ends the request with EGRESS_SECRET and its kind, and nothing of the body from
 * the secret on has left (the scan holds a chunk back until the chunks after it have been scanned
 * with its tail).
 *
 * Frames that break the protocol (an unknown id, a chunk after `request.end`, more bytes than the
 * credit) throw a ChannelError, which closes the channel and gets the sidecar restarted. Does not
 * catch: a compromised sidecar sending data to an origin it was granted.
 */
import { pipeline, Readable } from 'node:stream';
import {
  createBrotliDecompress,
  createGunzip,
  createInflate,
  type Gunzip,
  type Inflate,
  type BrotliDecompress,
} from 'node:zlib';
import type { Dispatcher } from 'undici';
import {
  ChannelError,
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  TRANSPORT_BODY_IDLE_TIMEOUT_MS,
  TRANSPORT_HEADERS_TIMEOUT_MS,
  TRANSPORT_MAX_CONCURRENT_REQUESTS,
  TRANSPORT_MAX_ENDED_IDS,
  TRANSPORT_MAX_HEADER_BYTES_TOTAL,
  TRANSPORT_MAX_HEADER_VALUE_BYTES,
  TRANSPORT_MAX_HEADERS,
  TRANSPORT_MAX_REQUEST_BODY_BYTES,
  TRANSPORT_MAX_RESPONSE_BODY_BYTES,
  TRANSPORT_UPLOAD_WINDOW_BYTES,
  type FrameOfType,
  type Grant,
  type Logger,
  type SidecarToHostFrame,
  type TransportErrorCode,
  type TransportOp,
} from '@bastion/protocol';
import type { SidecarChannel } from '../supervisor/sidecar-supervisor.js';
import type { NetworkAuthority } from './network-authority.js';
import { authorizeRedirect, authorizeStart } from './request-policy.js';
import { secretInHead, type EgressGuard } from './egress-guard.js';
import type { SecretPattern, SecretStream } from './secret-scanner.js';
import type { SystemRoute } from './system-route.js';

type Frame<T extends SidecarToHostFrame['type']> = FrameOfType<SidecarToHostFrame, T>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Response headers that never cross to the sidecar: there is no cookie jar, and hop-by-hop headers are ours. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'set-cookie',
  'set-cookie2',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

interface HostRequest {
  readonly id: string;
  readonly op: TransportOp;
  readonly abort: AbortController;
  readonly startedAt: number;
  /** Grants this request has used (the first hop's and any redirect's); revoking one aborts it. */
  readonly grantIds: Set<string>;
  /** False when the sidecar asked for `redirect: 'manual'`: a 3xx is relayed, never followed. */
  readonly followRedirects: boolean;
  /** Present while the sidecar may still send body chunks. */
  upload: Readable | undefined;
  /** The body's secret scan (absent only when the executor runs without a guard, in the benchmark's baseline). */
  readonly scan: SecretStream | undefined;
  uploadReceived: number;
  uploadGranted: number;
  responseStarted: boolean;
  responseCredit: number;
  wakeSender: (() => void) | undefined;
  finished: boolean;
}

export interface ProviderExecutorOptions {
  channel: SidecarChannel;
  authority: NetworkAuthority;
  route: SystemRoute;
  log: Logger;
  /** Largest response body; defaults to TRANSPORT_MAX_RESPONSE_BODY_BYTES. */
  maxResponseBytes?: number;
  /** The secret-egress guard; `null` (no scan) exists for the benchmark's guard-off baseline only. */
  egress: EgressGuard | null;
}

export class ProviderExecutor {
  readonly #channel: SidecarChannel;
  readonly #authority: NetworkAuthority;
  readonly #route: SystemRoute;
  readonly #log: Logger;
  readonly #maxResponseBytes: number;
  readonly #egress: EgressGuard | null;
  readonly #live = new Map<string, HostRequest>();
  /** Ids this side ended: the sidecar's frames already in flight for them are dropped. */
  readonly #endedHere = new Set<string>();
  readonly #detachAuthority: () => void;
  #closed = false;

  constructor(options: ProviderExecutorOptions) {
    this.#channel = options.channel;
    this.#authority = options.authority;
    this.#route = options.route;
    this.#log = options.log;
    this.#maxResponseBytes = options.maxResponseBytes ?? TRANSPORT_MAX_RESPONSE_BODY_BYTES;
    this.#egress = options.egress;
    this.#channel.on('request.start', (frame) => this.#onStart(frame));
    this.#channel.on('request.chunk', (frame) => this.#onChunk(frame));
    this.#channel.on('request.end', (frame) => this.#onEnd(frame));
    this.#channel.on('request.abort', (frame) => this.#onAbort(frame));
    this.#channel.on('response.credit', (frame) => this.#onCredit(frame));
    this.#detachAuthority = this.#authority.onChange(({ revoked }) => {
      if (revoked.length === 0) return;
      for (const request of [...this.#live.values()]) {
        if (revoked.some((grantId) => request.grantIds.has(grantId))) this.#terminate(request, 'GRANT_REVOKED');
      }
    });
  }

  /** Requests in flight (for tests and status). */
  get inFlight(): number {
    return this.#live.size;
  }

  /** The sidecar is gone: abort everything, send nothing. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#detachAuthority();
    for (const request of this.#live.values()) {
      request.finished = true;
      request.abort.abort();
      request.upload?.destroy();
      request.wakeSender?.();
    }
    this.#live.clear();
  }

  /** Send unless the channel is gone; false when the channel's buffer is full (or it is gone). */
  #send(frame: Parameters<SidecarChannel['send']>[0]): boolean {
    if (this.#closed || this.#channel.closed) return false;
    return this.#channel.send(frame);
  }

  #rememberEnded(id: string): void {
    this.#endedHere.add(id);
    if (this.#endedHere.size > TRANSPORT_MAX_ENDED_IDS) {
      const oldest = this.#endedHere.values().next().value;
      if (oldest !== undefined) this.#endedHere.delete(oldest);
    }
  }

  /**
   * The egress guard's say on what a request sends before its body, to `url` under `grant`: the
   * compiled scan for its body (none without a guard), or why it may not go (a secret found is
   * logged by its kind).
   */
  #guardHead(
    id: string,
    grant: Grant,
    url: URL,
    headers: readonly (readonly [string, string])[],
  ): { ok: true; pattern: SecretPattern | undefined } | { ok: false; code: TransportErrorCode; kind?: string } {
    if (!this.#egress) return { ok: true, pattern: undefined };
    const guard = this.#egress.scanFor(grant);
    if (!guard.ok) return { ok: false, code: guard.code };
    const kind = secretInHead(guard.pattern, url, headers);
    if (kind === undefined) return { ok: true, pattern: guard.pattern };
    this.#log.warn('egress.blocked', { request_id: id, grant_id: grant.grant_id, kind });
    return { ok: false, code: 'EGRESS_SECRET', kind };
  }

  /** Refuse a request that never became live. */
  #refuse(id: string, code: TransportErrorCode, kind?: string): void {
    this.#rememberEnded(id);
    this.#log.warn('transport.refused', { request_id: id, code, kind: kind ?? null });
    this.#send({ v: 1, type: 'response.error', request_id: id, code, ...(kind === undefined ? {} : { kind }) });
  }

  /** End a live request from this side with an error code. */
  #terminate(request: HostRequest, code: TransportErrorCode, kind?: string): void {
    if (request.finished) return;
    request.finished = true;
    this.#live.delete(request.id);
    this.#rememberEnded(request.id);
    request.abort.abort();
    request.upload?.destroy();
    request.wakeSender?.();
    this.#log.warn('transport.failed', {
      request_id: request.id,
      code,
      kind: kind ?? null,
      duration_ms: Date.now() - request.startedAt,
    });
    this.#send({ v: 1, type: 'response.error', request_id: request.id, code, ...(kind === undefined ? {} : { kind }) });
  }

  #complete(request: HostRequest, bytes: number, status: number): void {
    if (request.finished) return;
    request.finished = true;
    this.#live.delete(request.id);
    this.#rememberEnded(request.id);
    this.#send({ v: 1, type: 'response.end', request_id: request.id });
    this.#log.info('transport.completed', {
      request_id: request.id,
      status,
      bytes,
      duration_ms: Date.now() - request.startedAt,
    });
  }

  /** The live request a sidecar frame names; undefined (drop) when this side already ended it. */
  #lookup(id: string): HostRequest | undefined {
    const request = this.#live.get(id);
    if (request) return request;
    if (this.#endedHere.has(id)) return undefined;
    throw new ChannelError('CHANNEL_UNKNOWN_REQUEST', 'transport frame for an unknown request id');
  }

  #onStart(frame: Frame<'request.start'>): void {
    if (this.#live.has(frame.request_id) || this.#endedHere.has(frame.request_id)) {
      throw new ChannelError('CHANNEL_REQUEST_ID_REUSED', 'request.start reuses a request id');
    }
    if (this.#live.size >= TRANSPORT_MAX_CONCURRENT_REQUESTS) {
      this.#refuse(frame.request_id, 'TRANSPORT_TOO_MANY_REQUESTS');
      return;
    }
    const decision = authorizeStart(frame, this.#authority.snapshot);
    if (!decision.ok) {
      this.#refuse(frame.request_id, decision.code);
      return;
    }
    const head = this.#guardHead(frame.request_id, decision.grant, decision.url, decision.headers);
    if (!head.ok) {
      this.#refuse(frame.request_id, head.code, head.kind);
      return;
    }
    const scan = head.pattern?.stream();
    const request: HostRequest = {
      id: frame.request_id,
      op: frame.op,
      abort: new AbortController(),
      startedAt: Date.now(),
      grantIds: new Set([decision.grant.grant_id]),
      followRedirects: frame.redirect !== 'manual',
      upload: undefined,
      scan,
      uploadReceived: 0,
      uploadGranted: 0,
      responseStarted: false,
      responseCredit: 0,
      wakeSender: undefined,
      finished: false,
    };
    this.#live.set(request.id, request);
    if (frame.has_body) {
      request.upload = new Readable({ read: () => this.#grantUpload(request) });
      // undici reports upload failures through the request; the stream error itself needs no handler.
      request.upload.on('error', () => undefined);
    }
    this.#log.debug('transport.started', {
      request_id: request.id,
      grant_id: decision.grant.grant_id,
      method: frame.method,
    });
    void this.#execute(request, frame.method, decision.url, decision.headers, decision.carriesCredentials);
  }

  /** Keep the sidecar's outstanding upload credit topped up to one window, minus what is still buffered here. */
  #grantUpload(request: HostRequest): void {
    const upload = request.upload;
    if (!upload || request.finished) return;
    const outstanding = request.uploadGranted - request.uploadReceived;
    const room = TRANSPORT_UPLOAD_WINDOW_BYTES - outstanding - upload.readableLength;
    if (room >= TRANSPORT_UPLOAD_WINDOW_BYTES / 2) {
      request.uploadGranted += room;
      this.#send({ v: 1, type: 'request.credit', request_id: request.id, bytes: room });
    }
  }

  #onChunk(frame: Frame<'request.chunk'>): void {
    const request = this.#lookup(frame.request_id);
    if (!request) return;
    const upload = request.upload;
    if (!upload)
      throw new ChannelError('CHANNEL_FRAME_OUT_OF_ORDER', 'request.chunk for a request without an open body');
    const bytes = frame.data;
    request.uploadReceived += bytes.byteLength;
    if (request.uploadReceived > request.uploadGranted) {
      throw new ChannelError('CHANNEL_CREDIT_EXCEEDED', 'request.chunk exceeds the granted upload credit');
    }
    if (request.uploadReceived > TRANSPORT_MAX_REQUEST_BODY_BYTES) {
      this.#terminate(request, 'TRANSPORT_BODY_TOO_LARGE');
      return;
    }
    // Re-authorise before any of these bytes reach the socket.
    for (const grantId of request.grantIds) {
      if (!this.#authority.find(grantId)) {
        this.#terminate(request, 'GRANT_REVOKED');
        return;
      }
    }
    if (!request.scan) {
      if (upload.push(bytes)) this.#grantUpload(request);
      return;
    }
    const scanned = request.scan.push(bytes);
    if (scanned.kind !== undefined) {
      this.#log.warn('egress.blocked', { request_id: request.id, kind: scanned.kind });
      this.#terminate(request, 'EGRESS_SECRET', scanned.kind);
      return;
    }
    let room = true;
    for (const part of scanned.forward) room = upload.push(part);
    if (room) this.#grantUpload(request);
  }

  #onEnd(frame: Frame<'request.end'>): void {
    const request = this.#lookup(frame.request_id);
    if (!request) return;
    const upload = request.upload;
    if (!upload) throw new ChannelError('CHANNEL_FRAME_OUT_OF_ORDER', 'request.end for a request without an open body');
    const last = request.scan?.end() ?? { kind: undefined, forward: [] };
    if (last.kind !== undefined) {
      this.#log.warn('egress.blocked', { request_id: request.id, kind: last.kind });
      this.#terminate(request, 'EGRESS_SECRET', last.kind);
      return;
    }
    request.upload = undefined;
    for (const part of last.forward) upload.push(part);
    upload.push(null);
  }

  #onAbort(frame: Frame<'request.abort'>): void {
    const request = this.#lookup(frame.request_id);
    if (!request) return;
    // The sidecar ended it: any later frame of its for this id is a protocol error, so no tombstone.
    request.finished = true;
    this.#live.delete(request.id);
    request.abort.abort();
    request.upload?.destroy();
    request.wakeSender?.();
    this.#log.info('transport.aborted', { request_id: request.id, duration_ms: Date.now() - request.startedAt });
  }

  #onCredit(frame: Frame<'response.credit'>): void {
    const request = this.#lookup(frame.request_id);
    if (!request) return;
    if (!request.responseStarted)
      throw new ChannelError('CHANNEL_FRAME_OUT_OF_ORDER', 'response.credit before response.start');
    request.responseCredit += frame.bytes;
    request.wakeSender?.();
  }

  async #execute(
    request: HostRequest,
    firstMethod: string,
    firstUrl: URL,
    headers: [string, string][],
    carriesCredentials: boolean,
  ): Promise<void> {
    let method = firstMethod;
    let url = firstUrl;
    let body: Readable | undefined = request.upload;
    let sendHeaders = headers;
    try {
      const { request: send, dispatcher } = await this.#route.open();
      for (let hops = 0; ; hops += 1) {
        const response = await send(url, {
          dispatcher,
          method: method,
          headers: sendHeaders.flat(),
          body: body ?? null,
          signal: request.abort.signal,
          headersTimeout: TRANSPORT_HEADERS_TIMEOUT_MS,
          bodyTimeout: TRANSPORT_BODY_IDLE_TIMEOUT_MS,
        });
        if (request.finished) {
          response.body.destroy();
          return;
        }
        const location = response.headers.location;
        if (!request.followRedirects || !REDIRECT_STATUSES.has(response.statusCode) || typeof location !== 'string') {
          await this.#relay(request, response);
          return;
        }
        await response.body.dump();
        const hop = authorizeRedirect({
          current: url,
          location,
          op: request.op,
          carriesCredentials,
          hops,
          snapshot: this.#authority.snapshot,
        });
        if (!hop.ok) {
          this.#terminate(request, hop.code);
          return;
        }
        const switchesToGet =
          response.statusCode === 303
            ? method !== 'HEAD'
            : (response.statusCode === 301 || response.statusCode === 302) && method === 'POST';
        if (switchesToGet) {
          method = 'GET';
          sendHeaders = sendHeaders.filter(([name]) => !name.startsWith('content-'));
          body?.destroy();
          request.upload = undefined;
          body = undefined;
        } else if (body) {
          // A streamed body is gone once sent; replaying it would mean holding all of it here.
          this.#terminate(request, 'TRANSPORT_REDIRECT_BODY');
          return;
        }
        // The headers go again, to the hop's origin: scanned for what its grant may not carry.
        const head = this.#guardHead(request.id, hop.grant, hop.url, sendHeaders);
        if (!head.ok) {
          this.#terminate(request, head.code, head.kind);
          return;
        }
        request.grantIds.add(hop.grant.grant_id);
        url = hop.url;
      }
    } catch (error) {
      if (!request.finished) this.#terminate(request, upstreamErrorCode(error));
    }
  }

  async #relay(request: HostRequest, response: Dispatcher.ResponseData): Promise<void> {
    const headers = responseHeaders(response.headers);
    if (!headers) {
      response.body.destroy();
      this.#terminate(request, 'TRANSPORT_RESPONSE_HEADERS_TOO_LARGE');
      return;
    }
    // The sidecar gets the body as the server meant it; the size bound then counts decoded bytes,
    // so a compression bomb is cut like any other oversized body.
    const decoder = contentDecoder(response.headers['content-encoding']);
    let body: Readable = response.body;
    if (decoder) {
      body = pipeline(response.body, decoder, () => undefined);
      for (let index = headers.length - 1; index >= 0; index -= 1) {
        const name = headers[index]?.[0];
        if (name === 'content-encoding' || name === 'content-length') headers.splice(index, 1);
      }
    }
    request.responseStarted = true;
    this.#send({ v: 1, type: 'response.start', request_id: request.id, status: response.statusCode, headers });
    const total = await this.#forward(request, body);
    if (total === undefined) {
      response.body.destroy();
      return;
    }
    this.#complete(request, total, response.statusCode);
  }

  /**
   * Stream `body` to the sidecar as `response.chunk` frames, each chunk as it arrives (no copy, no
   * promise per chunk), no faster than the credit: out of credit, the body is paused until a
   * `response.credit` wakes the sender. Resolves with the byte count once the whole body is sent,
   * or undefined when the request was ended meanwhile (it is then terminated or aborted already).
   */
  #forward(request: HostRequest, body: Readable): Promise<number | undefined> {
    return new Promise<number | undefined>((resolve, reject) => {
      let total = 0;
      let waiting: Uint8Array | undefined;
      // Node emits `end` right after the last chunk, even when that chunk still waits for credit.
      let ended = false;
      const stop = () => {
        body.off('data', onData);
        resolve(undefined);
      };
      // The channel's buffer is full: the next frame waits for it to drain, as well as for credit.
      let draining = false;
      const flush = (): void => {
        request.wakeSender = undefined;
        if (request.finished) return stop();
        if (draining) {
          request.wakeSender = flush;
          return;
        }
        while (waiting !== undefined) {
          if (request.finished) return stop();
          if (request.responseCredit === 0) {
            body.pause();
            request.wakeSender = flush;
            return;
          }
          const size = Math.min(waiting.byteLength, CHANNEL_MAX_BODY_CHUNK_BYTES, request.responseCredit);
          request.responseCredit -= size;
          const whole = size === waiting.byteLength;
          const room = this.#send({
            v: 1,
            type: 'response.chunk',
            request_id: request.id,
            data: whole ? waiting : waiting.subarray(0, size),
          });
          waiting = whole ? undefined : waiting.subarray(size);
          if (!room) {
            draining = true;
            body.pause();
            request.wakeSender = flush;
            this.#channel.onDrain(() => {
              draining = false;
              flush();
            });
            return;
          }
        }
        if (ended) resolve(request.finished ? undefined : total);
        else body.resume();
      };
      const onData = (chunk: Buffer): void => {
        if (request.finished) return stop();
        if (chunk.byteLength === 0) return;
        total += chunk.byteLength;
        if (total > this.#maxResponseBytes) {
          this.#terminate(request, 'TRANSPORT_RESPONSE_TOO_LARGE');
          return stop();
        }
        waiting = chunk;
        flush();
      };
      body.on('data', onData);
      body.once('end', () => {
        ended = true;
        if (waiting === undefined) flush();
      });
      // A body destroyed before its end (abort, upstream failure) rejects; #execute turns that into a code.
      body.once('close', () => {
        if (!body.readableEnded) reject(body.errored ?? new Error('response body closed before its end'));
      });
    });
  }
}

function contentDecoder(header: string | string[] | undefined): Gunzip | Inflate | BrotliDecompress | undefined {
  const encoding = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  if (encoding === 'br') return createBrotliDecompress();
  return undefined;
}

/** Response headers as frame pairs, or undefined when they exceed the transport's bounds. */
function responseHeaders(raw: Record<string, string | string[] | undefined>): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  let total = 0;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item.length > TRANSPORT_MAX_HEADER_VALUE_BYTES || /[\r\n\0]/.test(item)) return undefined;
      total += name.length + item.length + 4;
      pairs.push([name, item]);
    }
  }
  if (pairs.length > TRANSPORT_MAX_HEADERS || total > TRANSPORT_MAX_HEADER_BYTES_TOTAL) return undefined;
  return pairs;
}

/** A stable code for an upstream failure; never the error's message, which may quote the URL. */
function upstreamErrorCode(error: unknown): TransportErrorCode {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'UPSTREAM_CONNECT_TIMEOUT';
    if (code === 'UND_ERR_HEADERS_TIMEOUT') return 'UPSTREAM_HEADERS_TIMEOUT';
    if (code === 'UND_ERR_BODY_TIMEOUT') return 'UPSTREAM_BODY_TIMEOUT';
    if (code === 'UND_ERR_HEADERS_OVERFLOW') return 'UPSTREAM_HEADERS_OVERFLOW';
    if (code === 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH') return 'TRANSPORT_CONTENT_LENGTH_MISMATCH';
    if (code === 'ECONNREFUSED') return 'UPSTREAM_CONNECTION_REFUSED';
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'UPSTREAM_CONNECTION_RESET';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'UPSTREAM_DNS';
    if (code.startsWith('ERR_TLS') || code.includes('CERT')) return 'UPSTREAM_TLS';
  }
  return 'UPSTREAM_FAILED';
}
