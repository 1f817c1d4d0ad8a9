/**
 * SEC-004 perimeter, step 3: Referer must be present, of an allowlisted origin, with a path that
 * is exactly the desktop route root or under it after URL normalisation. `/desktopX`,
 * `/desktop/../x` and percent-encoded separators or dots are refused. Does not catch script
 * already running inside a /desktop page; the password guard and CSP are separate controls.
 */
import type { MiddlewareHandler } from 'hono';
import { DESKTOP_ROUTE_ROOT, PERIMETER_MAX_URL_HEADER_CHARS } from '@bastion/protocol';
import { wireError } from '../wire-error.js';

/** Encoded `/`, `\` and `.` have no business in a desktop path; refusing them closes encoded traversal. */
const ENCODED_SEPARATOR_OR_DOT = /%(2f|5c|2e)/i;

export function isDesktopReferer(referer: string, allowedOrigins: ReadonlySet<string>): boolean {
  if (referer.length > PERIMETER_MAX_URL_HEADER_CHARS) return false;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return false;
  }
  if (!allowedOrigins.has(url.origin) || url.username !== '' || url.password !== '') return false;
  const path = url.pathname;
  if (ENCODED_SEPARATOR_OR_DOT.test(path) || path.includes('\\')) return false;
  return path === DESKTOP_ROUTE_ROOT || path.startsWith(`${DESKTOP_ROUTE_ROOT}/`);
}

export function makeRefererGuard(options: { allowedOrigins: readonly string[] }): MiddlewareHandler {
  const allowed = new Set(options.allowedOrigins);
  return async (c, next) => {
    const referer = c.req.header('referer');
    if (referer === undefined || !isDesktopReferer(referer, allowed)) {
      return wireError(c, 403, 'PERIMETER_REFERER', 'Referer is not a desktop page');
    }
    await next();
    return undefined;
  };
}
