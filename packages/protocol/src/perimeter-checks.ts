/**
 * SEC-004: the Host, Origin and Referer checks, written once. The daemon's perimeter guards
 * (daemon/src/http/perimeter/*) and the host's UI server and IPC guard (host/src/ui/*) each wrap
 * them in their own middleware with their own refusal codes, so the two cannot drift apart on what
 * passes. Pure: no node:* imports. Does not catch a non-browser caller that forges all three
 * headers; the daemon's password and the host-session cookie are the controls for that.
 */
import { parseDesktopReferer } from './desktop-route.js';
import { PERIMETER_MAX_URL_HEADER_CHARS } from './limits.js';

/** The part of a request a check reads: a header by its lower-case name (hono's `c.req` is one). */
export interface PerimeterRequest {
  header(name: string): string | undefined;
}

/** Host is exactly `127.0.0.1:<port>`: a rebound name (`evil.test:<port>`) or `localhost` fails. */
export function hasLoopbackHost(request: PerimeterRequest, port: number): boolean {
  return request.header('host') === `127.0.0.1:${port}`;
}

/** The request's Origin when it is present, within the bound and exactly one allowed origin (no prefix or suffix match; `null` fails). */
export function allowedOriginOf(request: PerimeterRequest, allowed: ReadonlySet<string>): string | undefined {
  const origin = request.header('origin');
  if (origin === undefined || origin.length > PERIMETER_MAX_URL_HEADER_CHARS || !allowed.has(origin)) return undefined;
  return origin;
}

/** The page the Referer names when it is a desktop page of an allowed origin (see parseDesktopReferer). */
export function desktopRefererOf(request: PerimeterRequest, allowed: ReadonlySet<string>): URL | undefined {
  const referer = request.header('referer');
  return referer === undefined ? undefined : parseDesktopReferer(referer, allowed);
}
