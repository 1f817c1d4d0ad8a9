/**
 * SEC-008: the loopback callback of one ChatGPT sign-in attempt. It binds the registered port
 * (then the fallback) on both 127.0.0.1 and ::1 before any browser is opened, and accepts exactly
 * one callback: a loopback peer, `Host: localhost:<port>`, GET, path `/auth/callback`, no body, a
 * short target with few parameters, no repeated state/code/error, and the attempt's state (compared
 * as SHA-256 digests in constant time). A refused callback never consumes the attempt, so a web page
 * that fires requests at the port cannot abort a login; the first valid one claims it atomically and
 * later ones get 409. Timeout, cancellation and completion all close the listener. Pages reflect
 * nothing from the request and forbid every resource by CSP.
 *
 * Does not catch: a local process that reads the browser's address bar or the authorization server's
 * redirect first (the PKCE verifier, held by the daemon, is what makes a stolen code useless).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CHATGPT_CALLBACK_MAX_HEADER_BYTES,
  CHATGPT_CALLBACK_MAX_QUERY_PARAMS,
  CHATGPT_CALLBACK_MAX_TARGET_BYTES,
  CHATGPT_CALLBACK_REQUEST_TIMEOUT_MS,
  CHATGPT_MAX_CODE_CHARS,
  CHATGPT_MAX_STATE_CHARS,
  CHATGPT_OAUTH_ATTEMPT_TTL_MS,
  WIRE_ERROR_STATUS,
  type CallbackErrorCode,
  type Logger,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { CHATGPT_CALLBACK_HOSTNAME, CHATGPT_CALLBACK_PATH, chatgptRedirectUri } from './chatgpt-oauth-config.js';

/** What the first valid callback carried. `denied`: the authorization server answered with `error`. */
export type CallbackClaim = { kind: 'code'; code: string; state: string } | { kind: 'denied' };

/** How the attempt's listener ended. */
export type CallbackEnd = 'completed' | 'failed' | 'denied' | 'timeout' | 'cancelled';

const PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Fixed pages: no value from the request (not even `error`) is ever placed in one. */
const PAGES = {
  completed: 'ChatGPT account connected. You can close this tab and return to Bastion.',
  failed: 'Sign-in did not complete. Return to Bastion and try again.',
  refused: 'This sign-in request was refused.',
} as const;

function page(res: ServerResponse, status: number, text: string): void {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>Bastion</title></head><body><p>${text}</p></body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': PAGE_CSP,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    connection: 'close',
    ...(status === 405 ? { allow: 'GET' } : {}),
  });
  res.end(body);
}

export function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  if (address === '::1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function countHeader(req: IncomingMessage, name: string): number {
  let count = 0;
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    if (req.rawHeaders[index]?.toLowerCase() === name) count += 1;
  }
  return count;
}

export interface CallbackListenerOptions {
  /** Ports to try in order: the registered one, then the fallback. */
  ports: readonly number[];
  log: Logger;
  timeoutMs?: number;
  /** Runs once, for the claiming callback; resolves true when the sign-in completed. */
  onClaim: (claim: CallbackClaim) => Promise<boolean>;
}

type Parsed = { ok: true; claim: CallbackClaim } | { ok: false; code: CallbackErrorCode };

export class CallbackListener {
  readonly port: number;
  readonly redirectUri: string;
  /** Resolves once, when the listener has closed, with how the attempt ended. */
  readonly ended: Promise<CallbackEnd>;
  readonly #servers: Server[];
  readonly #log: Logger;
  readonly #onClaim: (claim: CallbackClaim) => Promise<boolean>;
  readonly #timer: NodeJS.Timeout;
  #expectedDigest: Buffer | undefined;
  #claimed = false;
  #end: CallbackEnd | undefined;
  #resolveEnded: (end: CallbackEnd) => void = () => undefined;

