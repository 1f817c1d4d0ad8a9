/**
 * Channel v1 frame schemas (SEC-004). Every frame is a strict object with `v: 1` and a `type`;
 * unknown keys, wrong types and oversize fields are schema errors, which close the channel.
 */
import { z } from 'zod';
import {
  CHANNEL_MAX_ALLOWED_ORIGINS,
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  CHANNEL_MAX_BOOTSTRAP_WORKSPACES,
  CHANNEL_MAX_ORIGIN_CHARS,
  CHANNEL_MAX_PLATFORM_CHARS,
  CHANNEL_MAX_REASON_CHARS,
  CHANNEL_MAX_SECRET_CHARS,
  COMMAND_MAX_ARG_BYTES,
  COMMAND_MAX_ARGS,
  COMMAND_MAX_ERROR_CODE_CHARS,
  COMMAND_MAX_NOTICES,
  COMMAND_MAX_PATH_CHARS,
  COMMAND_MAX_SIGNAL_CHARS,
  COMMAND_MAX_TIMEOUT_MS,
  COMMAND_NOTICE_MAX_CHARS,
  MAX_TCP_PORT,
  MCP_CALL_ARGS_MAX_BYTES,
  MCP_ERROR_MAX_CHARS,
  MCP_MAX_SERVERS,
  MCP_MAX_TOOLS_PER_SERVER,
  MCP_RESULT_MAX_BYTES,
  MCP_TOOL_DESCRIPTION_MAX_CHARS,
  MCP_TOOL_NAME_MAX_CHARS,
  MCP_TOOL_SCHEMA_MAX_BYTES,
  TRANSPORT_MAX_CREDIT_BYTES,
  TRANSPORT_MAX_ERROR_KIND_CHARS,
  TRANSPORT_MAX_GRANTS,
  TRANSPORT_MAX_HEADER_NAME_CHARS,
  TRANSPORT_MAX_HEADER_VALUE_BYTES,
  TRANSPORT_MAX_HEADERS,
  TRANSPORT_MAX_METHOD_CHARS,
  TRANSPORT_MAX_STATUS,
  TRANSPORT_MAX_URL_CHARS,
  TRANSPORT_MIN_STATUS,
  WORKSPACE_MAX_PATH_CHARS,
  WORKSPACE_MAX_WRITE_BYTES,
} from '../limits.js';
import { chatgptBootstrapSchema } from '../api/chatgpt.js';
import { MCP_CALL_ERROR_CODES, TRANSPORT_ERROR_CODES, WORKSPACE_WRITE_ERROR_CODES } from '../error-codes.js';
import { mcpServerNameSchema, mcpServerStateSchema } from '../api/mcp.js';
import { policyAnswerSchema, policyCallSchema, policyRuleIdSchema } from '../policy.js';
import { channelIdSchema } from './channel-id.js';

/** A frame schema: a strict object of `v: 1`, the literal `type`, and the frame's own fields. */
function frame<T extends string, F extends z.ZodRawShape>(type: T, fields: F) {
  return z.strictObject({ v: z.literal(1), type: z.literal(type), ...fields });
}

const id = channelIdSchema;
/**
 * A provider request/response body chunk or a command's output chunk: raw bytes, carried only by
 * the binary frame kinds (see codec.ts). Raw bytes instead of base64 in JSON remove the
 * encode/parse/decode copies per chunk (bench/README.md has the throughput each gave), and neither
 * end copies the body at all (the encoder writes it behind its header, the decoder hands on views).
 * What remains is the hop itself: the host writes every byte into the sidecar's stdio socket on
 * the thread that also reads it from upstream (see README, benchmarks).
 */
const bodyChunk = z.custom<Uint8Array>(
  (value) => value instanceof Uint8Array && value.byteLength <= CHANNEL_MAX_BODY_CHUNK_BYTES,
  'body chunk is not bytes or is larger than the bound',
);
const headerName = z
  .string()
  .min(1)
  .max(TRANSPORT_MAX_HEADER_NAME_CHARS)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
