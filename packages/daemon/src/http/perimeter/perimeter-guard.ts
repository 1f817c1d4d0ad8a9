/**
 * SEC-004: the shape of a perimeter guard. A guard is a plain function of the request that
 * answers (a refusal, a preflight) or passes; it answers in the same tick as the request, so a
 * client writing past an unframed request still reads the refusal before the parser rejects those
 * bytes. The daemon mounts each as hono middleware (`asMiddleware`); the host's IPC route runs the
 * same guards in its one handler with its own IPC_* refusals (packages/host/src/ui/host-ipc.ts).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { WireError, WireErrorCode } from '@bastion/protocol';
import { wireError } from '../wire-error.js';

export type PerimeterGuard = (c: Context) => Response | undefined;

/** How a guard refuses: the code and fixed message, and who writes the answer (`wireError` when not given). */
export interface GuardRefusal {
  refusal: WireError<WireErrorCode>;
  refuse?: (c: Context, refusal: WireError<WireErrorCode>) => Response;
}

export function refuseWith(
  options: Partial<GuardRefusal>,
  fallback: WireError<WireErrorCode>,
): (c: Context) => Response {
  const refusal = options.refusal ?? fallback;
  const refuse = options.refuse;
  return (c) => (refuse ? refuse(c, refusal) : wireError(c, refusal.code, refusal.message));
}

export function asMiddleware(guard: PerimeterGuard): MiddlewareHandler {
  return async (c, next) => {
    const answer = guard(c);
    if (answer) return answer;
    await next();
    return undefined;
  };
}
