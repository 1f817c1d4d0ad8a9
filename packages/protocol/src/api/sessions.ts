/** Daemon HTTP DTOs of `/sessions*`. */
import { z } from 'zod';
import { clientIdSchema } from './client-id.js';
import {
  CONSENT_BY_MAX_CHARS,
  MODEL_ID_MAX_CHARS,
  PAGE_MAX_LIMIT,
  PROVIDER_ID_MAX_CHARS,
  SESSION_MAX_TITLE_CHARS,
  SESSION_SEARCH_MAX_CHARS,
} from '../limits.js';
import { imageMediaTypeSchema } from '../images.js';
import { mcpTextOriginSchema } from './mcp.js';
import { permissionModeSchema } from '../modes.js';
import { tokenUsageSchema } from './usage.js';
import { workspaceRootSchema } from './workspaces.js';

export const sessionIdSchema = z.string().regex(/^ses_[A-Za-z0-9_-]{8,64}$/);
export const providerIdSchema = z
  .string()
  .min(1)
  .max(PROVIDER_ID_MAX_CHARS)
  .regex(/^[a-z0-9][a-z0-9._-]*$/);
export const modelIdSchema = z
  .string()
  .min(1)
  .max(MODEL_ID_MAX_CHARS)
  .regex(/^[^\s\0]+$/);
export const sessionTitleSchema = z.string().max(SESSION_MAX_TITLE_CHARS);

export const runStatusSchema = z.enum(['running', 'finished', 'error', 'aborted', 'interrupted']);
export type RunStatus = z.infer<typeof runStatusSchema>;

/**
 * How much a reasoning model thinks before it answers (OpenAI's reasoning effort): more is slower
 * and costs more tokens. Only models the catalog marks `reasoning` take it.
 */
export const reasoningEffortSchema = z.enum(['low', 'medium', 'high']);
export type ReasoningEffort = z.infer<typeof reasoningEffortSchema>;

export const sessionSchema = z.strictObject({
  id: sessionIdSchema,
  title: z.string(),
  mode: permissionModeSchema,
  provider: providerIdSchema,
  model: modelIdSchema,
  /** The granted workspace root the agent works in; null when the host granted none. */
  workspace: workspaceRootSchema.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Informed consent to `auto`: who switched and when. Null while the session never was in `auto`. */
  auto_consent: z.strictObject({ by: z.string(), at: z.string() }).nullable(),
  /** Every write_file/edit_file waits for approval, in any mode that writes. */
  ask_before_writes: z.boolean(),
  /** The reasoning effort the session's runs ask for; absent: the model's own default. */
  reasoning_effort: reasoningEffortSchema.optional(),
  last_run: z.strictObject({ id: z.string(), status: runStatusSchema }).nullable(),
  /** A tool call of the session waits for the user's answer (Allow / Deny). */
  approval_pending: z.boolean(),
  /** Tokens every run of the session used, with the estimated cost where every priced run has one. */
  usage: tokenUsageSchema.optional(),
  /**
   * Made by New session and untouched since (no run, no setting changed, not kept): removed once
   * nothing shows it (UNTOUCHED_SESSION_GRACE_MS). Absent for every other session.
   */
  provisional: z.literal(true).optional(),
});
export type Session = z.infer<typeof sessionSchema>;

export const createSessionRequestSchema = z.strictObject({
  title: sessionTitleSchema.optional(),
  mode: permissionModeSchema.optional(),
  provider: providerIdSchema.optional(),
  model: modelIdSchema.optional(),
  workspace: workspaceRootSchema.optional(),
  ask_before_writes: z.boolean().optional(),
  reasoning_effort: reasoningEffortSchema.optional(),
  /** Required label of who consents when `mode` is `auto`. */
  consent_by: z.string().min(1).max(CONSENT_BY_MAX_CHARS).optional(),
  /** Made by a New session button: removed if nothing ever touches or shows it (Session's `provisional`). */
  provisional: z.literal(true).optional(),
});
export type CreateSessionRequest = z.infer<typeof createSessionRequestSchema>;

