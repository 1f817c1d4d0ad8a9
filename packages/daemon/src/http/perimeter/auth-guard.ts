/**
 * SEC-004 perimeter, step 4: `Authorization: Basic base64("bastion:<password>")` with the
 * per-spawn password. The comparison pads both sides to one fixed length and runs
 * timingSafeEqual, so neither the password's length nor a matching prefix shows in timing.
 * Does not catch a caller that already holds the password (the renderer bridge does, by design).
 */
import { timingSafeEqual } from 'node:crypto';
import { DAEMON_AUTH_USER, PERIMETER_MAX_AUTHORIZATION_CHARS } from '@bastion/protocol';
import { wireError } from '../wire-error.js';
import { requestHeaders, setAnswerHeader, type PerimeterGuard } from './perimeter-guard.js';

const BASIC_PREFIX = /^basic +/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Both sides are padded to this size before comparison (a header within the bound decodes to fewer bytes). */
const COMPARE_BYTES = PERIMETER_MAX_AUTHORIZATION_CHARS;

export function authGuard(options: { password: string }): PerimeterGuard {
  const expected = Buffer.from(`${DAEMON_AUTH_USER}:${options.password}`, 'utf8');
  const padded = Buffer.alloc(COMPARE_BYTES);
  expected.copy(padded, 0, 0, COMPARE_BYTES);
  // The given credentials are decoded into one buffer the guard reuses: a guard runs synchronously.
  const given = Buffer.alloc(COMPARE_BYTES);
  const matches = (encoded: string): boolean => {
    given.fill(0);
    const length = given.write(encoded, 'base64');
    return timingSafeEqual(given, padded) && length === expected.length;
  };
  return (c) => {
    const header = requestHeaders(c).header('authorization');
    if (header !== undefined && header.length <= PERIMETER_MAX_AUTHORIZATION_CHARS && BASIC_PREFIX.test(header)) {
      const encoded = header.replace(BASIC_PREFIX, '').trim();
      if (BASE64.test(encoded) && matches(encoded)) return undefined;
    }
    setAnswerHeader(c, 'WWW-Authenticate', 'Basic realm="bastion", charset="UTF-8"');
    return wireError(c, 'PERIMETER_AUTH', 'authentication required');
  };
}
