/**
 * SEC-004: per-request validation of the provider transport, run by the host before any I/O and
 * again for every redirect hop. Pure functions over the current grant snapshot; each refusal is a
 * stable code the executor sends back as `response.error`.
 *
 * Rules: the URL must already be canonical (so decimal/octal/hex IPv4, IPv6 spellings, case and
 * trailing-dot lookalikes never match a grant by normalisation) and carry no userinfo; its exact
 * origin must be the named grant's; the method must fit the op; forbidden and oversized headers
 * are refused; an asset download is https on the default port, GET/HEAD, with no credentials.
 * A redirect is re-authorised per hop: https→http is refused, and a hop that changes origin while
 * the request carries credentials fails closed.
 */
import {
  isCanonicalUrl,
  TRANSPORT_MAX_HEADER_BYTES_TOTAL,
  TRANSPORT_MAX_REDIRECTS,
  type Grant,
  type TransportErrorCode,
  type TransportOp,
} from '@bastion/protocol';
import type { GrantSnapshot } from './network-authority.js';

export type PolicyResult<T> = ({ ok: true } & T) | { ok: false; code: TransportErrorCode };

const FORBIDDEN_HEADERS = new Set([
  // A request body goes as the bytes the egress guard scanned: none the server would decode first.
  'content-encoding',
  'cookie',
  'cookie2',
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

/** Headers that carry provider credentials; they never follow a cross-origin redirect and never go on an asset download. */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'api-key',
  'chatgpt-account-id',
  'openai-organization',
  'openai-project',
  'x-goog-api-key',
]);

const METHODS: Record<TransportOp, ReadonlySet<string>> = {
  provider: new Set(['GET', 'HEAD', 'POST', 'DELETE']),
  asset: new Set(['GET', 'HEAD']),
};

export interface StartRequest {
  grant_id: string;
  op: TransportOp;
  method: string;
  url: string;
  headers: readonly (readonly [string, string])[];
  has_body: boolean;
}

export interface AuthorizedRequest {
  grant: Grant;
  url: URL;
  /** Headers to send upstream (accept-encoding removed so bodies arrive as the server wrote them). */
  headers: [string, string][];
  carriesCredentials: boolean;
}

function checkOrigin(url: URL, grant: Grant): TransportErrorCode | undefined {
  if (url.origin !== grant.origin) return 'TRANSPORT_ORIGIN_NOT_GRANTED';
  if (grant.op === 'asset' && (url.protocol !== 'https:' || url.port !== '')) return 'TRANSPORT_ASSET_NOT_HTTPS';
  return undefined;
}

export function authorizeStart(request: StartRequest, snapshot: GrantSnapshot): PolicyResult<AuthorizedRequest> {
  const grant = snapshot.grants.find((candidate) => candidate.grant_id === request.grant_id);
  if (!grant) return { ok: false, code: 'GRANT_UNKNOWN' };
  if (grant.op !== request.op) return { ok: false, code: 'TRANSPORT_OP_MISMATCH' };
  if (!isCanonicalUrl(request.url)) return { ok: false, code: 'TRANSPORT_URL_NOT_CANONICAL' };
  const url = new URL(request.url);
  if (url.username !== '' || url.password !== '') return { ok: false, code: 'TRANSPORT_URL_USERINFO' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, code: 'TRANSPORT_URL_SCHEME' };
  const originRefusal = checkOrigin(url, grant);
  if (originRefusal) return { ok: false, code: originRefusal };
  if (!METHODS[request.op].has(request.method)) return { ok: false, code: 'TRANSPORT_METHOD' };
  if (request.has_body && (request.method === 'GET' || request.method === 'HEAD')) {
    return { ok: false, code: 'TRANSPORT_BODY_NOT_ALLOWED' };
  }
  let total = 0;
  let carriesCredentials = false;
  const headers: [string, string][] = [];
  for (const [rawName, value] of request.headers) {
    const name = rawName.toLowerCase();
    total += name.length + value.length + 4;
    if (FORBIDDEN_HEADERS.has(name) || name.startsWith('proxy-'))
      return { ok: false, code: 'TRANSPORT_HEADER_FORBIDDEN' };
    if (CREDENTIAL_HEADERS.has(name)) carriesCredentials = true;
    if (name === 'accept-encoding') continue;
    headers.push([name, value]);
  }
  if (total > TRANSPORT_MAX_HEADER_BYTES_TOTAL) return { ok: false, code: 'TRANSPORT_HEADERS_TOO_LARGE' };
  if (request.op === 'asset' && carriesCredentials) return { ok: false, code: 'TRANSPORT_ASSET_CREDENTIALS' };
  return { ok: true, grant, url, headers, carriesCredentials };
}

export interface RedirectHop {
  grant: Grant;
  url: URL;
}

/** Authorise following a `Location` from `current`; `hops` is how many redirects were already followed. */
export function authorizeRedirect(options: {
  current: URL;
  location: string;
  op: TransportOp;
  carriesCredentials: boolean;
  hops: number;
  snapshot: GrantSnapshot;
}): PolicyResult<RedirectHop> {
  if (options.hops >= TRANSPORT_MAX_REDIRECTS) return { ok: false, code: 'TRANSPORT_TOO_MANY_REDIRECTS' };
  let next: URL;
  try {
    next = new URL(options.location, options.current);
  } catch {
    return { ok: false, code: 'TRANSPORT_REDIRECT_INVALID' };
  }
  if (next.username !== '' || next.password !== '') return { ok: false, code: 'TRANSPORT_REDIRECT_INVALID' };
  if (next.protocol !== 'http:' && next.protocol !== 'https:') return { ok: false, code: 'TRANSPORT_REDIRECT_INVALID' };
  if (options.current.protocol === 'https:' && next.protocol === 'http:') {
    return { ok: false, code: 'TRANSPORT_REDIRECT_DOWNGRADE' };
  }
  if (next.origin !== options.current.origin && options.carriesCredentials) {
    return { ok: false, code: 'TRANSPORT_REDIRECT_CREDENTIALS' };
  }
  const grant = options.snapshot.grants.find(
    (candidate) => candidate.origin === next.origin && candidate.op === options.op,
  );
  if (!grant) return { ok: false, code: 'TRANSPORT_REDIRECT_NOT_GRANTED' };
  const originRefusal = checkOrigin(next, grant);
  if (originRefusal) return { ok: false, code: originRefusal };
  next.hash = '';
  return { ok: true, grant, url: next };
}
