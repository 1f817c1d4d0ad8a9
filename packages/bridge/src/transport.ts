/**
 * SEC-004 "secrets discipline" in the renderer: the daemon password is fetched from guarded host
 * IPC for each daemon request (requests that start while one lookup is in flight share it) and
 * lives only in closures until that lookup settles; it is never stored, put on window, or placed
 * in a URL. The fetch and btoa used here are captured when the bridge installs
 * (before any page script runs), so page script that later replaces window.fetch never sees the
 * Authorization header. Host IPC calls carry the page key (page-key.ts) besides the cookie; daemon
 * requests carry neither. Does not catch script inside /desktop calling host IPC itself: a desktop
 * page is inside the boundary by design.
 */
import {
  HOST_IPC_PAGE_KEY_HEADER,
  WIRE_ERROR_STATUS,
  type HostIpcChannel,
  type HostIpcInput,
  type HostIpcOutput,
} from '@bastion/protocol';
import { BridgeError } from './bridge-error.js';

const HOST_IPC_PREFIX = '/_host/ipc/';
const AUTH_USER = 'bastion';
/** The daemon's answer when its perimeter refuses the password: a replaced sidecar's, here. */
const STALE_PASSWORD_STATUS = WIRE_ERROR_STATUS.PERIMETER_AUTH;

export interface Transport {
  host: <C extends HostIpcChannel>(channel: C, input: HostIpcInput<C>) => Promise<HostIpcOutput<C>>;
  /**
   * A daemon request. Reads, and requests marked `repeatable` (the daemon answers a repeat as it
   * answered the first), are asked once more when they got no answer; nothing else is.
   */
  daemon: <T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    options?: { repeatable?: boolean },
  ) => Promise<T>;
  /** Open a daemon response stream (server-sent events); the caller reads the body. */
  daemonStream: (path: string, headers: Record<string, string>, signal?: AbortSignal) => Promise<Response>;
}

/** Daemon requests that change nothing: GETs, and the handshake (a POST that only reads). */
function isRead(method: string, path: string, payload: string | undefined): boolean {
  return payload === undefined && (method === 'GET' || (method === 'POST' && path === '/handshake'));
}

/** `pageKey` reads the host session's page key (page-key.ts); it goes only to host IPC. */
export function createTransport(pageKey: () => string | undefined): Transport {
  const nativeFetch = window.fetch.bind(window);
  const nativeBtoa = window.btoa.bind(window);
  const encoder = new TextEncoder();

  async function send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await nativeFetch(url, init);
    } catch {
      throw new BridgeError('UNREACHABLE', 'the agent could not be reached');
    }
  }

  async function failure(response: Response): Promise<BridgeError> {
    try {
      const body = (await response.json()) as { code?: unknown; message?: unknown };
      if (typeof body.code === 'string' && typeof body.message === 'string') {
        return new BridgeError(body.code, body.message, response.status);
      }
    } catch {
      // Not a wire error; fall through to a generic one.
    }
    return new BridgeError('HTTP_ERROR', `request failed with status ${response.status}`, response.status);
  }

  async function host<C extends HostIpcChannel>(channel: C, input: HostIpcInput<C>): Promise<HostIpcOutput<C>> {
    const key = pageKey();
    // Without a key the host refuses with IPC_PAGE_KEY, whose message tells the person what to do.
    const headers: Record<string, string> =
      key === undefined
        ? { 'content-type': 'application/json' }
        : { 'content-type': 'application/json', [HOST_IPC_PAGE_KEY_HEADER]: key };
    const response = await send(`${HOST_IPC_PREFIX}${channel}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(input),
      credentials: 'same-origin',
      // The document's policy is no-referrer; host IPC needs to see which desktop page asks.
      referrerPolicy: 'same-origin',
      cache: 'no-store',
    });
    if (!response.ok) throw await failure(response);
    return (await response.json()) as HostIpcOutput<C>;
  }

  /** Base64 of UTF-8 `bastion:<password>`; btoa alone takes only Latin-1. */
  function basic(password: string): string {
    let binary = '';
    for (const byte of encoder.encode(`${AUTH_USER}:${password}`)) binary += String.fromCharCode(byte);
    return `Basic ${nativeBtoa(binary)}`;
  }

  /**
   * One server-info lookup for every request that starts while it is in flight (a page opening
   * asks for several things at once); forgotten as it settles, so the next request follows a
   * restarted sidecar's new port and password.
   */
  let lookup: Promise<HostIpcOutput<'agent.server-info'>> | undefined;
  function serverInfo(): Promise<HostIpcOutput<'agent.server-info'>> {
    lookup ??= host('agent.server-info', {}).finally(() => {
      lookup = undefined;
    });
    return lookup;
  }

  async function daemonRequest(
    method: string,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Response> {
    const { port, password } = await serverInfo();
    return send(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { ...headers, authorization: basic(password) },
      body,
      signal,
      // The daemon's perimeter checks the Referer path: send the full desktop URL to it...
      referrerPolicy: 'unsafe-url',
      // ...and never the host-session cookie (cookies do not separate loopback ports).
      credentials: 'omit',
      mode: 'cors',
      cache: 'no-store',
    });
  }

  /**
   * A read, or a send the daemon answers a repeat of as it answered the first (its client-chosen
   * id), asked once more with a fresh server-info lookup when it got no answer or the daemon's
   * perimeter refused its password: the sidecar it was sent to was being replaced (a restart, a
   * granted folder), and the lookup waits for the new one. Nothing else is asked twice: a request
   * that changes something may have reached the old sidecar before it died.
   */
  async function daemonRepeatable(
    method: string,
    path: string,
    headers: Record<string, string>,
    payload: string | undefined,
  ): Promise<Response> {
    const ask = () => daemonRequest(method, path, headers, payload, undefined);
    let response: Response;
    try {
      response = await ask();
    } catch {
      return ask();
    }
    if (response.status !== STALE_PASSWORD_STATUS) return response;
    await response.body?.cancel();
    return ask();
  }

  return {
    host,
    async daemon<T>(
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      body?: unknown,
      options: { repeatable?: boolean } = {},
    ): Promise<T> {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': 'application/json' };
      const response =
        options.repeatable === true || isRead(method, path, payload)
          ? await daemonRepeatable(method, path, headers, payload)
          : await daemonRequest(method, path, headers, payload, undefined);
      if (!response.ok) throw await failure(response);
      if (response.status === 204) return undefined as T;
      const text = await response.text();
      return (text === '' ? undefined : JSON.parse(text)) as T;
    },
    async daemonStream(path, headers, signal) {
      const response = await daemonRequest('GET', path, { accept: 'text/event-stream', ...headers }, undefined, signal);
      if (!response.ok) throw await failure(response);
      return response;
    },
  };
}
