/**
 * SEC-004 perimeter, step 1: the Host header must be exactly `127.0.0.1:<attested port>`.
 * Defeats DNS rebinding: a page on evil.test that rebinds its name to 127.0.0.1 still sends
 * `Host: evil.test:<port>`. Does not catch a local process that sets Host itself; the
 * Origin, Referer and password guards that follow do.
 */
import { hasLoopbackHost } from '@bastion/protocol';
import { wireError } from '../wire-error.js';
import { requestHeaders, type PerimeterGuard } from './perimeter-guard.js';

export function hostGuard(options: { port: number }): PerimeterGuard {
  return (c) =>
    hasLoopbackHost(requestHeaders(c), options.port)
      ? undefined
      : wireError(c, 'PERIMETER_HOST', 'Host header is not the daemon address');
}
