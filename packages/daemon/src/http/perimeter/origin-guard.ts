/**
 * SEC-004 perimeter, step 2: Origin must be present and exactly one allowlisted origin
 * (scheme, host and port; no prefix or suffix matching; `null` refused). CORS preflight is
 * answered here, only for allowlisted origins, echoing that exact origin, never `*` and never
 * with credentials mode. Does not catch a non-browser caller that forges Origin; the password
 * guard does.
 */
import type { MiddlewareHandler } from 'hono';
import { allowedOriginOf } from '@bastion/protocol';
import { wireError } from '../wire-error.js';

const PREFLIGHT_ALLOW_METHODS = 'GET, POST, PATCH, DELETE';
const PREFLIGHT_ALLOW_HEADERS = 'authorization, content-type, last-event-id';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

export function makeOriginGuard(options: { allowedOrigins: readonly string[] }): MiddlewareHandler {
  const allowed = new Set(options.allowedOrigins);
  return async (c, next) => {
    const origin = allowedOriginOf(c.req, allowed);
    if (origin === undefined) {
      return wireError(c, 'PERIMETER_ORIGIN', 'Origin is not allowed');
    }
    c.header('Access-Control-Allow-Origin', origin);
    c.header('Vary', 'Origin');
    if (c.req.method === 'OPTIONS') {
      c.header('Access-Control-Allow-Methods', PREFLIGHT_ALLOW_METHODS);
      c.header('Access-Control-Allow-Headers', PREFLIGHT_ALLOW_HEADERS);
      c.header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
      return c.body(null, 204);
    }
    await next();
    return undefined;
  };
}
