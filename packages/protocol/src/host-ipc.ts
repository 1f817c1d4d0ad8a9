/**
 * Host IPC (SEC-004): the renderer's only way to ask the host for something, over
 * `POST /_host/ipc/<channel>` on the UI origin. The channel list is closed; each channel has a
 * strict input and output schema. The bridge imports these types only.
 */
import { z } from 'zod';
import { channelIdSchema } from './channel/channel-id.js';
import { CHANNEL_MAX_SECRET_CHARS, MAX_TCP_PORT } from './limits.js';
import { wireErrorCodeSchema } from './wire-error-schema.js';
import {
  hostAuditPageSchema,
  hostAskAnswerSchema,
  hostAskListSchema,
  hostAuditQuerySchema,
  policyListingSchema,
  policyRuleDraftSchema,
  policyRuleIdSchema,
  policyRuleSchema,
} from './policy.js';
import {
  mcpAttachedResourceSchema,
  mcpListingSchema,
  mcpPromptRequestSchema,
  mcpPromptTextSchema,
  mcpResourceRequestSchema,
  mcpServerConfigSchema,
  mcpServerNameSchema,
} from './api/mcp.js';

export const HOST_IPC_PATH_PREFIX = '/_host/ipc/';

export const hostIpcChannelSchema = z.enum([
  'agent.server-info',
  'chatgpt.connect',
  'chatgpt.cancel',
  'chatgpt.status',
  'chatgpt.sign-out',
  'endpoints.request-consent',
  'workspaces.request-grant',
  'policy.list',
  'policy.add',
  'policy.remove',
  'policy.audit',
  'asks.wait',
  'asks.answer',
  'mcp.list',
  'mcp.add',
  'mcp.remove',
  'mcp.restart',
  'mcp.catalog',
  'mcp.prompt',
  'mcp.resource',
]);
export type HostIpcChannel = z.infer<typeof hostIpcChannelSchema>;

const noInput = z.strictObject({});

/** `agent.server-info`: where the current sidecar answers and its per-spawn password. */
export const serverInfoSchema = z.strictObject({
  port: z.number().int().min(1).max(MAX_TCP_PORT),
  password: z.string().min(1).max(CHANNEL_MAX_SECRET_CHARS),
});
export type ServerInfo = z.infer<typeof serverInfoSchema>;

/** Safe ChatGPT connection status: display fields only, never a token or account id. */
export const chatgptStatusSchema = z.strictObject({
  state: z.enum(['signed-out', 'connecting', 'connected', 'error']),
  email: z.string().max(320).optional(),
  plan: z.string().max(64).optional(),
  code: wireErrorCodeSchema.optional(),
});
export type ChatgptStatus = z.infer<typeof chatgptStatusSchema>;

/** The host confirmer's verdict; the renderer only asks, the host decides. */
export const consentOutcomeSchema = z.strictObject({
  outcome: z.enum(['granted', 'denied', 'unavailable']),
  /** The canonical value the host showed and decided on (an origin, a workspace path). */
  subject: z.string().max(4096).optional(),
  code: wireErrorCodeSchema.optional(),
});
export type ConsentOutcome = z.infer<typeof consentOutcomeSchema>;

export const hostIpcSchemas = {
  'agent.server-info': { input: noInput, output: serverInfoSchema },
  'chatgpt.connect': { input: noInput, output: chatgptStatusSchema },
  'chatgpt.cancel': { input: noInput, output: chatgptStatusSchema },
  'chatgpt.status': { input: noInput, output: chatgptStatusSchema },
  'chatgpt.sign-out': { input: noInput, output: chatgptStatusSchema },
  'endpoints.request-consent': {
    input: z.strictObject({ url: z.string().min(1).max(2048) }),
    output: consentOutcomeSchema,
  },
  'workspaces.request-grant': {
    input: z.strictObject({ path: z.string().min(1).max(4096) }),
    output: consentOutcomeSchema,
  },
  // The watchdog's rules: `workspace` is a granted workspace root (its project's rules), null the global ones.
  'policy.list': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096).nullable() }),
    output: policyListingSchema,
  },
  'policy.add': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096).nullable(), rule: policyRuleDraftSchema }),
    output: z.strictObject({ rule: policyRuleSchema }),
  },
  'policy.remove': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096).nullable(), id: policyRuleIdSchema }),
    output: z.strictObject({ removed: z.boolean() }),
  },
  // The host's own audit log (host/audit.jsonl), read by the host: the sidecar cannot write it.
  'policy.audit': { input: hostAuditQuerySchema, output: hostAuditPageSchema },
  // Host-owned asks: the tool calls the host holds for the person, answered here and never through the daemon.
  'asks.wait': {
    input: z.strictObject({ after: z.number().int().nonnegative().optional() }),
    output: hostAskListSchema,
  },
  // `always-allow` saves the held call's own `always_allow` rule (the host's, not the page's) first; `rule` is what was saved.
  'asks.answer': {
    input: z.strictObject({ id: channelIdSchema, answer: hostAskAnswerSchema }),
    output: z.strictObject({ answered: z.boolean(), rule: policyRuleSchema.optional() }),
  },
  // MCP servers (host `src/mcp/`): `workspace` is a granted workspace root, whose servers' states and tools are listed.
  'mcp.list': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096) }),
    output: mcpListingSchema,
  },
  // Saves the server to mcp.json and starts it in `workspace` at once, so the answer shows its tools or why it failed.
  'mcp.add': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096), server: mcpServerConfigSchema }),
    output: mcpListingSchema,
  },
  'mcp.remove': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096), name: mcpServerNameSchema }),
    output: mcpListingSchema,
  },
  // Stops the server wherever it runs and starts it again in `workspace`.
  'mcp.restart': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096), name: mcpServerNameSchema }),
    output: mcpListingSchema,
  },
  // The message box's prompts and resources: the listing once every server of mcp.json is started there (as a run starts them) or failed.
  'mcp.catalog': {
    input: z.strictObject({ workspace: z.string().min(1).max(4096) }),
    output: mcpListingSchema,
  },
  // A ready server's prompt, run with the person's arguments: its messages as one text, for the message box.
  'mcp.prompt': { input: mcpPromptRequestSchema, output: mcpPromptTextSchema },
  // A resource a ready server listed, read for a message: its text, refused when binary or too large.
  'mcp.resource': { input: mcpResourceRequestSchema, output: mcpAttachedResourceSchema },
} as const satisfies Record<HostIpcChannel, { input: z.ZodType; output: z.ZodType }>;

export type HostIpcInput<C extends HostIpcChannel> = z.infer<(typeof hostIpcSchemas)[C]['input']>;
export type HostIpcOutput<C extends HostIpcChannel> = z.infer<(typeof hostIpcSchemas)[C]['output']>;
