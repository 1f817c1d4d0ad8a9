/**
 * Daemon HTTP DTOs of `/agent/*` and the event stream. Events are named noun-then-action; each is
 * persisted with an increasing id (the SSE `id:`), so a client reconnecting with `Last-Event-ID`
 * sees the whole run.
 */
import { z } from 'zod';
import {
  AGENT_MAX_IMAGES,
  AGENT_MAX_MCP_RESOURCES,
  EVENT_PAGE_MAX_LIMIT,
  INSTRUCTIONS_MAX_DIRECTORIES,
  WORKSPACE_MAX_PATH_CHARS,
} from '../limits.js';
import { imageInputSchema } from '../images.js';
import { clientIdSchema } from './client-id.js';
import { mcpAttachedResourceSchema, mcpPromptSentSchema } from './mcp.js';
import { messageSchema, modelIdSchema, providerIdSchema, sessionIdSchema } from './sessions.js';
import { tokenUsageSchema } from './usage.js';

export const runIdSchema = z.string().regex(/^run_[A-Za-z0-9_-]{8,64}$/);

/** `GET /agent/stream/:session_id`'s query: the page that streams it (`viewer`, see sessionViewerQuerySchema). */
export const agentStreamQuerySchema = z.strictObject({ viewer: clientIdSchema.optional() });

export const approvalAnswerSchema = z.strictObject({
  approval_id: z.string().min(1).max(128),
  tool_call_id: z.string().min(1).max(128),
  approved: z.boolean(),
  reason: z.string().max(1024).optional(),
});
export type ApprovalAnswer = z.infer<typeof approvalAnswerSchema>;

/**
 * A new user message, an answer to a pending approval, or a compaction. The message length is checked by
 * the route (413 beyond AGENT_MAX_MESSAGE_CHARS), not here, so an oversize message is not a 400.
 */
export const agentRunRequestSchema = z
  .strictObject({
    session_id: sessionIdSchema,
    message: z.string().min(1).optional(),
    /** Images that go with `message` (only with one), in the order they were attached. */
    images: z.array(imageInputSchema).min(1).max(AGENT_MAX_IMAGES).optional(),
    /**
     * The MCP server's prompt `message` came from (the person ran it and sent what it put in the
     * box), and the ranges of `message` it wrote (`spans`, each within it); only with a message.
     */
    mcp_prompt: mcpPromptSentSchema.optional(),
    /** MCP servers' resources the person attached (`@SERVER:URI`), read by the host; only with a message. */
    mcp_resources: z.array(mcpAttachedResourceSchema).min(1).max(AGENT_MAX_MCP_RESOURCES).optional(),
    /**
     * The send's own id, chosen by the client at random (clientIdSchema); only with a message. The
     * daemon keeps it with the message: the same id again with the same message, images and MCP
     * context (its answer was lost) is answered with the first send's ids instead of being stored
     * twice; with other ones it is refused (SEND_ID_REUSED).
     */
    client_id: clientIdSchema.optional(),
    approval_answer: approvalAnswerSchema.optional(),
    /** A run that only summarises the session's older turns now, keeping its last exchange (`/compact`). */
    compact: z.literal(true).optional(),
  })
  .refine(
    (body) => [body.message, body.approval_answer, body.compact].filter((field) => field !== undefined).length === 1,
    {
      message: 'exactly one of message, approval_answer and compact is required',
      path: ['message'],
    },
  )
  .refine((body) => body.images === undefined || body.message !== undefined, {
    message: 'images go with a message',
    path: ['images'],
  })
  .refine((body) => body.client_id === undefined || body.message !== undefined, {
    message: 'a client_id goes with a message',
    path: ['client_id'],
  })
  .refine((body) => (body.mcp_prompt === undefined && body.mcp_resources === undefined) || body.message !== undefined, {
    message: 'an MCP prompt or resources go with a message',
    path: ['mcp_resources'],
  })
  .refine((body) => (body.mcp_prompt?.spans ?? []).every(([, end]) => end <= (body.message?.length ?? 0)), {
    message: 'the MCP prompt’s spans lie within the message',
    path: ['mcp_prompt', 'spans'],
  });
export type AgentRunRequest = z.infer<typeof agentRunRequestSchema>;

/**
 * `run_id` is null only for an approval answer while other approvals of the same step are still
 * pending: the run continues once the last of them is answered.
 */
