/**
 * SEC-004 guarded host IPC: `POST /_host/ipc/<channel>` on the UI origin, the browser analog of
 * Electron's sender-checked ipcMain handlers, served by this module's own hono app. A channel
 * gets a route only through `guarded()`, which runs every check before its handler, in this
 * order: POST; the host-session cookie; Origin exactly the UI origin; a Referer on the UI origin
 * whose path is a desktop page allowed for this channel; the session's page key in its header;
 * a JSON body within bounds that the channel's strict schema accepts. Origin and Referer stop a
 * browser page elsewhere; the page key stops a client that only has the cookie (which the browser
 * also sends to every other loopback port) and forges both headers. Any other path under the
 * prefix is IPC_CHANNEL. (Host was checked by the UiServer.) The Origin and Referer guards are
 * the daemon perimeter's own hono middleware (@bastion/daemon/perimeter), answering with this
 * module's IPC_* codes; the Origin guard runs without CORS, so no response carries CORS headers
 * and a cross-origin page can never read one. Does not catch script running inside an allowed
 * desktop page: that page is the bridge's home, and it can read the page key too.
 */
import type { IncomingMessage } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { originGuard, refererGuard, type PerimeterGuard } from '@bastion/daemon/perimeter';
import {
  desktopRefererOf,
  HOST_IPC_MAX_BODY_BYTES,
  HOST_IPC_PAGE_KEY_HEADER,
  HOST_IPC_PATH_PREFIX,
  hostIpcSchemas,
  WIRE_ERROR_STATUS,
  type HostIpcChannel,
  type HostIpcErrorCode,
  type HostIpcInput,
  type HostIpcOutput,
  type Logger,
  type WireError,
  type WireErrorCode,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { readBoundedRequest } from '../read-bounded-request.js';

/** Refusal codes, in the order the checks run. */
export type HostIpcRefusal = Exclude<HostIpcErrorCode, 'IPC_FAILED' | 'SIDECAR_UNAVAILABLE' | 'WORKSPACE_PATH'>;

const REFUSALS: Record<HostIpcRefusal, string> = {
  IPC_CHANNEL: 'no such host channel',
  IPC_METHOD: 'host channels accept POST only',
  IPC_SESSION: 'no host session: open the launch link from bastion start',
  IPC_ORIGIN: 'Origin is not the desktop UI',
  IPC_REFERER: 'Referer is not a desktop page',
  IPC_PAGE: 'this page may not use this channel',
  IPC_PAGE_KEY: 'this page was not opened from a launch link; run bastion open and use the link it prints',
  IPC_BODY_TOO_LARGE: 'request body is too large',
  IPC_BODY: 'request body is not valid for this channel',
};

/**
 * Desktop pages a channel may be called from: an exact path, or `prefix/*` for anything under
 * it. The app's pages are listed explicitly; the launch and notice pages get no channel.
 */
export type PagePattern = `/desktop${string}`;

export function pageMatches(path: string, patterns: readonly PagePattern[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith('/*')
      ? path.startsWith(pattern.slice(0, -1)) && path.length > pattern.length - 1
      : path === pattern,
  );
}

export interface GuardedSpec<C extends HostIpcChannel> {
  pages: readonly PagePattern[];
  handle(input: HostIpcInput<C>): Promise<HostIpcOutput<C>>;
}

/** A handler's failure that may reach the renderer: a code (answered with its WIRE_ERROR_STATUS) and a fixed message. */
export class HostIpcFailure extends HostError {
  override readonly name = 'HostIpcFailure';
}

/** The UI origin's hono environment: node-server hands over the raw request and response. */
export type UiEnv = { Bindings: HttpBindings };
export type UiContext = Context<UiEnv>;

/** Routes on the path exactly as the URL parser normalised it (hono would also percent-decode it). */
const uiPath = (request: Request): string => new URL(request.url).pathname;

export class HostIpc {
  readonly #channels = new Set<HostIpcChannel>();
  readonly #app = new Hono<UiEnv>({ getPath: uiPath });
  readonly #origins: readonly string[];
  readonly #hasSession: (cookieHeader: string | undefined) => boolean;
  readonly #hasPageKey: (cookieHeader: string | undefined, pageKey: string | undefined) => boolean;
  readonly #log: Logger;

  constructor(options: {
    origin: string;
    hasSession: (cookieHeader: string | undefined) => boolean;
    /** True if the page key belongs to a live session of the Cookie header (compared in constant time). */
    hasPageKey: (cookieHeader: string | undefined, pageKey: string | undefined) => boolean;
    log: Logger;
  }) {
    this.#origins = [options.origin];
    this.#hasSession = options.hasSession;
    this.#hasPageKey = options.hasPageKey;
    this.#log = options.log;
    this.#app.notFound((c) => {
      c.env.incoming.resume();
      return this.#refuse(c, undefined, 'IPC_CHANNEL');
    });
  }

  /** The channels that have a handler, each wrapped by `guarded()`. */
  channels(): HostIpcChannel[] {
    return [...this.#channels];
  }

  /** The only way to give a channel a handler. */
  guarded<C extends HostIpcChannel>(channel: C, spec: GuardedSpec<C>): void {
    if (this.#channels.has(channel))
      throw new HostError('IPC_DUPLICATE', `host channel ${channel} already has a handler`);
    this.#channels.add(channel);
    const guards = this.#guards(channel, spec.pages);
    this.#app.all(`${HOST_IPC_PATH_PREFIX}${channel}`, (c) => {
      for (const guard of guards) {
        const refusal = guard(c);
        if (refusal) return refusal;
      }
      return this.#serve(c, channel, spec);
    });
  }

  /**
   * The checks before a channel's handler, in order: POST, the session cookie, the daemon's
   * Origin and Referer guards (no CORS), the page, the session's page key. Each answers in the
   * same tick as the request. The page key comes last so a browser page elsewhere is still named
   * by the Origin check; it is never logged, only its refusal code.
   */
  #guards(channel: HostIpcChannel, pages: readonly PagePattern[]): PerimeterGuard[] {
    const refusal = (code: HostIpcRefusal) => ({
      refusal: { code, message: REFUSALS[code] },
      refuse: (c: Context) => this.#refuse(c, channel, code),
    });
    const check =
      (code: HostIpcRefusal, passes: (c: Context) => boolean): PerimeterGuard =>
      (c) =>
        passes(c) ? undefined : this.#refuse(c, channel, code);
    const origins = new Set(this.#origins);
    return [
      check('IPC_METHOD', (c) => c.req.method === 'POST'),
      check('IPC_SESSION', (c) => this.#hasSession(c.req.header('cookie'))),
      originGuard({ allowedOrigins: this.#origins, cors: false, ...refusal('IPC_ORIGIN') }),
      refererGuard({ allowedOrigins: this.#origins, ...refusal('IPC_REFERER') }),
      check('IPC_PAGE', (c) => {
        const page = desktopRefererOf(c.req, origins);
        return page !== undefined && pageMatches(page.pathname, pages);
      }),
      check('IPC_PAGE_KEY', (c) => this.#hasPageKey(c.req.header('cookie'), c.req.header(HOST_IPC_PAGE_KEY_HEADER))),
    ];
  }

  /** A request that passed every check: its bounded JSON body through the schema, then the handler. */
  async #serve<C extends HostIpcChannel>(c: UiContext, channel: C, spec: GuardedSpec<C>): Promise<Response> {
    const schemas = hostIpcSchemas[channel];
    const body = await readBoundedBody(c.env.incoming);
    if (body === TOO_LARGE) {
      c.header('connection', 'close');
      c.env.outgoing.once('finish', () => c.env.incoming.destroy());
      return this.#refuse(c, channel, 'IPC_BODY_TOO_LARGE');
    }
    let parsed: unknown;
    try {
      parsed = body === undefined ? undefined : JSON.parse(body === '' ? '{}' : body);
    } catch {
      parsed = undefined;
    }
    const input = schemas.input.safeParse(parsed);
    if (!input.success) return this.#refuse(c, channel, 'IPC_BODY');
    try {
      const output = await spec.handle(input.data as HostIpcInput<C>);
      this.#log.debug('ipc.served', { channel });
      return sendJson(c, 200, schemas.output.parse(output));
    } catch (error) {
      const failure: WireError<WireErrorCode> =
        error instanceof HostIpcFailure
          ? { code: error.code, message: error.message }
          : { code: 'IPC_FAILED', message: 'host channel failed' };
      this.#log.warn('ipc.failed', { channel, code: failure.code });
      return sendWireError(c, failure);
    }
  }

  /** Serve a request under `HOST_IPC_PATH_PREFIX`; its channel name is untrusted. */
  readonly dispatch = getRequestListener(this.#app.fetch);

  #refuse(c: Context, channel: HostIpcChannel | undefined, code: HostIpcRefusal): Response {
    this.#log.warn('ipc.refused', { channel: channel ?? null, code });
    return sendWireError(c, { code, message: REFUSALS[code] });
  }
}

const TOO_LARGE = Symbol('too large');

/** The body as text; undefined if it is not `application/json`; TOO_LARGE past the bound (reading stops there). */
async function readBoundedBody(req: IncomingMessage): Promise<string | undefined | typeof TOO_LARGE> {
  const type = req.headers['content-type'];
  const isJson = type !== undefined && /^application\/json(;|$)/i.test(type);
  const body = await readBoundedRequest(req, HOST_IPC_MAX_BODY_BYTES);
  if (body === undefined) return TOO_LARGE;
  return isJson ? body.toString('utf8') : undefined;
}

function sendJson(c: Context, status: ContentfulStatusCode, body: unknown): Response {
  return c.body(JSON.stringify(body), status, { 'content-type': 'application/json; charset=utf-8' });
}

function sendWireError(c: Context, error: WireError<WireErrorCode>): Response {
  return sendJson(c, WIRE_ERROR_STATUS[error.code], error);
}
