/**
 * SEC-004 guarded host IPC: `POST /_host/ipc/<channel>` on the UI origin, the browser analog of
 * Electron's sender-checked ipcMain handlers. A handler exists only through `guarded()`, which
 * wraps it in every check, in this order: POST; the host-session cookie; Origin exactly the UI
 * origin; a Referer on the UI origin whose path is a desktop page allowed for this channel; a
 * JSON body within bounds that the channel's strict schema accepts. (Host was checked by the
 * UiServer.) No response carries CORS headers, so a cross-origin page can never read one.
 * Does not catch script running inside an allowed desktop page: that page is the bridge's home.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  HOST_IPC_MAX_BODY_BYTES,
  hostIpcChannelSchema,
  hostIpcSchemas,
  parseDesktopReferer,
  type HostIpcChannel,
  type HostIpcInput,
  type HostIpcOutput,
  type Logger,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { readBoundedRequest } from '../read-bounded-request.js';

/** Refusal codes, in the order the checks run. */
export type HostIpcRefusal =
  | 'IPC_CHANNEL'
  | 'IPC_METHOD'
  | 'IPC_SESSION'
  | 'IPC_ORIGIN'
  | 'IPC_REFERER'
  | 'IPC_PAGE'
  | 'IPC_BODY_TOO_LARGE'
  | 'IPC_BODY';

const REFUSALS: Record<HostIpcRefusal, { status: number; message: string }> = {
  IPC_CHANNEL: { status: 404, message: 'no such host channel' },
  IPC_METHOD: { status: 405, message: 'host channels accept POST only' },
  IPC_SESSION: { status: 403, message: 'no host session: open the launch link from bastion start' },
  IPC_ORIGIN: { status: 403, message: 'Origin is not the desktop UI' },
  IPC_REFERER: { status: 403, message: 'Referer is not a desktop page' },
  IPC_PAGE: { status: 403, message: 'this page may not use this channel' },
  IPC_BODY_TOO_LARGE: { status: 413, message: 'request body is too large' },
  IPC_BODY: { status: 400, message: 'request body is not valid for this channel' },
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

/** A handler's failure that may reach the renderer: a code and a fixed message. */
export class HostIpcFailure extends HostError {
  constructor(
    code: string,
    message: string,
    readonly status = 409,
  ) {
    super(code, message);
  }
}

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export class HostIpc {
  readonly #routes = new Map<HostIpcChannel, Route>();
  readonly #origin: string;
  readonly #origins: ReadonlySet<string>;
  readonly #hasSession: (cookieHeader: string | undefined) => boolean;
  readonly #log: Logger;

  constructor(options: { origin: string; hasSession: (cookieHeader: string | undefined) => boolean; log: Logger }) {
    this.#origin = options.origin;
    this.#origins = new Set([options.origin]);
    this.#hasSession = options.hasSession;
    this.#log = options.log;
  }

  /** The channels that have a handler, each wrapped by `guarded()`. */
  channels(): HostIpcChannel[] {
    return [...this.#routes.keys()];
  }

  /** The only way to give a channel a handler. */
  guarded<C extends HostIpcChannel>(channel: C, spec: GuardedSpec<C>): void {
    if (this.#routes.has(channel))
      throw new HostError('IPC_DUPLICATE', `host channel ${channel} already has a handler`);
    const schemas = hostIpcSchemas[channel];
    this.#routes.set(channel, async (req, res) => {
      const refusal = this.#check(req, spec.pages);
      if (refusal) return this.#refuse(res, channel, refusal);
      const body = await readBoundedBody(req);
      if (body === TOO_LARGE) {
        res.setHeader('connection', 'close');
        res.once('finish', () => req.destroy());
        return this.#refuse(res, channel, 'IPC_BODY_TOO_LARGE');
      }
      let parsed: unknown;
      try {
        parsed = body === undefined ? undefined : JSON.parse(body === '' ? '{}' : body);
      } catch {
        parsed = undefined;
      }
      const input = schemas.input.safeParse(parsed);
      if (!input.success) return this.#refuse(res, channel, 'IPC_BODY');
      try {
        const output = await spec.handle(input.data as HostIpcInput<C>);
        this.#log.debug('ipc.served', { channel });
        sendJson(res, 200, schemas.output.parse(output));
      } catch (error) {
        const failure = error instanceof HostIpcFailure ? error : undefined;
        this.#log.warn('ipc.failed', { channel, code: failure?.code ?? 'IPC_FAILED' });
        sendJson(
          res,
          failure?.status ?? 500,
          failure
            ? { code: failure.code, message: failure.message }
            : { code: 'IPC_FAILED', message: 'host channel failed' },
        );
      }
    });
  }

  /** Route `POST /_host/ipc/<name>`; `name` is untrusted. */
  async dispatch(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    const channel = hostIpcChannelSchema.safeParse(name);
    const route = channel.success ? this.#routes.get(channel.data) : undefined;
    if (!route) {
      req.resume();
      this.#refuse(res, undefined, 'IPC_CHANNEL');
      return;
    }
    await route(req, res);
  }

  #check(req: IncomingMessage, pages: readonly PagePattern[]): HostIpcRefusal | undefined {
    if (req.method !== 'POST') return 'IPC_METHOD';
    if (!this.#hasSession(req.headers.cookie)) return 'IPC_SESSION';
    if (req.headers.origin !== this.#origin) return 'IPC_ORIGIN';
    const referer = req.headers.referer;
    const page = referer === undefined ? undefined : parseDesktopReferer(referer, this.#origins);
    if (!page) return 'IPC_REFERER';
    if (!pageMatches(page.pathname, pages)) return 'IPC_PAGE';
    return undefined;
  }

  #refuse(res: ServerResponse, channel: HostIpcChannel | undefined, code: HostIpcRefusal): void {
    this.#log.warn('ipc.refused', { channel: channel ?? null, code });
    const { status, message } = REFUSALS[code];
    sendJson(res, status, { code, message });
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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