export const agentRunResponseSchema = z.strictObject({
  run_id: runIdSchema.nullable(),
  message_id: z.string().nullable(),
});
export type AgentRunResponse = z.infer<typeof agentRunResponseSchema>;

export const agentAbortRequestSchema = z.strictObject({ session_id: sessionIdSchema });
export const agentAbortResponseSchema = z.strictObject({ aborted: z.boolean() });
export type AgentAbortResponse = z.infer<typeof agentAbortResponseSchema>;

const runRef = { run_id: runIdSchema };

/**
 * A tool call an explorer made (the `explore` tool, packages/daemon/src/agent/explore-tool.ts):
 * the id of the `explore` call it works for. Its own `tool_call_id` is that id, `/`, and the id
 * the explorer's model gave it. Its result reaches the explorer, never the agent's transcript.
 */
const exploredBy = { parent_tool_call_id: z.string().optional() };

/** Tokens of a model's context window in use (`tokens`) out of its size (`window`). */
export const runContextSchema = z.strictObject({
  tokens: z.number().int().positive(),
  window: z.number().int().positive(),
});
export type RunContext = z.infer<typeof runContextSchema>;

export const agentEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('run-started'),
    ...runRef,
    session_id: sessionIdSchema,
    message_id: z.string().nullable(),
    provider: providerIdSchema,
    model: modelIdSchema,
  }),
  z.strictObject({ type: z.literal('text-delta'), ...runRef, text: z.string() }),
  /** Reasoning text from models that stream it; shown collapsed. */
  z.strictObject({ type: z.literal('reasoning-delta'), ...runRef, text: z.string() }),
  z.strictObject({
    type: z.literal('tool-call'),
    ...runRef,
    tool_call_id: z.string(),
    tool_name: z.string(),
    input: z.unknown(),
    ...exploredBy,
  }),
  /**
   * What a running command has printed so far, a stretch at a time (run_command), Bastion's own
   * credentials redacted; the run's tool-output-delta events are dropped from the store when it
   * ends, the tool-result holding the whole output.
   */
  z.strictObject({
    type: z.literal('tool-output-delta'),
    ...runRef,
    tool_call_id: z.string(),
    stream: z.enum(['stdout', 'stderr']),
    text: z.string(),
  }),
  z.strictObject({
    type: z.literal('tool-result'),
    ...runRef,
    tool_call_id: z.string(),
    tool_name: z.string(),
    output: z.unknown(),
    /** True when the tool refused or failed; `output` is then `{ code, message }`. */
    is_error: z.boolean(),
    ...exploredBy,
  }),
  /**
   * A write_file / edit_file call waiting for an answer (its approval, which follows this event, or
   * the host's own question): the unified diff it would make to the file as it is (bounded like a
   * tool's diff, Bastion's own credentials redacted). None when the file cannot be read as text or
   * the edit would not apply; the tool's result carries the diff it made.
   */
  z.strictObject({
    type: z.literal('tool-preview'),
    ...runRef,
    tool_call_id: z.string(),
    preview_diff: z.string(),
  }),
  z.strictObject({
    type: z.literal('tool-approval-request'),
    ...runRef,
    approval_id: z.string(),
    tool_call_id: z.string(),
    tool_name: z.string(),
    input: z.unknown(),
  }),
  /**
   * A tool-approval-request was answered (in any tab, window or terminal): every client showing the
   * session stops asking it. With several approvals in one step the run goes on (a new run) only
   * once the last of them is answered; each answer is told as it is given.
   */
  z.strictObject({
    type: z.literal('tool-approval-response'),
    ...runRef,
    approval_id: z.string(),
    tool_call_id: z.string(),
    approved: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('run-finished'),
    ...runRef,
    /** `approval-pending`: the run stopped to wait for an answer to a tool-approval-request. */
    finish_reason: z.enum(['stop', 'length', 'tool-calls', 'approval-pending', 'content-filter', 'other']),
    usage: tokenUsageSchema.optional(),
    /**
     * How full the model's context window was after the run's last step: that step's input plus
     * output tokens as the provider reported them, and the window the run worked with. Absent
     * when no step reported tokens (the demo model).
     */
    context: runContextSchema.optional(),
  }),
  /** A provider answered 429 or 5xx; the same provider is tried again after `delay_ms`. */
  z.strictObject({
    type: z.literal('run-retry'),
    ...runRef,
    attempt: z.number().int().positive(),
    max_attempts: z.number().int().positive(),
    delay_ms: z.number().int().nonnegative(),
    status: z.number().int().optional(),
    message: z.string(),
  }),
  /**
   * Project instruction files (AGENTS.md, or CLAUDE.md) that reached the model's system prompt for
   * the first time in this run, relative to the workspace root: the root's before the first step,
   * a directory's once the agent has worked in it.
   */
  z.strictObject({
    type: z.literal('instructions-read'),
    ...runRef,
    paths: z.array(z.string().min(1).max(WORKSPACE_MAX_PATH_CHARS)).min(1).max(INSTRUCTIONS_MAX_DIRECTORIES),
  }),
  /** Older turns were summarised before the next step; the stored transcript stays whole. */
  z.strictObject({
    type: z.literal('context-compacted'),
    ...runRef,
    messages_summarized: z.number().int().nonnegative(),
  }),
  /**
   * The files a finished run wrote were put back (POST /agent/undo): `run_id` names that run.
   * Files listed in `not_undone` and whatever its commands changed were left as they are.
   */
  z.strictObject({
    type: z.literal('run-undone'),
    ...runRef,
    restored: z.array(z.string()),
    removed: z.array(z.string()),
    not_undone: z.array(z.string()),
    commands: z.number().int().nonnegative(),
  }),
  /**
   * The session went back to before the prompt of `run_id` (POST /agent/rewind): that prompt and
   * the `turns` after it are no longer sent to the model; the events before this one stay, for the
   * record. With `files`, the files the rewound turns wrote were put back (`restored`, `removed`;
   * `not_undone` had no earlier copy); what their commands changed stays.
   */
  z.strictObject({
    type: z.literal('context-rewound'),
    ...runRef,
    turns: z.number().int().positive(),
    files: z.boolean(),
    restored: z.array(z.string()),
    removed: z.array(z.string()),
    not_undone: z.array(z.string()),
    commands: z.number().int().nonnegative(),
  }),
  z.strictObject({
    type: z.literal('run-error'),
    ...runRef,
    /** A RunErrorCode (or a provider's, transport's or tool's code) when written; kept as a string because the row outlives the code list. */
    code: z.string(),
    message: z.string(),
    /** The provider's HTTP status, when the error came from a provider response. */
    status: z.number().int().optional(),
    retry_after_ms: z.number().int().nonnegative().optional(),
  }),
]);
export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent['type'];
/** An event as streamed: its persisted id (the SSE `id:` line) and the event. */
export const agentStreamEventSchema = z.strictObject({ id: z.number().int().positive(), event: agentEventSchema });
export type AgentStreamEvent = z.infer<typeof agentStreamEventSchema>;

