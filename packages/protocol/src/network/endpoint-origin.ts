/**
 * SEC-004: which origins a custom (user-defined) provider endpoint may have, and the canonical
 * form every transport URL must already be in. Shared by the host (which grants), the daemon
 * (which stores endpoint definitions) and the CLI (which refuses with exit 2), so all three
 * agree byte for byte.
 *
 * Only `localhost`, `*.localhost` and IP literals are eligible: for any other host name the
 * proxy (NO_PROXY/PAC) choice and the DNS answer cannot be bound to the connection that is
 * finally made, so a grant for "my-gpu-box.local" would really be a grant for whatever that name
 * resolves to at request time. Does not catch: an IP literal the user consented to that routes
 * somewhere unexpected — the consent prompt shows the route posture for that reason.
 */
import type { EndpointUrlErrorCode } from '../error-codes.js';
import { ENDPOINTS_MAX_URL_CHARS } from '../limits.js';

export const ENDPOINT_ELIGIBILITY_HINT =
  'only localhost, *.localhost and IP literals (IPv4, [IPv6]) are eligible for custom endpoints, because the proxy and DNS route of any other host name cannot be bound to the connection';

export type EndpointHostKind = 'localhost' | 'ipv4' | 'ipv6';

export type EndpointUrlCheck =
  | { ok: true; origin: string; baseUrl: string; hostKind: EndpointHostKind }
  | { ok: false; code: EndpointUrlErrorCode; message: string };

const LOCALHOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const DOTTED_IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}$/;

function refuse(code: EndpointUrlErrorCode, message: string): EndpointUrlCheck {
  return { ok: false, code, message };
}

/** The kind of an already-canonical WHATWG hostname, or undefined when it is not eligible. */
export function endpointHostKind(hostname: string): EndpointHostKind | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return 'ipv6';
  // The WHATWG parser has already turned decimal, octal and hex IPv4 forms into dotted decimal.
  if (DOTTED_IPV4.test(hostname)) return 'ipv4';
  if (hostname === 'localhost') return 'localhost';
  if (hostname.endsWith('.localhost')) {
    const labels = hostname.slice(0, -'.localhost'.length).split('.');
    if (labels.every((label) => LOCALHOST_LABEL.test(label))) return 'localhost';
  }
  return undefined;
}

/**
 * Check a user-supplied endpoint base URL (`http://127.0.0.1:11434/v1`). On success the origin is
 * the canonical exact origin a grant is made for, and baseUrl is origin + path without a trailing
 * slash.
 */
export function checkEndpointUrl(raw: string): EndpointUrlCheck {
  if (raw.length === 0 || raw.length > ENDPOINTS_MAX_URL_CHARS) {
    return refuse('ENDPOINT_URL_INVALID', 'endpoint URL is empty or too long');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('ENDPOINT_URL_INVALID', 'endpoint URL is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse('ENDPOINT_URL_SCHEME', 'endpoint URL must be http: or https:');
  }
  if (url.username !== '' || url.password !== '') {
    return refuse(
      'ENDPOINT_URL_USERINFO',
      'endpoint URL must not carry a user name or password; store keys with `bastion secrets set`',
    );
  }
  if (url.search !== '' || url.hash !== '' || raw.includes('?') || raw.includes('#')) {
    return refuse('ENDPOINT_URL_QUERY', 'endpoint URL must not carry a query or fragment');
  }
  const hostKind = endpointHostKind(url.hostname);
  if (hostKind === undefined) {
    return refuse('ENDPOINT_HOST_INELIGIBLE', `endpoint host is not eligible: ${ENDPOINT_ELIGIBILITY_HINT}`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  return { ok: true, origin: url.origin, baseUrl: `${url.origin}${path}`, hostKind };
}

/** True when `raw` is exactly its own WHATWG serialisation (no alternative IP forms, case, dot segments…). */
export function isCanonicalUrl(raw: string): boolean {
  try {
    return new URL(raw).href === raw;
  } catch {
    return false;
  }
}