  private constructor(port: number, servers: Server[], options: CallbackListenerOptions) {
    this.port = port;
    this.redirectUri = chatgptRedirectUri(port);
    this.#servers = servers;
    this.#log = options.log;
    this.#onClaim = options.onClaim;
    this.ended = new Promise((resolve) => (this.#resolveEnded = resolve));
    for (const server of servers)
      server.on('request', (req: IncomingMessage, res: ServerResponse) => this.#handle(req, res));
    this.#timer = setTimeout(() => this.#finish('timeout'), options.timeoutMs ?? CHATGPT_OAUTH_ATTEMPT_TTL_MS);
    this.#timer.unref();
  }

  /** Bind the first free port on both loopbacks; fails with OAUTH_CALLBACK_PORT when none is free. */
  static async open(options: CallbackListenerOptions): Promise<CallbackListener> {
    for (const port of options.ports) {
      const servers = await bindBothLoopbacks(port, options.log);
      if (servers) return new CallbackListener((servers[0]?.address() as AddressInfo).port, servers, options);
      options.log.warn('chatgpt.callback-port-busy', { port });
    }
    throw new HostError('OAUTH_CALLBACK_PORT', 'no callback port is free');
  }

  /** Accept callbacks for this state from now on (the daemon chose it; the host checked the URL). */
  arm(state: string): void {
    this.#expectedDigest = digest(state);
  }

  get open(): boolean {
    return this.#end === undefined;
  }

  /** End the attempt now (cancel, sign-out, a failed start); the listener closes. */
  cancel(): Promise<CallbackEnd> {
    this.#finish('cancelled');
    return this.ended;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const parsed = this.#parse(req);
    if (!parsed.ok) {
      const status = WIRE_ERROR_STATUS[parsed.code];
      this.#log.warn('chatgpt.callback-refused', { code: parsed.code, status });
      page(res, status, PAGES.refused);
      return;
    }
    // The claim: synchronous from the check above to here, so exactly one request wins.
    this.#claimed = true;
    this.#log.info('chatgpt.callback-claimed', { reason: parsed.claim.kind });
    // The listener closes once the final page is out (a cancel meanwhile closes it at once).
    const answer = (text: string, end: CallbackEnd) => {
      res.once('close', () => this.#finish(end));
      page(res, 200, text);
    };
    if (parsed.claim.kind === 'denied') {
      answer(PAGES.failed, 'denied');
      return;
    }
    this.#onClaim(parsed.claim).then(
      (completed) => answer(completed ? PAGES.completed : PAGES.failed, completed ? 'completed' : 'failed'),
      () => answer(PAGES.failed, 'failed'),
    );
  }

  #parse(req: IncomingMessage): Parsed {
    if (!isLoopbackPeer(req.socket.remoteAddress)) return { ok: false, code: 'CALLBACK_PEER' };
    const target = req.url ?? '';
    if (Buffer.byteLength(target, 'utf8') > CHATGPT_CALLBACK_MAX_TARGET_BYTES)
      return { ok: false, code: 'CALLBACK_TARGET_TOO_LONG' };
    if (countHeader(req, 'host') !== 1 || req.headers.host !== `${CHATGPT_CALLBACK_HOSTNAME}:${this.port}`) {
      return { ok: false, code: 'CALLBACK_HOST' };
    }
    if (req.method !== 'GET') return { ok: false, code: 'CALLBACK_METHOD' };
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
      return { ok: false, code: 'CALLBACK_BODY' };
    }
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    if (path !== CHATGPT_CALLBACK_PATH) return { ok: false, code: 'CALLBACK_PATH' };
    const query = queryAt === -1 ? '' : target.slice(queryAt + 1);
    if (query.split('&').length > CHATGPT_CALLBACK_MAX_QUERY_PARAMS) return { ok: false, code: 'CALLBACK_PARAMS' };
    const params = new URLSearchParams(query);
    for (const name of ['state', 'code', 'error']) {
      if (params.getAll(name).length > 1) return { ok: false, code: 'CALLBACK_DUPLICATE' };
    }
    const state = params.get('state');
    if (state === null || state.length > CHATGPT_MAX_STATE_CHARS || !this.#stateMatches(state)) {
      return { ok: false, code: 'CALLBACK_STATE' };
    }
    if (this.#claimed || this.#end !== undefined) return { ok: false, code: 'CALLBACK_CLAIMED' };
    if (params.has('error')) return { ok: true, claim: { kind: 'denied' } };
    const code = params.get('code');
    if (code === null || code.length === 0 || code.length > CHATGPT_MAX_CODE_CHARS)
      return { ok: false, code: 'CALLBACK_CODE' };
    return { ok: true, claim: { kind: 'code', code, state } };
  }

  #stateMatches(state: string): boolean {
    const expected = this.#expectedDigest;
    if (!expected) return false;
    return timingSafeEqual(digest(state), expected);
  }

  #finish(end: CallbackEnd): void {
    if (this.#end !== undefined) return;
    this.#end = end;
    this.#claimed = true;
    this.#expectedDigest = undefined;
    clearTimeout(this.#timer);
    this.#log.info('chatgpt.callback-closed', { reason: end });
    void Promise.all(
      this.#servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            // Every answer is final by now (or no longer wanted): nothing stays open.
            server.closeAllConnections();
          }),
      ),
    ).then(() => this.#resolveEnded(end));
  }
}

function listen(server: Server, port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const onError = (error: NodeJS.ErrnoException) => resolve(error);
    server.once('error', onError);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', onError);
      resolve(undefined);
    });
  });
}

function newServer(): Server {
  return createServer({
    maxHeaderSize: CHATGPT_CALLBACK_MAX_HEADER_BYTES,
    headersTimeout: CHATGPT_CALLBACK_REQUEST_TIMEOUT_MS,
    requestTimeout: CHATGPT_CALLBACK_REQUEST_TIMEOUT_MS,
  });
}

/** Both loopbacks on one port, or undefined when the port is taken. ::1 may be absent (no IPv6). */
async function bindBothLoopbacks(port: number, log: Logger): Promise<Server[] | undefined> {
  const v4 = newServer();
  const v4Error = await listen(v4, port, '127.0.0.1');
  if (v4Error) {
    if (v4Error.code === 'EADDRINUSE' || v4Error.code === 'EACCES') return undefined;
    throw new HostError('OAUTH_CALLBACK_PORT', 'the callback listener could not start', { cause: v4Error });
  }
  const v6 = newServer();
  // Port 0 (tests) means the one the OS gave 127.0.0.1.
  const v6Error = await listen(v6, (v4.address() as AddressInfo).port, '::1');
  if (!v6Error) return [v4, v6];
  if (v6Error.code === 'EADDRNOTAVAIL' || v6Error.code === 'EAFNOSUPPORT') {
    log.warn('chatgpt.callback-no-ipv6', { port });
    return [v4];
  }
  await new Promise<void>((resolve) => v4.close(() => resolve()));
  if (v6Error.code === 'EADDRINUSE' || v6Error.code === 'EACCES') return undefined;
  throw new HostError('OAUTH_CALLBACK_PORT', 'the callback listener could not start', { cause: v6Error });
}
