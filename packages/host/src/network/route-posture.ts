/**
 * What a consent prompt shows besides the canonical origin: the route a request to it would take
 * from this host (direct, or through the HTTP(S)_PROXY that undici's EnvHttpProxyAgent would pick
 * given NO_PROXY) and what kind of address it names. The user consents to both.
 */
import { isIP } from 'node:net';
import { endpointHostKind } from '@bastion/protocol';

export type AddressClass = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'public' | 'localhost-name';

export interface RoutePosture {
  origin: string;
  address: AddressClass;
  route: 'direct' | 'proxy';
  /** The proxy's origin (never its credentials), when route is 'proxy'. */
  proxy?: string;
  /** One line for prompts and logs. */
  summary: string;
}

function classifyAddress(hostname: string): AddressClass {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (endpointHostKind(hostname) === 'localhost') return 'localhost-name';
  if (isIP(bare) === 4) {
    const [a = 0, b = 0] = bare.split('.').map(Number);
    if (a === 127) return 'loopback';
    if (a === 0) return 'unspecified';
    if (
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    ) {
      return 'private';
    }
    if (a === 169 && b === 254) return 'link-local';
    return 'public';
  }
  const lower = bare.toLowerCase();
  if (lower === '::1') return 'loopback';
  if (lower === '::') return 'unspecified';
  if (lower.startsWith('::ffff:')) return 'public';
  if (/^f[cd][0-9a-f]{2}:/.test(lower)) return 'private';
  if (/^fe[89ab][0-9a-f]:/.test(lower)) return 'link-local';
  return 'public';
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name.toLowerCase()] ?? env[name.toUpperCase()] ?? undefined;
}

/** NO_PROXY as undici reads it: `*`, or comma/space separated host[:port] entries, a leading dot meaning "and subdomains". */
function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[,\s]+/)) {
    if (raw === '') continue;
    if (raw === '*') return true;
    const match = /^(.*?)(?::(\d+))?$/.exec(raw.replace(/^\[|\](?=:|$)/g, ''));
    const entryHost = (match?.[1] ?? '').replace(/^\*?\./, '').toLowerCase();
    const entryPort = match?.[2];
    if (entryPort !== undefined && entryPort !== port) continue;
    if (host === entryHost || host.endsWith(`.${entryHost}`)) return true;
  }
  return false;
}

export function describeRoutePosture(origin: string, env: NodeJS.ProcessEnv = process.env): RoutePosture {
  const url = new URL(origin);
  const address = classifyAddress(url.hostname);
  const proxyRaw = envValue(env, url.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  const bypass = bypassesProxy(url, envValue(env, 'no_proxy'));
  let proxy: string | undefined;
  if (proxyRaw && !bypass) {
    try {
      proxy = new URL(proxyRaw).origin;
    } catch {
      proxy = 'an unparsable proxy setting';
    }
  }
  const where = address === 'localhost-name' ? 'a name under localhost' : `a ${address} address`;
  const summary = proxy
    ? `${where}, reached through the proxy ${proxy}`
    : `${where}, reached directly${proxyRaw ? ' (NO_PROXY bypasses the proxy)' : ' (no proxy configured)'}`;
  return { origin, address, route: proxy ? 'proxy' : 'direct', ...(proxy ? { proxy } : {}), summary };
}
