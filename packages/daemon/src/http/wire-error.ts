import type { Context } from 'hono';
import { WIRE_ERROR_STATUS, type WireError, type WireErrorCode } from '@bastion/protocol';

/** Answer with `{ code, message }` and the code's one status: no stack, and never a value taken from the request. */
export function wireError(c: Context, code: WireErrorCode, message: string): Response {
  const body: WireError = { code, message };
  return c.json(body, WIRE_ERROR_STATUS[code]);
}
