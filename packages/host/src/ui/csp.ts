/**
 * SEC-004 "CSP-strict /desktop/* routes": the Content-Security-Policy of every desktop HTML
 * response, as a pure function. Scripts run only with this response's nonce (and what they load,
 * via 'strict-dynamic'); the only network peer besides the UI origin is the daemon's exact
 * loopback origin. Inputs are checked against tight shapes, so a value can never close a
 * directive and open another (`; script-src *`) or add a source (`'unsafe-inline'`).
 * Does not catch a trusted script that was compromised before it reached the page.
 */
import { HostError } from '../errors.js';

/** base64 or base64url, at least 128 bits. */
const NONCE = /^[A-Za-z0-9+/_-]{22,}={0,2}$/;
const DAEMON_ORIGIN = /^http:\/\/127\.0\.0\.1:([1-9][0-9]{0,4})$/;

export interface DesktopCspInput {
  /** Fresh for every response. */
  nonce: string;
  /** `http://127.0.0.1:<daemon port>`, exactly. */
  daemonOrigin: string;
}

export function buildDesktopCsp(input: DesktopCspInput): string {
  if (!NONCE.test(input.nonce)) {
    throw new HostError('CSP_VALUE', 'CSP nonce must be base64 of at least 128 bits');
  }
  const port = DAEMON_ORIGIN.exec(input.daemonOrigin)?.[1];
  if (port === undefined || Number(port) > 65_535) {
    throw new HostError('CSP_VALUE', 'CSP daemon origin must be http://127.0.0.1:<port>');
  }
  const nonce = `'nonce-${input.nonce}'`;
  return [
    `default-src 'self'`,
    `script-src ${nonce} 'strict-dynamic'`,
    `style-src 'self' ${nonce}`,
    `img-src 'self' data: blob:`,
    `font-src 'self'`,
    `connect-src 'self' ${input.daemonOrigin}`,
    `frame-ancestors 'none'`,
    `object-src 'none'`,
    `base-uri 'none'`,
    `form-action 'self'`,
  ].join('; ');
}
