/**
 * SEC-004 guarded host IPC: `POST /_host/ipc/<channel>` on the UI origin, the browser analog of
 * Electron's sender-checked ipcMain handlers, served by this module's own hono app. A channel
 * gets a route only through `guarded()`, which runs every check before its handler, in this
 * order: POST; the host-session cookie; Origin exactly the UI origin; a Referer on the UI origin
 * whose path is a desktop page allowed for this channel; a JSON body within bounds that the
 * channel's strict schema accepts. Any other path under the prefix is IPC_CHANNEL. (Host was
 * checked by the UiServer.) The Origin and Referer checks are the daemon perimeter's own
 * (@bastion/protocol perimeter-checks.ts), answered with this module's IPC_* codes. No response carries CORS headers, so a cross-origin page can never
 * read one. Does not catch script running inside an allowed desktop page: that page is the
 * bridge's home.
 */
import type { IncomingMessage } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  allowedOriginOf,
  desktopRefererOf,
  HOST_IPC_MAX_BODY_BYTES,
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

/** One step of the chain: the refusal it makes, or undefined to pass. */
type Check = (c: UiContext) => HostIpcRefusal | undefined;

export class HostIpc {
  readonly #channels = new Set<HostIpcChannel>();
  readonly #app = new Hono<UiEnv>({ getPath: uiPath });
  readonly #checks: readonly Check[];
  readonly #origins: ReadonlySet<string>;
  readonly #log: Logger;

  constructor(options: { origin: string; hasSession: (cookieHeader: string | undefined) => boolean; log: Logger }) {
    this.#origins = new Set([options.origin]);
    this.#log = options.log;
    this.#checks = [
      (c) => (c.req.method === 'POST' ? undefined : 'IPC_METHOD'),
      (c) => (options.hasSession(c.req.header('cookie')) ? undefined : 'IPC_SESSION'),
      (c) => (allowedOriginOf(c.req, this.#origins) === undefined ? 'IPC_ORIGIN' : undefined),
    ];
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
    const checks = [...this.#checks, refererCheck(this.#origins, spec.pages)];
    this.#app.all(`${HOST_IPC_PATH_PREFIX}${channel}`, (c) => {
      const refusal = firstRefusal(c, checks);
      if (refusal) return this.#refuse(c, channel, refusal);
      return this.#serve(c, channel, spec);
    });
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

  #refuse(c: UiContext, channel: HostIpcChannel | undefined, code: HostIpcRefusal): Response {
    this.#log.warn('ipc.refused', { channel: channel ?? null, code });
    return sendWireError(c, { code, message: REFUSALS[code] });
  }
}

/**
 * The checks in order; the first refusal answers at once, in the same tick as the request, as
 * the hand-written server did (a client writing past its request, e.g. an unframed GET body,
 * still reads the refusal before the parser rejects those bytes).
 */
function firstRefusal(c: UiContext, checks: readonly Check[]): HostIpcRefusal | undefined {
  for (const check of checks) {
    const refusal = check(c);
    if (refusal) return refusal;
  }
  return undefined;
}

/** Referer on the UI origin whose path is a desktop page, then one of the channel's pages. */
function refererCheck(origins: ReadonlySet<string>, pages: readonly PagePattern[]): Check {
  return (c) => {
    const page = desktopRefererOf(c.req, origins);
    if (!page) return 'IPC_REFERER';
    return pageMatches(page.pathname, pages) ? undefined : 'IPC_PAGE';
  };
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

function sendJson(c: UiContext, status: ContentfulStatusCode, body: unknown): Response {
  return c.body(JSON.stringify(body), status, { 'content-type': 'application/json; charset=utf-8' });
}

function sendWireError(c: UiContext, error: WireError<WireErrorCode>): Response {
  return sendJson(c, WIRE_ERROR_STATUS[error.code], error);
}
