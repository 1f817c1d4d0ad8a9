/**
 * SEC-004, sidecar side of the host-routed provider transport. The sidecar has no network route
 * of its own: `fetch` here turns a WHATWG request into `request.*` frames for the host, which
 * authorises and performs it, and turns the host's `response.*` frames back into a streaming
 * Response. Uploads wait for the host's `request.credit`; responses are read under the credit this
 * side grants as its reader consumes, so neither process buffers more than one window per request.
 * An AbortSignal (or cancelling the body) becomes `request.abort`.
 *
 * The grant snapshot here is the host's copy, acknowledged with `grant.applied`; it only lets the
 * sidecar pick a grant id and refuse early. The host re-checks everything. Does not catch: a
 * compromised sidecar sending data to an origin already granted (the host's grants bound that).
 */
import { randomBytes } from 'node:crypto';
import {
  ChannelError,
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  TRANSPORT_MAX_ENDED_IDS,
  TRANSPORT_MAX_REQUEST_BODY_BYTES,
  TRANSPORT_MAX_URL_CHARS,
  TRANSPORT_RESPONSE_WINDOW_BYTES,
  type FrameOfType,
  type Grant,
  type HostToSidecarFrame,
  type TransportErrorCode,
  type TransportOp,
} from '@bastion/protocol';
import type { HostChannel } from '../channel/host-channel.js';
import { DaemonError } from '../errors.js';

type Frame<T extends HostToSidecarFrame['type']> = FrameOfType<HostToSidecarFrame, T>;
type FetchInput = string | URL | Request;

/** A refusal or failure of one transported request; `code` is the host's or this side's stable code. */
export class TransportError extends DaemonError<TransportErrorCode> {
  override readonly name = 'TransportError';
}

/** The form fetch callers (the AI SDK) expect for a network failure: a TypeError with the reason as cause. */
function fetchFailure(code: TransportErrorCode, message: string): TypeError {
  return new TypeError('fetch failed', { cause: new TransportError(code, message) });
}

/** Bodies of these statuses must be null in a WHATWG Response. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

interface InFlight {
  readonly id: string;
  readonly url: string;
  started: boolean;
  done: boolean;
  resolveStart: (response: Response) => void;
  rejectStart: (error: unknown) => void;
  /** Upload credit the host has granted and this side has not yet used. */
  uploadCredit: number;
  wakeUploader: (() => void) | undefined;
  /** Response bytes the host may still send under credit granted so far. */
  responseCredit: number;
  /** Bytes handed to the reader since the last `response.credit`. */
  consumed: number;
  queue: Uint8Array[];
  ended: boolean;
  controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  pendingPull: (() => void) | undefined;
  detachSignal: () => void;
}

export class ProviderTransport {
  readonly #channel: HostChannel;
  readonly #inFlight = new Map<string, InFlight>();
  /** Ids this side ended (abort, cancel): late host frames for them are dropped, not fatal. */
  readonly #endedHere = new Set<string>();
  #grants: readonly Grant[] = [];
  #revision = -1;

