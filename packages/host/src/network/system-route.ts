/**
 * SEC-004, provider transport: the one route provider requests leave the host by, the system
 * route (HTTP_PROXY / HTTPS_PROXY / NO_PROXY as undici's EnvHttpProxyAgent reads them). undici,
 * about 1 MB of JavaScript, is loaded by the first provider request instead of at start-up.
 */
import type { Dispatcher, request } from 'undici';
import {
  TRANSPORT_BODY_IDLE_TIMEOUT_MS,
  TRANSPORT_CONNECT_TIMEOUT_MS,
  TRANSPORT_HEADERS_TIMEOUT_MS,
} from '@bastion/protocol';

export interface SystemRoute {
  /** undici's `request` and the route's dispatcher; the first call loads and creates them. */
  open(): Promise<{ request: typeof request; dispatcher: Dispatcher }>;
  close(): Promise<void>;
}

/** `ca` adds trust (enterprise TLS inspection, tests). */
export function createSystemRoute(options: { ca?: string | string[] } = {}): SystemRoute {
  let opened: ReturnType<SystemRoute['open']> | undefined;
  return {
    open: () =>
      (opened ??= import('undici').then((loaded) => {
        // undici is CommonJS: its exports object is `default`, under Node's import() and in the CLI's bundle alike.
        const undici = (loaded as unknown as { default: typeof loaded }).default;
        return {
          request: undici.request,
          dispatcher: new undici.EnvHttpProxyAgent({
            connect: { timeout: TRANSPORT_CONNECT_TIMEOUT_MS, ...(options.ca ? { ca: options.ca } : {}) },
            headersTimeout: TRANSPORT_HEADERS_TIMEOUT_MS,
            bodyTimeout: TRANSPORT_BODY_IDLE_TIMEOUT_MS,
          }),
        };
      })),
    async close() {
      if (opened) await (await opened).dispatcher.close();
    },
  };
}
