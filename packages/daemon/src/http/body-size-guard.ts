/**
 * Request bodies must declare their length, and it must be within the bound. Node's HTTP parser
 * holds the peer to the declared Content-Length, so no route ever reads more than this. Chunked
 * bodies (no declared length) are refused outright: browsers' fetch and the host's client always
 * send a length. Cheaper than wrapping every body stream, which halved throughput in the
 * handshake benchmark.
 */
import { requestHeaders, type PerimeterGuard } from './perimeter/perimeter-guard.js';
import { wireError } from './wire-error.js';

/** `maxBytes` for every route but those `routes` names (`METHOD /path`), which have their own. */
export function bodySizeGuard(options: {
  maxBytes: number;
  routes?: Readonly<Record<string, number>>;
}): PerimeterGuard {
  return (c) => {
    const maxBytes = options.routes?.[`${c.req.method} ${c.req.path}`] ?? options.maxBytes;
    const headers = requestHeaders(c);
    const declared = headers.header('content-length');
    const chunked = headers.header('transfer-encoding') !== undefined;
    if (chunked && declared === undefined) {
      return wireError(c, 'BODY_LENGTH_REQUIRED', 'request body must declare its length');
    }
    if (declared !== undefined) {
      if (!/^\d{1,12}$/.test(declared)) return wireError(c, 'BODY_LENGTH_INVALID', 'invalid Content-Length');
      if (Number(declared) > maxBytes) return wireError(c, 'BODY_TOO_LARGE', 'request body is too large');
    }
    return undefined;
  };
}
