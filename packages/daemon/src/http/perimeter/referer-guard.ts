/**
 * SEC-004 perimeter, step 3: Referer must be present, of an allowlisted origin, with a path that
 * is exactly the desktop route root or under it after URL normalisation. `/desktopX`,
 * `/desktop/../x` and percent-encoded separators or dots are refused. Does not catch script
 * already running inside a /desktop page; the password guard and CSP are separate controls.
 */
import { desktopRefererOf } from '@bastion/protocol';
import { refuseWith, requestHeaders, type GuardRefusal, type PerimeterGuard } from './perimeter-guard.js';

type RefererGuardOptions = { allowedOrigins: readonly string[] } & Partial<GuardRefusal>;

export function refererGuard(options: RefererGuardOptions): PerimeterGuard {
  const allowed = new Set(options.allowedOrigins);
  const refuse = refuseWith(options, { code: 'PERIMETER_REFERER', message: 'Referer is not a desktop page' });
  return (c) => (desktopRefererOf(requestHeaders(c), allowed) === undefined ? refuse(c) : undefined);
}
