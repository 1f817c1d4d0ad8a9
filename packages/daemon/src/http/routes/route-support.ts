/**
 * Shared plumbing of the agent, session and workspace routes: JSON bodies checked by a schema
 * (400 naming the field, never echoing its value or an unknown key), and DaemonError codes mapped
 * to HTTP statuses with their fixed messages.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import { DaemonError } from '../../errors.js';
import { storageErrorOf } from '../../storage/storage-error.js';
import { wireError } from '../wire-error.js';

const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  STORAGE_FULL: 507,
  STORAGE_READ_ONLY: 507,
  STORE_CORRUPT: 500,
  STORE_WRITE_FAILED: 500,
  SESSION_NOT_FOUND: 404,
  BAD_REQUEST: 400,
  BAD_CURSOR: 400,
  WORKSPACE_NOT_GRANTED: 403,
  PROVIDER_UNKNOWN: 400,
  MESSAGE_TOO_LARGE: 413,
  RUN_ACTIVE: 409,
  RUN_LIMIT: 429,
  STREAM_LIMIT: 429,
  APPROVAL_PENDING: 409,
  APPROVAL_UNKNOWN: 404,
  APPROVAL_OTHER_SESSION: 403,
  APPROVAL_TOOL_CALL_MISMATCH: 409,
  APPROVAL_ALREADY_ANSWERED: 409,
  APPROVAL_CANCELLED: 409,
  UNDO_CONFLICT: 409,
  UNDO_ALREADY_DONE: 409,
  UNDO_NOTHING: 409,
  UNDO_RUN_NOT_FOUND: 404,
  UNDO_FAILED: 500,
  FS_OUTSIDE_WORKSPACE: 403,
  FS_PROTECTED: 403,
  FS_NOT_FOUND: 404,
  FS_NOT_A_FILE: 400,
  FS_NOT_A_DIRECTORY: 400,
  FS_SYMLINK: 409,
  FS_TOO_LARGE: 413,
  FS_NO_WORKSPACE: 400,
  FS_IO: 500,
};

export class RequestError extends DaemonError {
  override readonly name = 'RequestError';
}

/** Answer a thrown error: DaemonErrors and storage failures with their code and fixed message, anything else as 500. */
export function errorResponse(c: Context, error: unknown): Response {
  const coded = error instanceof DaemonError ? error : storageErrorOf(error);
  if (coded) return wireError(c, STATUS_BY_CODE[coded.code] ?? 500, coded.code, coded.message);
  return wireError(c, 500, 'INTERNAL', 'internal error');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const where = issue.path.length > 0 ? ` in ${issue.path.join('.')}` : '';
    return `unknown field${where}`;
  }
  const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `invalid field: ${field}`;
}

/** Parse and check a JSON body; throws RequestError(BAD_REQUEST) naming the first bad field. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch (cause) {
    throw new RequestError('BAD_REQUEST', 'body is not valid JSON', { cause });
  }
  return parseInput(schema, raw);
}

export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RequestError('BAD_REQUEST', issue ? describeIssue(issue) : 'invalid body');
  }
  return parsed.data;
}

/** Run a handler and turn its thrown errors into wire errors. */
export function handle(run: (c: Context) => Promise<Response> | Response): (c: Context) => Promise<Response> {
  return async (c) => {
    try {
      return await run(c);
    } catch (error) {
      return errorResponse(c, error);
    }
  };
}
