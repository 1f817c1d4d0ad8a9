/**
 * The host's own client of the daemon. It presents itself exactly as the bridge does (Origin and
 * a Referer under /desktop on the UI origin, Basic auth with the current per-spawn password), so
 * the host gets no perimeter bypass either. The password is read from the supervisor per request,
 * so a restarted sidecar is followed.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { DAEMON_AUTH_USER, DESKTOP_ROUTE_ROOT } from '@bastion/protocol';
import { HostError } from './errors.js';

export interface DaemonTarget {
  port: number;
  password: string;
}

export interface DaemonResponse<T = unknown> {
  status: number;
  body: T;
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
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch (cause) {
        throw new HostError('DAEMON_RESPONSE', 'daemon answered with invalid JSON', { cause });
      }
    }
    return { status: response.statusCode ?? 0, body: parsed as T };
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
