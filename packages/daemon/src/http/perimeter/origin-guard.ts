/**
 * SEC-004 perimeter, step 2: Origin must be present and exactly one allowlisted origin
 * (scheme, host and port; no prefix or suffix matching; `null` refused). With `cors`, CORS
 * preflight is answered here, only for allowlisted origins, echoing that exact origin, never `*`
 * and never with credentials mode; the host's IPC route runs it without, so none of its answers
 * carries a CORS header. Does not catch a non-browser caller that forges Origin; the password
 * guard does.
 */
import { allowedOriginOf } from '@bastion/protocol';
import {
  refuseWith,
  requestHeaders,
  setAnswerHeader,
  type GuardRefusal,
  type PerimeterGuard,
} from './perimeter-guard.js';

const PREFLIGHT_ALLOW_METHODS = 'GET, POST, PATCH, DELETE';
const PREFLIGHT_ALLOW_HEADERS = 'authorization, content-type, last-event-id';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

type OriginGuardOptions = { allowedOrigins: readonly string[]; cors: boolean } & Partial<GuardRefusal>;

export function originGuard(options: OriginGuardOptions): PerimeterGuard {
  const allowed = new Set(options.allowedOrigins);
  const refuse = refuseWith(options, { code: 'PERIMETER_ORIGIN', message: 'Origin is not allowed' });
  return (c) => {
    const origin = allowedOriginOf(requestHeaders(c), allowed);
    if (origin === undefined) return refuse(c);
    if (!options.cors) return undefined;
    setAnswerHeader(c, 'Access-Control-Allow-Origin', origin);
    setAnswerHeader(c, 'Vary', 'Origin');
    if (c.req.method !== 'OPTIONS') return undefined;
    setAnswerHeader(c, 'Access-Control-Allow-Methods', PREFLIGHT_ALLOW_METHODS);
    setAnswerHeader(c, 'Access-Control-Allow-Headers', PREFLIGHT_ALLOW_HEADERS);
    setAnswerHeader(c, 'Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
    return c.body(null, 204);
  };
}
