/**
 * SEC-004 perimeter, step 4: `Authorization: Basic base64("bastion:<password>")` with the
 * per-spawn password. The comparison pads both sides to one fixed length and runs
 * timingSafeEqual, so neither the password's length nor a matching prefix shows in timing.
 * Does not catch a caller that already holds the password (the renderer bridge does, by design).
 */
import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { DAEMON_AUTH_USER, PERIMETER_MAX_AUTHORIZATION_CHARS } from '@bastion/protocol';
import { wireError } from '../wire-error.js';

const BASIC_PREFIX = /^basic +/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Both sides are copied into buffers of this size before comparison. */
const COMPARE_BYTES = PERIMETER_MAX_AUTHORIZATION_CHARS;

function paddedEquals(given: Buffer, expected: Buffer): boolean {
  const a = Buffer.alloc(COMPARE_BYTES);
  const b = Buffer.alloc(COMPARE_BYTES);
  given.copy(a, 0, 0, COMPARE_BYTES);
  expected.copy(b, 0, 0, COMPARE_BYTES);
  const same = timingSafeEqual(a, b);
  return same && given.length === expected.length;
}

export function makeAuthGuard(options: { password: string }): MiddlewareHandler {
  const expected = Buffer.from(`${DAEMON_AUTH_USER}:${options.password}`, 'utf8');
  return async (c, next) => {
    const header = c.req.header('authorization');
    let credentials: Buffer | undefined;
    if (header !== undefined && header.length <= PERIMETER_MAX_AUTHORIZATION_CHARS && BASIC_PREFIX.test(header)) {
      const encoded = header.replace(BASIC_PREFIX, '').trim();
      if (BASE64.test(encoded)) credentials = Buffer.from(encoded, 'base64');
    }
    if (credentials === undefined || !paddedEquals(credentials, expected)) {
      c.header('WWW-Authenticate', 'Basic realm="bastion", charset="UTF-8"');
      return wireError(c, 'PERIMETER_AUTH', 'authentication required');
    }
    await next();
    return undefined;
  };
}