const headerValue = z
  .string()
  .max(TRANSPORT_MAX_HEADER_VALUE_BYTES)
  .regex(/^[^\r\n\0]*$/);
const headers = z.array(z.tuple([headerName, headerValue])).max(TRANSPORT_MAX_HEADERS);
const absolutePath = z.string().min(1).max(COMMAND_MAX_PATH_CHARS).startsWith('/');
const origin = z.string().min(1).max(CHANNEL_MAX_ORIGIN_CHARS);
const port = z.number().int().min(1).max(MAX_TCP_PORT);
/** Bytes of credit granted in one frame. */
const credit = z.number().int().min(1).max(TRANSPORT_MAX_CREDIT_BYTES);
const revision = z.number().int().nonnegative();

/**
 * The frames that carry one body of a provider request, whichever way it flows (`request`: the
 * upload, sidecar → host; `response`: the download, host → sidecar): its chunks and its end from
 * the sender, and the credit the receiver grants (the sender may send that many more bytes).
 */
function bodyFrames<B extends 'request' | 'response'>(body: B) {
  return {
    chunk: frame(`${body}.chunk` as const, { request_id: id, data: bodyChunk }),
    end: frame(`${body}.end` as const, { request_id: id }),
    credit: frame(`${body}.credit` as const, { request_id: id, bytes: credit }),
  };
}
const uploadFrames = bodyFrames('request');
const downloadFrames = bodyFrames('response');

export const sandboxKindSchema = z.enum(['srt', 'none']);
export type SandboxKind = z.infer<typeof sandboxKindSchema>;

/** The posture the host decided; the sidecar never decides its own. */
export const capabilitiesSchema = z.strictObject({
  sandbox: sandboxKindSchema,
  shell: z.boolean(),
  platform: z.string().min(1).max(CHANNEL_MAX_PLATFORM_CHARS),
  /** Why the posture is reduced (missing packages, platform), for banners and logs. */
  reason: z.string().max(CHANNEL_MAX_REASON_CHARS).optional(),
});
export type Capabilities = z.infer<typeof capabilitiesSchema>;

/** What a request may do: a provider call (credentials allowed) or a credential-free asset download. */
export const transportOpSchema = z.enum(['provider', 'asset']);
export type TransportOp = z.infer<typeof transportOpSchema>;

/**
 * One exact-origin grant as the sidecar sees it. The host's copy is authoritative; the sidecar's
 * copy only lets it pick the grant id and refuse early.
 */
export const grantSchema = z.strictObject({
  grant_id: id,
  /** Exact origin (scheme, host, port), canonical WHATWG serialisation. */
  origin,
  op: transportOpSchema,
  /** Built-in grants are immutable; custom ones exist only after host-owned consent. */
  kind: z.enum(['builtin', 'custom']),
});
export type Grant = z.infer<typeof grantSchema>;

// ── host → sidecar ──────────────────────────────────────────────────────────

export const bootstrapFrameSchema = frame('bootstrap', {
  password: z.string().min(1).max(CHANNEL_MAX_SECRET_CHARS),
  /** The host's listener port; the daemon's Host guard and readiness attestation use it. */
  daemon_port: port,
  allowed_origins: z.array(origin).min(1).max(CHANNEL_MAX_ALLOWED_ORIGINS),
  user_data: absolutePath,
  workspaces: z.array(absolutePath).max(CHANNEL_MAX_BOOTSTRAP_WORKSPACES),
  capabilities: capabilitiesSchema,
  /** SEC-008: the effective ChatGPT OAuth profile and the per-spawn host key; absent = provider off. */
  chatgpt: chatgptBootstrapSchema.optional(),
});

export const shutdownFrameSchema = frame('shutdown', {});

export const grantUpdateFrameSchema = frame('grant.update', {
  revision,
  grants: z.array(grantSchema).max(TRANSPORT_MAX_GRANTS),
});

