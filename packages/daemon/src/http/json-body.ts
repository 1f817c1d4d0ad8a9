import type { Context } from 'hono';
import type { z } from 'zod';

/** Parse a JSON request body against a strict schema; `undefined` when it is not JSON or does not match. */
export async function readJsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S> | undefined> {
  let value: unknown;
  try {
    value = await c.req.json();
  } catch {
    return undefined;
  }
  const checked = schema.safeParse(value);
  return checked.success ? checked.data : undefined;
}
