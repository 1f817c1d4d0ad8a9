/**
 * Daemon HTTP DTO of `GET /sessions/:id/changes`: what the session's file tools changed in its
 * workspace so far, one file each, from what undo kept of it before the session's first write to
 * what it holds now (runs undone do not count; a file back as it was is left out). What
 * `run_command` changed is not tracked, so it is not here: `commands` counts the commands that ran.
 */
import { z } from 'zod';
import { sessionIdSchema } from './sessions.js';

/**
 * Why a file has no diff: its earlier version was not kept (larger than UNDO_MAX_FILE_BYTES, or
 * pruned for newer runs), it is not text, it is too large to diff now, it cannot be read now (a
 * link out of the workspace put in its place, its permissions), or the answer's time for diffs
 * (SESSION_CHANGES_DIFF_BUDGET_MS) was spent on the files before it.
 */
export const sessionChangeNoDiffSchema = z.enum(['not-kept', 'binary', 'too-large', 'unreadable', 'not-compared']);
export type SessionChangeNoDiff = z.infer<typeof sessionChangeNoDiffSchema>;

export const sessionChangeSchema = z.strictObject({
  /** Relative to the session's workspace root. */
  path: z.string(),
  /** `added`: it did not exist before the session wrote it; `deleted`: it is gone now. */
  status: z.enum(['added', 'modified', 'deleted']),
  /** A unified diff from `a/PATH` (or /dev/null) to `b/PATH` (or /dev/null), bounded like a tool's diff. */
  diff: z.string().optional(),
  /** Lines the diff adds and removes, when there is one (of what it shows, when it is cut). */
  additions: z.number().int().nonnegative().optional(),
  deletions: z.number().int().nonnegative().optional(),
  no_diff: sessionChangeNoDiffSchema.optional(),
});
export type SessionChange = z.infer<typeof sessionChangeSchema>;

export const sessionChangesResponseSchema = z.strictObject({
  session_id: sessionIdSchema,
  /** In the order the session first wrote them; at most SESSION_CHANGES_MAX_FILES. */
  files: z.array(sessionChangeSchema),
  /** Changed files beyond SESSION_CHANGES_MAX_FILES, left out. */
  more: z.number().int().nonnegative(),
  /** Commands the session's runs ran (not undone): what they changed is not in `files`. */
  commands: z.number().int().nonnegative(),
});
export type SessionChangesResponse = z.infer<typeof sessionChangesResponseSchema>;
