/**
 * SEC-004: what counts as "a desktop page". The daemon's Referer guard and the host's IPC guard
 * both ask this one question (through perimeter-checks.ts), so they cannot drift apart. Pure: no node:* imports.
 */
import { PERIMETER_MAX_URL_HEADER_CHARS } from './limits.js';
import { DESKTOP_ROUTE_ROOT } from './daemon-api.js';

/** Encoded `/`, `\` and `.` have no business in a desktop path; refusing them closes encoded traversal. */
const ENCODED_SEPARATOR_OR_DOT = /%(2f|5c|2e)/i;
/**
 * A serialized URL holds no whitespace; a header value with some is not one URL (two Referer
 * headers read as one are joined with ", ", and the URL parser would take the second as path).
 */
const WHITESPACE = /\s/;

/** True for `/desktop` and anything under `/desktop/`; `/desktopX` is not a desktop path. */
export function isDesktopPath(path: string): boolean {
  return path === DESKTOP_ROUTE_ROOT || path.startsWith(`${DESKTOP_ROUTE_ROOT}/`);
}

/**
 * The URL of a page the header names, if it is a desktop page of an allowed origin (one URL with
 * no whitespace; after URL normalisation, with no userinfo and no encoded separators or dots);
 * otherwise undefined.
 */
export function parseDesktopReferer(referer: string, allowedOrigins: ReadonlySet<string>): URL | undefined {
  if (referer.length > PERIMETER_MAX_URL_HEADER_CHARS || WHITESPACE.test(referer)) return undefined;
  let url: URL;
  try {
    url = new URL(referer);
  } catch {
    return undefined;
  }
  if (!allowedOrigins.has(url.origin) || url.username !== '' || url.password !== '') return undefined;
  const path = url.pathname;
  if (ENCODED_SEPARATOR_OR_DOT.test(path) || path.includes('\\')) return undefined;
  return isDesktopPath(path) ? url : undefined;
}
