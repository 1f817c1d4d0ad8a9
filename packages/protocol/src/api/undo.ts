/**
 * Daemon HTTP DTOs of `POST /agent/undo`: put back every file a finished run wrote with
 * write_file/edit_file (earlier bytes restored, files it created removed). `dry_run` answers with
 * the same plan and touches nothing, for a confirmation step. What run_command changed is never
 * restored; the answer counts the commands the run ran so a client can say so.
 */
import { z } from 'zod';
import { runIdSchema } from './agent.js';
import { sessionIdSchema } from './sessions.js';

export const agentUndoRequestSchema = z.strictObject({
  session_id: sessionIdSchema,
  run_id: runIdSchema,
  dry_run: z.boolean().optional(),
});
export type AgentUndoRequest = z.infer<typeof agentUndoRequestSchema>;

/**
 * Why a file cannot be undone: its earlier version was larger than UNDO_MAX_FILE_BYTES, or did
 * not fit the session's budget (not kept), or was pruned for newer runs, or (in a dry run) the
 * file changed since the run.
 */
export const undoBlockedReasonSchema = z.enum(['too-large', 'pruned', 'changed-since']);
export type UndoBlockedReason = z.infer<typeof undoBlockedReasonSchema>;

export const undoFileSchema = z.strictObject({
  /** Workspace-relative path. */
  path: z.string(),
  /** `restore`: its earlier bytes are written back; `remove`: the run created it; `none`: it cannot be undone. */
  action: z.enum(['restore', 'remove', 'none']),
  reason: undoBlockedReasonSchema.optional(),
});
export type UndoFile = z.infer<typeof undoFileSchema>;

export const agentUndoResponseSchema = z.strictObject({
  run_id: runIdSchema,
  dry_run: z.boolean(),
  files: z.array(undoFileSchema),
  /** Commands the run ran (run_command): what they changed is not restored by undo. */
  commands: z.number().int().nonnegative(),
});
export type AgentUndoResponse = z.infer<typeof agentUndoResponseSchema>;
