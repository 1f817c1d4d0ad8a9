/**
 * The one way a daemon route reads its input and fails: a JSON body or query checked by a schema
 * (400 naming the field, never echoing its value or an unknown key, unless the route names its own
 * refusal), and errors thrown, not answered. `app.onError` turns every thrown error into a wire
 * error once: DaemonErrors and storage failures with their code, the code's status from
 * WIRE_ERROR_STATUS and their fixed message; anything else as 500 INTERNAL.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import type { DaemonErrorCode } from '@bastion/protocol';
import { DaemonError, isDaemonError } from '../../errors.js';
import { storageErrorOf } from '../../storage/storage-error.js';
import { wireError } from '../wire-error.js';

export class RequestError extends DaemonError {
  override readonly name = 'RequestError';
}

/** A route's own answer to a body it cannot use: a fixed code and message, or one picked from the schema's issues. */
export type BodyRefusal =
  | { code: DaemonErrorCode; message: string }
  | ((issues: readonly z.core.$ZodIssue[]) => { code: DaemonErrorCode; message: string });

/** Answer a thrown error: DaemonErrors and storage failures with their code and fixed message, anything else as 500. */
export function errorResponse(c: Context, error: unknown): Response {
  const coded = isDaemonError(error) ? error : storageErrorOf(error);
  if (coded) return wireError(c, coded.code, coded.message);
  return wireError(c, 'INTERNAL', 'internal error');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length > 0 ? ` in ${issue.path.join('.')}` : '';
    return `unknown field${where}`;
  }
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `invalid field: ${field}`;
}

function refuse(refusal: BodyRefusal, issues: readonly z.core.$ZodIssue[]): RequestError {
  const { code, message } = typeof refusal === 'function' ? refusal(issues) : refusal;
  return new RequestError(code, message);
}

/**
 * Parse and check a JSON body. Throws RequestError: the route's `refusal` if it gave one, else
 * BAD_REQUEST naming the first bad field.
 */
export async function readJson<S extends z.ZodType>(
  c: Context,
  schema: S,
  refusal?: BodyRefusal,
): Promise<z.output<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch (cause) {
    if (refusal) throw refuse(refusal, []);
    throw new RequestError('BAD_REQUEST', 'body is not valid JSON', { cause });
  }
  return parseInput(schema, raw, refusal);
}

export function parseInput<S extends z.ZodType>(schema: S, raw: unknown, refusal?: BodyRefusal): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    if (refusal) throw refuse(refusal, parsed.error.issues);
    const issue = parsed.error.issues[0];
    throw new RequestError('BAD_REQUEST', issue ? describeIssue(issue) : 'invalid body');
  }
  return parsed.data;
}
