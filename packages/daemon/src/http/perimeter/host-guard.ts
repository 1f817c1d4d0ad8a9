/**
 * SEC-004 perimeter, step 1: the Host header must be exactly `127.0.0.1:<attested port>`.
 * Defeats DNS rebinding: a page on evil.test that rebinds its name to 127.0.0.1 still sends
 * `Host: evil.test:<port>`. Does not catch a local process that sets Host itself; the
 * Origin, Referer and password guards that follow do.
 */
import type { MiddlewareHandler } from 'hono';
import { hasLoopbackHost } from '@bastion/protocol';
import { wireError } from '../wire-error.js';

export function makeHostGuard(options: { port: number }): MiddlewareHandler {
  return async (c, next) => {
    if (!hasLoopbackHost(c.req, options.port)) {
      return wireError(c, 'PERIMETER_HOST', 'Host header is not the daemon address');
    }
    await next();
    return undefined;
  };
}
