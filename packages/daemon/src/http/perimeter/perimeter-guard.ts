/**
 * SEC-004: the shape of a perimeter guard. A guard is a plain function of the request that
 * answers (a refusal, a preflight) or passes; it answers in the same tick as the request, so a
 * client writing past an unframed request still reads the refusal before the parser rejects those
 * bytes. The daemon runs its guards in order as one synchronous middleware (`perimeter`); the
 * host's IPC route runs the same guards in its one handler with its own IPC_* refusals
 * (packages/host/src/ui/host-ipc.ts).
 *
 * Guards read the request's headers through `requestHeaders` and set the headers a passing request's
 * answer carries through `setAnswerHeader`: on a request served from Node (@hono/node-server's
 * bindings) both use Node's own request and response, not the Fetch API's Headers, which cost a
 * request that only passes the perimeter more than the rest of its handling (bench `handshake`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { PerimeterRequest, WireError, WireErrorCode } from '@bastion/protocol';
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

/** The guards, in order, as one middleware: the first answer is the request's; else the routes run. */
export function perimeter(guards: readonly PerimeterGuard[]): MiddlewareHandler {
  return (c, next) => {
    for (const guard of guards) {
      const answer = guard(c);
      if (answer) return Promise.resolve(answer);
    }
    return next();
  };
}

/** Node's request and response behind a hono context, when @hono/node-server serves it. */
function nodeBindings(c: Context): { incoming: IncomingMessage; outgoing: ServerResponse } | undefined {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  return env?.incoming !== undefined && env.outgoing !== undefined
    ? { incoming: env.incoming, outgoing: env.outgoing }
    : undefined;
}

/**
 * The request's headers as the Fetch API reads them: a name's values, in order, joined with ", ";
 * undefined when it has none. From Node's raw header list when there is one (Node's own `headers`
 * object keeps only the first of a repeated Host, Authorization or Referer, which the Fetch API's
 * view, and so every guard, refuses).
 */
export function requestHeaders(c: Context): PerimeterRequest {
  const incoming = nodeBindings(c)?.incoming;
  if (incoming === undefined) return c.req;
  const raw = incoming.rawHeaders;
  return {
    header(name) {
      const wanted = name.toLowerCase();
      let value: string | undefined;
      for (let index = 0; index + 1 < raw.length; index += 2) {
        const field = raw[index] as string;
        if (field.length !== wanted.length || field.toLowerCase() !== wanted) continue;
        const next = raw[index + 1] as string;
        value = value === undefined ? next : `${value}, ${next}`;
      }
      return value;
    },
  };
}

/** A header for whatever the request is answered with, refusal or route (Node merges it into the answer's own). */
export function setAnswerHeader(c: Context, name: string, value: string): void {
  const outgoing = nodeBindings(c)?.outgoing;
  if (outgoing === undefined) c.header(name, value);
  else outgoing.setHeader(name, value);
}