export const updateSessionRequestSchema = z.strictObject({
  title: sessionTitleSchema.optional(),
  mode: permissionModeSchema.optional(),
  provider: providerIdSchema.optional(),
  model: modelIdSchema.optional(),
  ask_before_writes: z.boolean().optional(),
  /** null: back to the model's own default. */
  reasoning_effort: reasoningEffortSchema.nullable().optional(),
  consent_by: z.string().min(1).max(CONSENT_BY_MAX_CHARS).optional(),
  /**
   * false: keep the session (a draft was typed in it, `bastion chat` took it). Any other change
   * keeps it too: a session a person changed is theirs.
   */
  provisional: z.literal(false).optional(),
});
export type UpdateSessionRequest = z.infer<typeof updateSessionRequestSchema>;

/**
 * `DELETE /sessions/:id`'s query. `if_untouched`: remove it only if it is still provisional, with
 * nothing stored in it, no run or undo going, and no page but `viewer` (the asking page's own
 * stream, which may not have closed yet) streaming it; otherwise 409 SESSION_IN_USE.
 */
export const deleteSessionQuerySchema = z.strictObject({
  if_untouched: z.literal('true').optional(),
  viewer: clientIdSchema.optional(),
});

/** Cursor paging: pass the previous page's `next` as `cursor`; null means the last page. */
export const pageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(PAGE_MAX_LIMIT).optional(),
  cursor: z.string().max(128).optional(),
});

/**
 * `GET /sessions`: a page, newest first; with `search`, only the sessions whose title, prompts or
 * replies hold that text (ASCII letters in either case).
 */
export const sessionListQuerySchema = pageQuerySchema.extend({
  search: z.string().min(1).max(SESSION_SEARCH_MAX_CHARS).optional(),
});

export const sessionListResponseSchema = z.strictObject({
  sessions: z.array(sessionSchema),
  next: z.string().nullable(),
});
export type SessionListResponse = z.infer<typeof sessionListResponseSchema>;

/** One piece of a stored message, as the model saw or produced it. */
export const messagePartSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('text'),
    text: z.string(),
    /** In a prompt: the MCP server's prompt its text came from, or the resource it is (attached by the user). */
    mcp: mcpTextOriginSchema.optional(),
  }),
  /** An image the user attached; its bytes from `GET /sessions/:id/images/:image_id`. */
  z.strictObject({
    type: z.literal('image'),
    image_id: z.string(),
    media_type: imageMediaTypeSchema,
    bytes: z.number().int().nonnegative(),
    name: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('tool-call'), tool_call_id: z.string(), tool_name: z.string(), input: z.unknown() }),
  z.strictObject({
    type: z.literal('tool-result'),
    tool_call_id: z.string(),
    tool_name: z.string(),
    output: z.unknown(),
  }),
  z.strictObject({ type: z.literal('tool-approval-request'), approval_id: z.string(), tool_call_id: z.string() }),
  z.strictObject({
    type: z.literal('tool-approval-response'),
    approval_id: z.string(),
    approved: z.boolean(),
    reason: z.string().optional(),
  }),
]);
export type MessagePart = z.infer<typeof messagePartSchema>;

export const messageSchema = z.strictObject({
  id: z.string(),
  role: z.enum(['user', 'assistant', 'tool']),
  run_id: z.string().nullable(),
  created_at: z.string(),
  parts: z.array(messagePartSchema),
  /** A rewind took it out of what the model is sent (POST /agent/rewind); it stays for the record. */
  rewound: z.literal(true).optional(),
});
export type Message = z.infer<typeof messageSchema>;

export const messageListResponseSchema = z.strictObject({
  messages: z.array(messageSchema),
  next: z.string().nullable(),
});
export type MessageListResponse = z.infer<typeof messageListResponseSchema>;