/**
 * `GET /sessions/:id/events?limit&cursor`: a session's persisted events, newest page first, so a
 * page can show a long session's end without reading its start. `cursor` is the previous page's
 * `next` (the page holds events with smaller ids).
 */
export const eventPageQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(EVENT_PAGE_MAX_LIMIT).optional(),
  cursor: z
    .string()
    .regex(/^[1-9]\d{0,14}$/)
    .optional(),
});
export type EventPageQuery = z.infer<typeof eventPageQuerySchema>;

export const eventPageResponseSchema = z.strictObject({
  /** Oldest first. A page starts at a `run-started` unless one run alone is longer than the page. */
  events: z.array(agentStreamEventSchema),
  /** The stored user prompts the page's `run-started` events name (`message_id`). */
  messages: z.array(messageSchema),
  /** Pass as `cursor` for the page before this one; null when this page reaches the first event. */
  next: z.string().nullable(),
});
export type EventPageResponse = z.infer<typeof eventPageResponseSchema>;

export type AgentErrorCode =
  | 'RUN_ACTIVE'
  | 'RUN_LIMIT'
  | 'RUN_ABORTED'
  | 'RUN_INTERRUPTED'
  | 'MESSAGE_TOO_LARGE'
  | 'SEND_ID_REUSED'
  | 'PROVIDER_UNKNOWN'
  | 'PROVIDER_FAILED'
  | 'PROVIDER_RATE_LIMITED'
  | 'PROVIDER_UNAVAILABLE'
  | 'STREAM_LIMIT';
