/**
 * The host's own client of the daemon. It presents itself exactly as the bridge does (Origin and
 * a Referer under /desktop on the UI origin, Basic auth with the current per-spawn password), so
 * the host gets no perimeter bypass either. The password is read from the supervisor per request,
 * so a restarted sidecar is followed.
 *
 * SEC-004: what the daemon answers comes from the sidecar. A body is read up to
 * DAEMON_RESPONSE_MAX_BYTES (then the response is destroyed: DAEMON_RESPONSE_TOO_LARGE), and
 * `call()` checks a success body against the route's protocol schema and an error body against
 * `{ code, message }` (DAEMON_RESPONSE on a mismatch). `request()` leaves the body unchecked, for
 * tests and callers that check it themselves.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { z } from 'zod';
import {
  DAEMON_AUTH_USER,
  DAEMON_RESPONSE_MAX_BYTES,
  DESKTOP_ROUTE_ROOT,
  wireErrorSchema,
  type WireError,
  type WireErrorCode,
} from '@bastion/protocol';
import { HostError } from './errors.js';

export interface DaemonTarget {
  port: number;
  password: string;
}

export interface DaemonResponse<T = unknown> {
  status: number;
  body: T;
}

/** A checked answer: the route's body on a 2xx status, the daemon's wire error otherwise. */
export type DaemonResult<T> =
  { ok: true; status: number; body: T } | { ok: false; status: number; error: WireError<WireErrorCode> };

/** A response's body, at most DAEMON_RESPONSE_MAX_BYTES, parsed as JSON (undefined when empty). */
async function readJsonBody(response: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > DAEMON_RESPONSE_MAX_BYTES) {
      response.destroy();
      throw new HostError('DAEMON_RESPONSE_TOO_LARGE', 'daemon answered with a body over the size bound');
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new HostError('DAEMON_RESPONSE', 'daemon answered with invalid JSON', { cause });
  }
}

export class DaemonClient {
  readonly #target: () => Promise<DaemonTarget>;
  readonly #uiOrigin: string;

  constructor(options: { target: () => Promise<DaemonTarget>; uiOrigin: string }) {
    this.#target = options.target;
    this.#uiOrigin = options.uiOrigin;
  }

  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<DaemonResponse<T>> {
    const response = await this.open(method, path, body, extraHeaders);
    // T is the caller's word, not checked here (see call()).
    return { status: response.statusCode ?? 0, body: (await readJsonBody(response)) as T };
  }

  /** A request whose answer is checked: a 2xx body against `schema`, any other against `{ code, message }`. */
  async call<T>(
    method: string,
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    extraHeaders: Record<string, string> = {},
  ): Promise<DaemonResult<T>> {
    const response = await this.open(method, path, body, extraHeaders);
    const status = response.statusCode ?? 0;
    const parsed = await readJsonBody(response);
    if (status >= 200 && status < 300) {
      const checked = schema.safeParse(parsed);
      if (!checked.success) throw new HostError('DAEMON_RESPONSE', `daemon answered ${path} outside its schema`);
      return { ok: true, status, body: checked.data };
    }
    const error = wireErrorSchema.safeParse(parsed);
    return {
      ok: false,
      status,
      error: error.success ? error.data : { code: 'DAEMON_RESPONSE', message: `daemon answered ${status}` },
    };
  }

  /** Start a request and hand back the raw response (for event streams). */
  async open(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<IncomingMessage> {
    const { port, password } = await this.#target();
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method,
          path,
          agent: false,
          headers: {
            host: `127.0.0.1:${port}`,
            origin: this.#uiOrigin,
            referer: `${this.#uiOrigin}${DESKTOP_ROUTE_ROOT}/`,
            authorization: `Basic ${Buffer.from(`${DAEMON_AUTH_USER}:${password}`).toString('base64')}`,
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
            ...extraHeaders,
          },
        },
        resolve,
      );
      req.on('error', (cause) => reject(new HostError('DAEMON_UNREACHABLE', 'daemon request failed', { cause })));
      req.end(payload);
    });
  }
}
