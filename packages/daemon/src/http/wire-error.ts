import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { WireError } from '@bastion/protocol';

/** Answer with `{ code, message }`: no stack, and never a value taken from the request. */
export function wireError(c: Context, status: ContentfulStatusCode, code: string, message: string): Response {
  const body: WireError = { code, message };
  return c.json(body, status);
}
