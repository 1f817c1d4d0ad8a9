/**
 * SEC-004 perimeter, step 3: Referer must be present, of an allowlisted origin, with a path that
 * is exactly the desktop route root or under it after URL normalisation. `/desktopX`,
 * `/desktop/../x` and percent-encoded separators or dots are refused. Does not catch script
 * already running inside a /desktop page; the password guard and CSP are separate controls.
 */
import type { MiddlewareHandler } from 'hono';
import { desktopRefererOf } from '@bastion/protocol';
import { wireError } from '../wire-error.js';

export function makeRefererGuard(options: { allowedOrigins: readonly string[] }): MiddlewareHandler {
  const allowed = new Set(options.allowedOrigins);
  return async (c, next) => {
    if (desktopRefererOf(c.req, allowed) === undefined) {
      return wireError(c, 'PERIMETER_REFERER', 'Referer is not a desktop page');
    }
    await next();
    return undefined;
  };
}