export const responseStartFrameSchema = frame('response.start', {
  request_id: id,
  status: z.number().int().min(TRANSPORT_MIN_STATUS).max(TRANSPORT_MAX_STATUS),
  headers,
});
/** Upload credit: the sidecar may send this many more body bytes for the request. */
export const requestCreditFrameSchema = uploadFrames.credit;
export const responseChunkFrameSchema = downloadFrames.chunk;
export const responseEndFrameSchema = downloadFrames.end;
export const responseErrorFrameSchema = frame('response.error', {
  request_id: id,
  code: z.enum(TRANSPORT_ERROR_CODES),
  /** EGRESS_SECRET: the kind of secret the request carried (`aws-access-key-id`, `credential:openai`), never its value. */
  kind: z
    .string()
    .min(1)
    .max(TRANSPORT_MAX_ERROR_KIND_CHARS)
    .regex(/^[a-z0-9][a-z0-9:-]*$/)
    .optional(),
});

export const commandOutputFrameSchema = frame('command.output', {
  id,
  stream: z.enum(['stdout', 'stderr']),
  data: bodyChunk,
});
export const commandEndFrameSchema = frame('command.end', {
  id,
  exit_code: z.number().int().nullable(),
  signal: z.string().max(COMMAND_MAX_SIGNAL_CHARS).nullable(),
  timed_out: z.boolean(),
  truncated: z.boolean(),
  duration_ms: z.number().nonnegative(),
  /** What the host neutralised or flagged after the command (git-created-repositories.ts), for the agent and the user. */
  notices: z.array(z.string().max(COMMAND_NOTICE_MAX_CHARS)).max(COMMAND_MAX_NOTICES).optional(),
});
export const commandAbortedFrameSchema = frame('command.aborted', {
  id,
});
export const commandErrorFrameSchema = frame('command.error', {
  id,
  /** A CommandErrorCode from this host; any other string reaches the model as SHELL_HOST_REFUSED (command-client.ts), never as itself. */
  code: z.string().min(1).max(COMMAND_MAX_ERROR_CODE_CHARS),
});

/** The host wrote the file of a `workspace.write`: how many bytes, and whether it was new. */
export const workspaceWrittenFrameSchema = frame('workspace.written', {
  id,
  bytes: z.number().int().min(0).max(WORKSPACE_MAX_WRITE_BYTES),
  created: z.boolean(),
});
/** The host did what a `workspace.remove` asked, or (`removed: false`) there was nothing it could remove. */
export const workspaceRemovedFrameSchema = frame('workspace.removed', {
  id,
  removed: z.boolean(),
});
/** The host refused or failed a `workspace.write` / `workspace.remove`; nothing was written or removed. */
export const workspaceErrorFrameSchema = frame('workspace.error', {
  id,
  code: z.enum(WORKSPACE_WRITE_ERROR_CODES),
  /** POLICY_DENIED: the rule that denied it. */
  rule_id: policyRuleIdSchema.optional(),
  /**
   * FS_PROTECTED for a path a protected name links to: that name, relative to the root
   * (`AGENTS.md` for `docs/guide.md` when `AGENTS.md → docs/guide.md`).
   */
  linked_from: z
    .string()
    .min(1)
    .max(WORKSPACE_MAX_PATH_CHARS)
    .regex(/^[^\0]*$/)
    .optional(),
  /** FS_PROTECTED because the workspace is too large to look for links to protected names. */
  scan_incomplete: z.literal(true).optional(),
});

/** The host's policy answer for one `policy.check` (the watchdog hook before a tool call). */
export const policyDecisionFrameSchema = frame('policy.decision', {
  id,
  ...policyAnswerSchema.shape,
});