  /** Registers the handlers for every host frame the transport can receive. */
  constructor(channel: HostChannel) {
    this.#channel = channel;
    channel.on('grant.update', (frame) => this.#applyGrants(frame));
    channel.on('request.credit', (frame) => this.#onRequestCredit(frame));
    channel.on('response.start', (frame) => this.#onResponseStart(frame));
    channel.on('response.chunk', (frame) => this.#onResponseChunk(frame));
    channel.on('response.end', (frame) => this.#onResponseEnd(frame));
    channel.on('response.error', (frame) => this.#onResponseError(frame));
  }

  /** The acknowledged grant snapshot's revision (-1 before the first update). */
  get revision(): number {
    return this.#revision;
  }

  /** The grant that would carry a request to `url`, if any. */
  grantFor(url: string, op: TransportOp): Grant | undefined {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return undefined;
    }
    return this.#grants.find((grant) => grant.origin === origin && grant.op === op);
  }

  /** WHATWG-compatible fetch for provider calls. */
  readonly fetch = (input: FetchInput, init?: RequestInit): Promise<Response> => this.#start('provider', input, init);

  /** Credential-free GET/HEAD of a provider asset (the host enforces https, default port and the origin list). */
  readonly fetchAsset = (input: FetchInput, init?: RequestInit): Promise<Response> => this.#start('asset', input, init);

  async #start(op: TransportOp, input: FetchInput, init: RequestInit | undefined): Promise<Response> {
    const request = new Request(input, init);
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    if (signal?.aborted) throw signal.reason;
    const url = request.url;
    if (url.length > TRANSPORT_MAX_URL_CHARS) throw fetchFailure('TRANSPORT_URL_TOO_LONG', 'request URL is too long');
    const grant = this.grantFor(url, op);
    if (!grant) throw fetchFailure('TRANSPORT_NO_GRANT', 'no grant covers this origin');

    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    let body: Uint8Array | ReadableStream<Uint8Array> | undefined;
    if (request.body !== null) {
      if (init?.body instanceof ReadableStream) {
        body = request.body;
      } else {
        const bytes = new Uint8Array(await request.arrayBuffer());
        if (bytes.byteLength > TRANSPORT_MAX_REQUEST_BODY_BYTES) {
          throw fetchFailure('TRANSPORT_BODY_TOO_LARGE', 'request body is too large');
        }
        // A known length lets servers that refuse chunked uploads (some local model servers) accept it.
        if (!request.headers.has('content-length')) headers.push(['content-length', String(bytes.byteLength)]);
        body = bytes;
      }
    }
    if (signal?.aborted) throw signal.reason;

    const id = randomBytes(12).toString('base64url');
    const started = new Promise<Response>((resolve, reject) => {
      const state: InFlight = {
        id,
        url,
        started: false,
        done: false,
        resolveStart: resolve,
        rejectStart: reject,
        uploadCredit: 0,
        wakeUploader: undefined,
        responseCredit: 0,
        consumed: 0,
        queue: [],
        ended: false,
        controller: undefined,
        pendingPull: undefined,
        detachSignal: () => undefined,
      };
      if (signal) {
        const onAbort = () => this.#abort(state, signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        state.detachSignal = () => signal.removeEventListener('abort', onAbort);
      }
      this.#inFlight.set(id, state);
      this.#channel.send({
        v: 1,
        type: 'request.start',
        request_id: id,
        grant_id: grant.grant_id,
        op,
        method: request.method,
        url,
        headers,
        has_body: body !== undefined,
        // `error` is served as `manual` too: a redirect is then never followed, and the caller sees the 3xx.
        ...(request.redirect === 'follow' ? {} : { redirect: 'manual' as const }),
      });
      if (body !== undefined) void this.#upload(state, body);
    });
    return started;
  }

  async #upload(state: InFlight, body: Uint8Array | ReadableStream<Uint8Array>): Promise<void> {
    let total = 0;
    const sendBytes = async (bytes: Uint8Array): Promise<boolean> => {
      let offset = 0;
      while (offset < bytes.byteLength) {
        if (state.done) return false;
        if (state.uploadCredit === 0) {
          await new Promise<void>((resolve) => (state.wakeUploader = resolve));
          state.wakeUploader = undefined;
          continue;
        }
        const size = Math.min(bytes.byteLength - offset, CHANNEL_MAX_BODY_CHUNK_BYTES, state.uploadCredit);
        const piece = bytes.subarray(offset, offset + size);
        state.uploadCredit -= size;
        offset += size;
        this.#channel.send({
          v: 1,
          type: 'request.chunk',
          request_id: state.id,
          data: piece,
        });
      }
      return true;
    };
    try {
      if (body instanceof Uint8Array) {
        if (!(await sendBytes(body))) return;
      } else {
        const reader = body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          total += value.byteLength;
          if (total > TRANSPORT_MAX_REQUEST_BODY_BYTES) {
            await reader.cancel();
            this.#fail(state, fetchFailure('TRANSPORT_BODY_TOO_LARGE', 'request body is too large'), true);
            return;
          }
          if (!(await sendBytes(value))) {
            await reader.cancel();
            return;
          }
        }
      }
      if (!state.done) this.#channel.send({ v: 1, type: 'request.end', request_id: state.id });
    } catch (error) {
      this.#fail(state, error, true);
    }
  }

  #abort(state: InFlight, reason: unknown): void {
    this.#fail(state, reason, true);
  }

  /** End a request from this side; `tellHost` sends `request.abort` so the host stops upstream I/O. */
  #fail(state: InFlight, error: unknown, tellHost: boolean): void {
    if (state.done) return;
    state.done = true;
    state.detachSignal();
    this.#inFlight.delete(state.id);
    if (tellHost) {
      this.#rememberEnded(state.id);
      if (!this.#channel.closed) this.#channel.send({ v: 1, type: 'request.abort', request_id: state.id });
    }
    state.wakeUploader?.();
    if (!state.started) {
      state.rejectStart(error);
    } else {
      state.queue = [];
      try {
        state.controller?.error(error);
      } catch {
        // The stream was already closed or cancelled.
      }
      state.pendingPull?.();
    }
  }

  #rememberEnded(id: string): void {
    this.#endedHere.add(id);
    if (this.#endedHere.size > TRANSPORT_MAX_ENDED_IDS) {
      const oldest = this.#endedHere.values().next().value;
      if (oldest !== undefined) this.#endedHere.delete(oldest);
    }
  }

  /** The live request a host frame names; undefined (drop) for one this side ended; a protocol error otherwise. */
  #lookup(id: string): InFlight | undefined {
    const state = this.#inFlight.get(id);
    if (state) return state;
    if (this.#endedHere.has(id)) return undefined;
    throw new ChannelError('CHANNEL_UNKNOWN_REQUEST', 'transport frame for an unknown request id');
  }

  #applyGrants(frame: Frame<'grant.update'>): void {
    if (frame.revision <= this.#revision) {
      throw new ChannelError('CHANNEL_GRANT_REVISION', 'grant.update revision did not increase');
    }
    this.#grants = frame.grants;
    this.#revision = frame.revision;
    this.#channel.send({ v: 1, type: 'grant.applied', revision: frame.revision });
  }

  #onRequestCredit(frame: Frame<'request.credit'>): void {
    const state = this.#lookup(frame.request_id);
    if (!state) return;
    state.uploadCredit += frame.bytes;
    state.wakeUploader?.();
  }

  #onResponseStart(frame: Frame<'response.start'>): void {
    const state = this.#lookup(frame.request_id);
    if (!state) return;
    if (state.started) throw new ChannelError('CHANNEL_FRAME_OUT_OF_ORDER', 'second response.start for a request');
    state.started = true;
    const headers = new Headers();
    for (const [name, value] of frame.headers) headers.append(name, value);
    if (NULL_BODY_STATUSES.has(frame.status)) {
      state.resolveStart(new Response(null, { status: frame.status, headers }));
      return;
    }
    const body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          state.controller = controller;
        },
        pull: () => this.#deliver(state),
        cancel: () => this.#fail(state, new TransportError('TRANSPORT_CANCELLED', 'response body was cancelled'), true),
      },
      { highWaterMark: 0 },
    );
    const response = new Response(body, { status: frame.status, headers });
    Object.defineProperty(response, 'url', { value: state.url });
    state.responseCredit = TRANSPORT_RESPONSE_WINDOW_BYTES;
    this.#channel.send({ v: 1, type: 'response.credit', request_id: state.id, bytes: TRANSPORT_RESPONSE_WINDOW_BYTES });
    state.resolveStart(response);
  }

  /** `pull`: hand the reader one queued chunk (or wait for one), and return consumed bytes as credit. */
  #deliver(state: InFlight): Promise<void> | void {
    const controller = state.controller;
    if (!controller || state.done) return;
    const next = state.queue.shift();
    if (next) {
      controller.enqueue(next);
      state.consumed += next.byteLength;
      // Top up in halves of the window: few frames, and half a window in flight keeps the host sending.
      if (state.consumed >= TRANSPORT_RESPONSE_WINDOW_BYTES / 2 && !this.#channel.closed) {
        state.responseCredit += state.consumed;
        this.#channel.send({ v: 1, type: 'response.credit', request_id: state.id, bytes: state.consumed });
        state.consumed = 0;
      }
      return;
    }
    if (state.ended) {
      this.#finish(state);
      controller.close();
      return;
    }
    return new Promise<void>((resolve) => {
      state.pendingPull = () => {
        state.pendingPull = undefined;
        resolve(this.#deliver(state));
      };
    });
  }

  #finish(state: InFlight): void {
    state.done = true;
    state.detachSignal();
    this.#inFlight.delete(state.id);
  }

  #onResponseChunk(frame: Frame<'response.chunk'>): void {
    const state = this.#lookup(frame.request_id);
    if (!state) return;
    if (!state.started || state.ended || !state.controller) {
      throw new ChannelError('CHANNEL_FRAME_OUT_OF_ORDER', 'response.chunk outside a response body');
    }
    const bytes = frame.data;
    if (bytes.byteLength > state.responseCredit) {
      throw new ChannelError('CHANNEL_CREDIT_EXCEEDED', 'response.chunk exceeds the granted credit');
    }
    state.responseCredit -= bytes.byteLength;
    state.queue.push(bytes);
    state.pendingPull?.();
  }

  #onResponseEnd(frame: Frame<'response.end'>): void {
    const state = this.#lookup(frame.request_id);
    if (!state) return;
    if (!state.started || state.ended)
      throw new ChannelError('CHANNEL_FRAME_OUT_OF_ORDER', 'response.end outside a response');
    state.ended = true;
    if (!state.controller) {
      // A null-body response: nothing to drain.
      this.#finish(state);
      return;
    }
    state.pendingPull?.();
  }

  #onResponseError(frame: Frame<'response.error'>): void {
    const state = this.#lookup(frame.request_id);
    if (!state) return;
    const message =
      frame.code === 'EGRESS_SECRET'
        ? `the host blocked the request: it carried a secret (${frame.kind ?? 'of an unnamed kind'})`
        : frame.code === 'EGRESS_GUARD_UNAVAILABLE'
          ? 'the host blocked the request: its secret-egress guard cannot read auth.json or host/mcp.json safely (bastion doctor says why)'
          : 'the host refused or lost the provider request';
    this.#fail(state, fetchFailure(frame.code, message), false);
  }
}
