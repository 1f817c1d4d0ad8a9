/**
 * The host control socket's wire contract: one JSON request line, one JSON answer line, then the
 * connection closes. Requests are strict schemas; answers are `{ ok: true, … }` or a wire error.
 */
import { z } from 'zod';
import {
  agentRewindResponseSchema,
  agentUndoResponseSchema,
  CLI_SESSIONS_LISTED,
  SESSION_SEARCH_MAX_CHARS,
  modelIdSchema,
  modelListResponseSchema,
  modelRefSchema,
  providerIdSchema,
  CONTROL_MAX_MESSAGE_CHARS,
  mcpListingSchema,
  mcpServerNameSchema,
  secretKeySchema,
  WORKSPACE_MAX_PATH_CHARS,
  runIdSchema,
  sessionChangesResponseSchema,
  sessionIdSchema,
  sessionSchema,
  wireErrorCodeSchema,
} from '@bastion/protocol';

export const CONTROL_SOCKET_FILE = 'host.sock';

export const controlRequestSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('status') }),
  z.strictObject({ op: z.literal('open') }),
  z.strictObject({
    op: z.literal('secrets.set'),
    provider: providerIdSchema,
    key: secretKeySchema,
  }),
  z.strictObject({ op: z.literal('secrets.delete'), provider: providerIdSchema }),
  z.strictObject({
    op: z.literal('sessions'),
    /** Only the sessions that work in this folder; every session when absent. */
    workspace: z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS).optional(),
    limit: z
      .number()
      .int()
      .min(1)
      .max(CLI_SESSIONS_LISTED + 1),
    /** Only the sessions whose title, prompts or replies hold this text. */
    search: z.string().min(1).max(SESSION_SEARCH_MAX_CHARS).optional(),
  }),
  z.strictObject({ op: z.literal('session.export'), session_id: sessionIdSchema }),
  /** What the file tools of a session of this folder (by default its newest) changed so far. */
  z.strictObject({
    op: z.literal('session.changes'),
    workspace: z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS),
    session_id: sessionIdSchema.optional(),
  }),
  z.strictObject({ op: z.literal('models') }),
  z.strictObject({ op: z.literal('models.default'), provider: providerIdSchema, model: modelIdSchema }),
  z.strictObject({
    op: z.literal('undo'),
    workspace: z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS),
    session_id: sessionIdSchema.optional(),
    run_id: runIdSchema.optional(),
    dry_run: z.boolean().optional(),
  }),
  z.strictObject({
    op: z.literal('rewind'),
    workspace: z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS),
    session_id: sessionIdSchema.optional(),
    run_id: runIdSchema.optional(),
    files: z.boolean(),
    dry_run: z.boolean().optional(),
  }),
  /** The MCP servers of a workspace the host granted: their live states and tools; starts nothing. */
  z.strictObject({ op: z.literal('mcp.list'), workspace: z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS) }),
  /** Stop a server wherever it runs and start it in a workspace the host granted. */
  z.strictObject({
    op: z.literal('mcp.restart'),
    workspace: z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS),
    name: mcpServerNameSchema,
  }),
]);
export type ControlRequest = z.infer<typeof controlRequestSchema>;

/** The requests the control server answers itself from the MCP hub it was given (control-server.ts). */
export type McpControlRequest = Extract<ControlRequest, { op: 'mcp.list' | 'mcp.restart' }>;
/** The requests the host's own handler answers (bastion-host.ts). */
export type HostControlRequest = Exclude<ControlRequest, McpControlRequest>;

/**
 * Who holds the home: told to a second process so it can say which Bastion that is and how to
 * reach it. `ui` is the UI's address without a launch ticket (no secret: opening it still needs a
 * sign-in, which `bastion open` gives). `started_at` and `workspace` are optional so that a CLI
 * still names the pid and UI of a running host from before they were told.
 */
export const holderStatusSchema = z.strictObject({
  ok: z.literal(true),
  pid: z.number().int().positive(),
  /** The command the holder runs (`start`, `run`, `secrets`). */
  command: z.string().max(32),
  ui: z.string().max(256),
  /** When the holder started. */
  started_at: z.iso.datetime().optional(),
  /** The folder it was started in (its first workspace); absent when it works in none (`secrets`). */
  workspace: z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS).optional(),
});
export type HolderStatus = z.infer<typeof holderStatusSchema>;

export const launchAnswerSchema = z.strictObject({ ok: z.literal(true), launch: z.string().max(512) });

export const secretsAnswerSchema = z.strictObject({
  ok: z.literal(true),
  status: z.number().int(),
  code: wireErrorCodeSchema.optional(),
  message: z.string().max(CONTROL_MAX_MESSAGE_CHARS).optional(),
  /** For `secrets.delete`: whether there was a key to delete. */
  deleted: z.boolean().optional(),
});

export const controlFailureSchema = z.strictObject({
  ok: z.literal(false),
  code: wireErrorCodeSchema,
  message: z.string().max(CONTROL_MAX_MESSAGE_CHARS),
});

/** The daemon refused what the control request asked for: its code and message, passed on. */
const refusedAnswerSchema = z.strictObject({
  ok: z.literal(true),
  refused: z.strictObject({ code: wireErrorCodeSchema, message: z.string().max(CONTROL_MAX_MESSAGE_CHARS) }),
});

/** `bastion undo` through the running host: what was undone, or the daemon's refusal in its words. */
export const undoAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), session_id: sessionIdSchema, result: agentUndoResponseSchema }),
  refusedAnswerSchema,
]);

/** `bastion rewind` through the running host: what was rewound, or the daemon's refusal in its words. */
export const rewindAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), session_id: sessionIdSchema, result: agentRewindResponseSchema }),
  refusedAnswerSchema,
]);

/** `bastion sessions` through the running host: the sessions, newest first, or the daemon's refusal. */
export const sessionsAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), sessions: z.array(sessionSchema).max(CLI_SESSIONS_LISTED + 1) }),
  refusedAnswerSchema,
]);

/** `bastion sessions export` through the running host: the session as markdown, or the daemon's or the host's refusal. */
export const exportAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), markdown: z.string() }),
  refusedAnswerSchema,
]);

/** `bastion changes` through the running host: what the session's file tools changed, or the refusal in words. */
export const changesAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), session_id: sessionIdSchema, changes: sessionChangesResponseSchema }),
  refusedAnswerSchema,
]);

/** `bastion models` through the running host: every model on offer and the default, or the daemon's refusal. */
export const modelsAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), models: modelListResponseSchema }),
  refusedAnswerSchema,
]);

/** `bastion models default` through the running host: the default now, or the daemon's refusal. */
export const defaultModelAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), default: modelRefSchema }),
  refusedAnswerSchema,
]);

/**
 * `bastion mcp list` and `restart` through the running host: the servers of the workspace (live
 * states and tools), or the host's refusal in words (a workspace it was not granted, no such
 * server, an unusable mcp.json).
 */
export const mcpAnswerSchema = z.union([
  z.strictObject({ ok: z.literal(true), listing: mcpListingSchema }),
  refusedAnswerSchema,
]);