/** One tool of a ready server, for the sidecar to offer the model: its input schema as JSON text. */
const mcpListedTool = z.strictObject({
  name: z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS),
  description: z.string().max(MCP_TOOL_DESCRIPTION_MAX_CHARS),
  input_schema: z.string().min(2).max(MCP_TOOL_SCHEMA_MAX_BYTES),
});
/** The MCP servers of a workspace (`mcp.list`), each in the state the host could bring it to in time. */
export const mcpListedFrameSchema = frame('mcp.listed', {
  id,
  available: z.boolean(),
  servers: z
    .array(
      z.strictObject({
        name: mcpServerNameSchema,
        state: mcpServerStateSchema,
        tools: z.array(mcpListedTool).max(MCP_MAX_TOOLS_PER_SERVER),
      }),
    )
    .max(MCP_MAX_SERVERS),
});
/** What an `mcp.call`'s tool answered: its text content (other content named in words), cut to MCP_RESULT_MAX_BYTES. */
export const mcpResultFrameSchema = frame('mcp.result', {
  id,
  is_error: z.boolean(),
  text: z.string().max(MCP_RESULT_MAX_BYTES),
  truncated: z.boolean(),
});
/** The host ran no tool for an `mcp.call`, or the server failed it. */
export const mcpErrorFrameSchema = frame('mcp.error', {
  id,
  code: z.enum(MCP_CALL_ERROR_CODES),
  message: z.string().max(MCP_ERROR_MAX_CHARS).optional(),
});

export const hostToSidecarFrameSchema = z.discriminatedUnion('type', [
  bootstrapFrameSchema,
  shutdownFrameSchema,
  grantUpdateFrameSchema,
  requestCreditFrameSchema,
  responseStartFrameSchema,
  responseChunkFrameSchema,
  responseEndFrameSchema,
  responseErrorFrameSchema,
  commandOutputFrameSchema,
  commandEndFrameSchema,
  commandAbortedFrameSchema,
  commandErrorFrameSchema,
  policyDecisionFrameSchema,
  workspaceWrittenFrameSchema,
  workspaceRemovedFrameSchema,
  workspaceErrorFrameSchema,
  mcpListedFrameSchema,
  mcpResultFrameSchema,
  mcpErrorFrameSchema,
]);
export type HostToSidecarFrame = z.infer<typeof hostToSidecarFrameSchema>;

// ── sidecar → host ──────────────────────────────────────────────────────────

export const requestStartFrameSchema = frame('request.start', {
  request_id: id,
  grant_id: id,
  op: transportOpSchema,
  method: z
    .string()
    .min(1)
    .max(TRANSPORT_MAX_METHOD_CHARS)
    .regex(/^[A-Z]+$/),
  url: z.string().min(1).max(TRANSPORT_MAX_URL_CHARS),
  headers,
  has_body: z.boolean(),
  /**
   * `manual`: a 3xx comes back to the sidecar as it is, never followed (the token endpoint pins
   * its destination this way). Absent: the host follows redirects, each hop re-authorised.
   */
  redirect: z.literal('manual').optional(),
});
export const requestChunkFrameSchema = uploadFrames.chunk;
export const requestEndFrameSchema = uploadFrames.end;
export const requestAbortFrameSchema = frame('request.abort', {
  request_id: id,
});
/** Download credit: the host may send this many more body bytes of the response. */
export const responseCreditFrameSchema = downloadFrames.credit;
export const grantAppliedFrameSchema = frame('grant.applied', {
  revision,
});

/**
 * The session and run a tool call belongs to, as the sidecar reports them: the host records them
 * beside its decision (host audit log) but cannot check them, so it never decides anything by them.
 */
const reportedRun = { session_id: id.optional(), run_id: id.optional() };

export const commandRequestFrameSchema = frame('command.request', {
  id,
  command: z.string().min(1).max(COMMAND_MAX_PATH_CHARS),
  args: z.array(z.string().max(COMMAND_MAX_ARG_BYTES)).max(COMMAND_MAX_ARGS),
  cwd: absolutePath,
  workspace_root: absolutePath,
  scratch_dir: absolutePath.optional(),
  timeout_ms: z.number().int().min(1).max(COMMAND_MAX_TIMEOUT_MS),
  /**
   * A sidecar's claim that a person approved this call. The host never acts on it: for a command
   * its policy says `ask` for, it asks the person itself (host host-asks.ts). Still parsed, so a
   * sidecar that makes the claim is shown to gain nothing by it (host-enforced-policy.test.ts).
   */
  approved: z.boolean().optional(),
  ...reportedRun,
});
export const commandAbortFrameSchema = frame('command.abort', {
  id,
});

/** A path inside a workspace root, relative to it, as the tool or route was asked for it. */
const workspacePath = z
  .string()
  .min(1)
  .max(WORKSPACE_MAX_PATH_CHARS)
  .regex(/^[^\0]*$/);
/**
 * The file tool whose write this is, as the sidecar reports it: the host evaluates its policy
 * rules under this name (an undo's or the write route's write counts as `write_file`).
 */
const writingTool = z.enum(['write_file', 'edit_file']);

/**
 * Ask the host to write a file in a granted workspace (SEC-004): the sidecar's own view of the
 * workspace is read-only, so every file tool write, undo's restores and the write route's writes
 * are the host's. The `size` bytes follow in `workspace.chunk` frames (none when it is 0).
 */
export const workspaceWriteFrameSchema = frame('workspace.write', {
  id,
  workspace_root: absolutePath,
  path: workspacePath,
  tool: writingTool,
  size: z.number().int().min(0).max(WORKSPACE_MAX_WRITE_BYTES),
  /**
   * The file as the person was shown it when they were asked about this write (its diff at the
   * approval or at the host's own question): the sha256 of its bytes, or null when there was no
   * file. The host writes only over that file, checked after its own question
   * (FS_CHANGED_SINCE_SHOWN otherwise); absent when nobody was shown a diff.
   */
  shown_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional(),
  ...reportedRun,
});
/** Part of a `workspace.write`'s bytes, in order (a binary frame kind, like command output). */
export const workspaceChunkFrameSchema = frame('workspace.chunk', {
  id,
  data: bodyChunk,
});
/**
 * Ask the host to remove a regular file (undo of one a run created) or a directory while it is
 * empty (one such a write created); the same checks as a write.
 */
export const workspaceRemoveFrameSchema = frame('workspace.remove', {
  id,
  workspace_root: absolutePath,
  path: workspacePath,
  kind: z.enum(['file', 'empty-directory']),
  /**
   * For a file: the bytes it must still hold (their sha256), as the undo that removes it found
   * them; the host removes it only then (FS_CHANGED_SINCE_SHOWN otherwise), so an edit made while
   * the undo runs is not lost.
   */
  shown_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  ...reportedRun,
});

/** Ask the host's policy about one tool call before it runs (the watchdog hook). */
export const policyCheckFrameSchema = frame('policy.check', {
  id,
  ...policyCallSchema.shape,
  ...reportedRun,
});

/** Ask for the MCP servers of a workspace and their tools; the host starts what is not running yet. */
export const mcpListFrameSchema = frame('mcp.list', {
  id,
  workspace_root: absolutePath,
});
/** Call one tool of one MCP server in a workspace; `arguments` is a JSON object's text. */
export const mcpCallFrameSchema = frame('mcp.call', {
  id,
  workspace_root: absolutePath,
  server: mcpServerNameSchema,
  tool: z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS),
  arguments: z.string().min(2).max(MCP_CALL_ARGS_MAX_BYTES),
  ...reportedRun,
});
/** Stop waiting for an `mcp.call`: the host cancels it at the server and answers nothing more. */
export const mcpAbortFrameSchema = frame('mcp.abort', {
  id,
});

export const sidecarToHostFrameSchema = z.discriminatedUnion('type', [
  requestStartFrameSchema,
  requestChunkFrameSchema,
  requestEndFrameSchema,
  requestAbortFrameSchema,
  responseCreditFrameSchema,
  grantAppliedFrameSchema,
  commandRequestFrameSchema,
  commandAbortFrameSchema,
  policyCheckFrameSchema,
  workspaceWriteFrameSchema,
  workspaceChunkFrameSchema,
  workspaceRemoveFrameSchema,
  mcpListFrameSchema,
  mcpCallFrameSchema,
  mcpAbortFrameSchema,
]);
export type SidecarToHostFrame = z.infer<typeof sidecarToHostFrameSchema>;

export type FrameOfType<F extends { type: string }, T extends F['type']> = Extract<F, { type: T }>;
