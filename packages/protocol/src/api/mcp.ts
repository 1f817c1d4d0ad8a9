/**
 * MCP servers: what the user names in `<home>/host/mcp.json` (host-owned, 0600, never read from
 * a workspace), and what the host says of each (its state in a workspace, its tools). The host
 * runs each server inside the command sandbox, per workspace, started when a run there first
 * needs its tools; the renderer edits the list through host IPC and the CLI through the control
 * socket, never through the daemon.
 */
import { z } from 'zod';
import {
  COMMAND_MAX_ARG_BYTES,
  COMMAND_MAX_ARGS,
  COMMAND_MAX_PATH_CHARS,
  MCP_ENV_VALUE_MAX_CHARS,
  MCP_ERROR_MAX_CHARS,
  MCP_MAX_ENV_VARS,
  MCP_MAX_SERVERS,
  MCP_MAX_TOOLS_PER_SERVER,
  MCP_SERVER_NAME_MAX_CHARS,
  MCP_TOOL_DESCRIPTION_MAX_CHARS,
  MCP_TOOL_NAME_MAX_CHARS,
  MCP_ENV_NAME_MAX_CHARS,
  MCP_MAX_PROMPTS_PER_SERVER,
  MCP_MAX_RESOURCES_PER_SERVER,
  MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER,
  MCP_RESOURCE_TEMPLATE_MAX_VARIABLES,
  MCP_OFFER_DESCRIPTION_MAX_CHARS,
  MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS,
  MCP_PROMPT_MAX_ARGUMENTS,
  MCP_PROMPT_MAX_SPANS,
  MCP_PROMPT_TEXT_MAX_CHARS,
  MCP_RESOURCE_MIME_TYPE_MAX_CHARS,
  MCP_RESOURCE_NAME_MAX_CHARS,
  MCP_RESOURCE_TEXT_MAX_BYTES,
  MCP_RESOURCE_URI_MAX_CHARS,
} from '../limits.js';
import {
  MCP_ENV_NAME_PATTERN,
  MCP_PROMPT_ARGUMENT_NAME_PATTERN,
  MCP_RESERVED_ENV_NAMES,
  MCP_RESOURCE_URI_PATTERN,
  MCP_SERVER_NAME_PATTERN,
} from '../mcp-tool-name.js';

export const mcpServerNameSchema = z
  .string()
  .regex(
    MCP_SERVER_NAME_PATTERN,
    `a server name is up to ${MCP_SERVER_NAME_MAX_CHARS} lower-case letters, digits and "-"`,
  );

/** An environment variable's name as a server may be given it (the sandbox's own names are refused). */
export const mcpEnvNameSchema = z
  .string()
  .regex(MCP_ENV_NAME_PATTERN, `a variable name is up to ${MCP_ENV_NAME_MAX_CHARS} upper-case letters, digits and "_"`)
  .refine(
    (name) => !MCP_RESERVED_ENV_NAMES.includes(name),
    `${MCP_RESERVED_ENV_NAMES.slice(0, -1).join(', ')} and ${MCP_RESERVED_ENV_NAMES.at(-1) ?? ''} are set by Bastion`,
  );

/** A NUL ends a C string: no program's argument or variable can hold one. */
const withoutNul = (schema: z.ZodString) => schema.refine((text) => !text.includes('\0'), 'a NUL character');

/** One server as the user named it: a program and its arguments, run without a shell. */
export const mcpServerConfigSchema = z.strictObject({
  name: mcpServerNameSchema,
  command: withoutNul(z.string().min(1).max(COMMAND_MAX_PATH_CHARS)),
  args: z.array(withoutNul(z.string().max(COMMAND_MAX_ARG_BYTES))).max(COMMAND_MAX_ARGS),
  /** Variables besides the sandbox's own; visible to the server, shown to the person by name only. */
  env: z
    .record(mcpEnvNameSchema, withoutNul(z.string().max(MCP_ENV_VALUE_MAX_CHARS)))
    .refine((env) => Object.keys(env).length <= MCP_MAX_ENV_VARS, `at most ${MCP_MAX_ENV_VARS} variables`)
    .optional(),
});
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

/** `<home>/host/mcp.json`. */
export const mcpConfigFileSchema = z.strictObject({
  version: z.literal(1),
  servers: z
    .array(mcpServerConfigSchema)
    .max(MCP_MAX_SERVERS)
    .refine((servers) => new Set(servers.map((server) => server.name)).size === servers.length, 'names repeat'),
});
export type McpConfigFile = z.infer<typeof mcpConfigFileSchema>;

/** One tool a server offers, as the UI lists it. */
export const mcpToolSummarySchema = z.strictObject({
  /** The server's own name for it. */
  name: z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS),
  description: z.string().max(MCP_TOOL_DESCRIPTION_MAX_CHARS),
});
export type McpToolSummary = z.infer<typeof mcpToolSummarySchema>;

/** One argument a prompt takes, typed as `NAME=value` after the prompt's command. */
export const mcpPromptArgumentSchema = z.strictObject({
  name: z.string().regex(MCP_PROMPT_ARGUMENT_NAME_PATTERN),
  description: z.string().max(MCP_OFFER_DESCRIPTION_MAX_CHARS),
  required: z.boolean(),
});
export type McpPromptArgument = z.infer<typeof mcpPromptArgumentSchema>;

/** One prompt a server offers the person, run as `/mcp__SERVER__NAME` (the name a tool of it would have). */
export const mcpPromptSummarySchema = z.strictObject({
  /** The server's own name for it. */
  name: z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS),
  description: z.string().max(MCP_OFFER_DESCRIPTION_MAX_CHARS),
  arguments: z.array(mcpPromptArgumentSchema).max(MCP_PROMPT_MAX_ARGUMENTS),
});
export type McpPromptSummary = z.infer<typeof mcpPromptSummarySchema>;

/** A resource's URI: one word (`@SERVER:URI` in a message names it), within MCP_RESOURCE_URI_MAX_CHARS. */
export const mcpResourceUriSchema = z.string().max(MCP_RESOURCE_URI_MAX_CHARS).regex(MCP_RESOURCE_URI_PATTERN);

/** One resource a server offers the person, attached to a message as `@SERVER:URI`. */
export const mcpResourceSummarySchema = z.strictObject({
  uri: mcpResourceUriSchema,
  /** Its title, else its name, cut to MCP_RESOURCE_NAME_MAX_CHARS. */
  name: z.string().max(MCP_RESOURCE_NAME_MAX_CHARS),
  description: z.string().max(MCP_OFFER_DESCRIPTION_MAX_CHARS),
  mime_type: z.string().max(MCP_RESOURCE_MIME_TYPE_MAX_CHARS).optional(),
  /** Its size in bytes, as the server says (unchecked: the text read is what is bounded). */
  size: z.number().int().nonnegative().optional(),
});
export type McpResourceSummary = z.infer<typeof mcpResourceSummarySchema>;

/**
 * One resource template a server offers the person (`resources/templates/list`): in the @ menu,
 * its variables asked of the person, then the URI it expands to (RFC 6570, by the host) read as a
 * resource is, within the same bounds.
 */
export const mcpResourceTemplateSummarySchema = z.strictObject({
  /** The template as the server listed it, one word (`file:///{path}`). */
  uri_template: mcpResourceUriSchema,
  /** Its title, else its name, cut to MCP_RESOURCE_NAME_MAX_CHARS. */
  name: z.string().max(MCP_RESOURCE_NAME_MAX_CHARS),
  description: z.string().max(MCP_OFFER_DESCRIPTION_MAX_CHARS),
  mime_type: z.string().max(MCP_RESOURCE_MIME_TYPE_MAX_CHARS).optional(),
  /** Its variables' names, in order, each asked of the person. */
  variables: z
    .array(z.string().regex(MCP_PROMPT_ARGUMENT_NAME_PATTERN))
    .min(1)
    .max(MCP_RESOURCE_TEMPLATE_MAX_VARIABLES),
});
export type McpResourceTemplateSummary = z.infer<typeof mcpResourceTemplateSummarySchema>;

/**
 * A server's state in one workspace: `stopped` (not started there yet, or stopped), `starting`,
 * `ready` (its tools listed), `failed` (`error` says why, in words; started again by a restart or
 * the next run after a change to its definition).
 */
export const mcpServerStateSchema = z.enum(['stopped', 'starting', 'ready', 'failed']);
export type McpServerState = z.infer<typeof mcpServerStateSchema>;

export const mcpServerStatusSchema = z.strictObject({
  name: mcpServerNameSchema,
  command: z.string().min(1).max(COMMAND_MAX_PATH_CHARS),
  args: z.array(z.string().max(COMMAND_MAX_ARG_BYTES)).max(COMMAND_MAX_ARGS),
  /** The names of its `env`, never their values. */
  env_names: z.array(mcpEnvNameSchema).max(MCP_MAX_ENV_VARS),
  /** Its own data folder, the one place it writes that is kept between runs (`BASTION_MCP_DATA`). */
  data: z.string().max(COMMAND_MAX_PATH_CHARS),
  state: mcpServerStateSchema,
  error: z.string().max(MCP_ERROR_MAX_CHARS).optional(),
  tools: z.array(mcpToolSummarySchema).max(MCP_MAX_TOOLS_PER_SERVER),
  /** Its prompts, for the person to run (never the agent's to call). */
  prompts: z.array(mcpPromptSummarySchema).max(MCP_MAX_PROMPTS_PER_SERVER),
  /** Its resources, for the person to attach to a message (never the agent's to read). */
  resources: z.array(mcpResourceSummarySchema).max(MCP_MAX_RESOURCES_PER_SERVER),
  /** Its resource templates, for the person to fill in and attach (never the agent's). */
  resource_templates: z.array(mcpResourceTemplateSummarySchema).max(MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER),
  /**
   * Tools the server offers that the agent is not given, and prompts and resources not offered,
   * and why, in words (a name no provider takes, too many, a schema too large).
   */
  left_out: z
    .array(z.string().max(MCP_ERROR_MAX_CHARS))
    .max(
      MCP_MAX_TOOLS_PER_SERVER +
        MCP_MAX_PROMPTS_PER_SERVER +
        MCP_MAX_RESOURCES_PER_SERVER +
        MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER,
    ),
});
export type McpServerStatus = z.infer<typeof mcpServerStatusSchema>;

/** The servers in one workspace (`workspace`: its root, as granted). */
export const mcpListingSchema = z.strictObject({
  /** The host's file the list is kept in, for the person to read. */
  file: z.string().max(COMMAND_MAX_PATH_CHARS),
  workspace: z.string().max(COMMAND_MAX_PATH_CHARS),
  /** False where commands run unsandboxed: servers then do not run at all, and `reason` says so. */
  available: z.boolean(),
  reason: z.string().max(MCP_ERROR_MAX_CHARS).optional(),
  servers: z.array(mcpServerStatusSchema).max(MCP_MAX_SERVERS),
});
export type McpListing = z.infer<typeof mcpListingSchema>;

/** `mcp.prompt` (host IPC): a ready server's prompt, run with the arguments typed after it. */
export const mcpPromptRequestSchema = z.strictObject({
  workspace: z.string().min(1).max(4096),
  server: mcpServerNameSchema,
  name: z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS),
  arguments: z
    .record(z.string().regex(MCP_PROMPT_ARGUMENT_NAME_PATTERN), z.string().max(MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS))
    .refine(
      (given) => Object.keys(given).length <= MCP_PROMPT_MAX_ARGUMENTS,
      `at most ${MCP_PROMPT_MAX_ARGUMENTS} arguments`,
    ),
});
/** Its messages as one text, for the message box (refused, never cut, beyond MCP_PROMPT_TEXT_MAX_CHARS). */
export const mcpPromptTextSchema = z.strictObject({ text: z.string().max(MCP_PROMPT_TEXT_MAX_CHARS) });
export type McpPromptText = z.infer<typeof mcpPromptTextSchema>;

/** Whether a text is within `max` bytes of UTF-8. */
const withinUtf8 = (max: number) => (text: string) =>
  text.length <= max && new TextEncoder().encode(text).byteLength <= max;

/**
 * `mcp.resource` (host IPC): one resource a ready server listed, read for a message; with
 * `variables`, `uri` is a resource template it listed, expanded by the host with these values (the
 * person's, one for each of its variables).
 */
export const mcpResourceRequestSchema = z.strictObject({
  workspace: z.string().min(1).max(4096),
  server: mcpServerNameSchema,
  uri: mcpResourceUriSchema,
  variables: z
    .record(z.string().regex(MCP_PROMPT_ARGUMENT_NAME_PATTERN), z.string().max(MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS))
    .refine(
      (given) => Object.keys(given).length <= MCP_RESOURCE_TEMPLATE_MAX_VARIABLES,
      `at most ${MCP_RESOURCE_TEMPLATE_MAX_VARIABLES} values`,
    )
    .optional(),
});

/** A resource attached to a message: its text (refused, never cut, beyond MCP_RESOURCE_TEXT_MAX_BYTES). */
export const mcpAttachedResourceSchema = z.strictObject({
  server: mcpServerNameSchema,
  uri: mcpResourceUriSchema,
  name: z.string().max(MCP_RESOURCE_NAME_MAX_CHARS),
  text: z
    .string()
    .refine(
      withinUtf8(MCP_RESOURCE_TEXT_MAX_BYTES),
      `a resource's text is at most ${MCP_RESOURCE_TEXT_MAX_BYTES / 1024} KiB`,
    ),
});
export type McpAttachedResource = z.infer<typeof mcpAttachedResourceSchema>;

/** The prompt of a server a message's text came from (`/mcp__SERVER__NAME`, then sent from the box). */
export const mcpPromptOriginSchema = z.strictObject({
  server: mcpServerNameSchema,
  name: z.string().min(1).max(MCP_TOOL_NAME_MAX_CHARS),
});
export type McpPromptOrigin = z.infer<typeof mcpPromptOriginSchema>;

/**
 * The ranges `[start, end)` of a message's text (UTF-16 offsets) its MCP server's prompt wrote:
 * kept with the message, so that the text brought back to the box (ArrowUp, a rewind) counts only
 * those as the server's (none of their `@SERVER:URI` words attaches a resource) and the words the
 * person typed as theirs. Sorted, each non-empty, none overlapping another; POST /agent/run checks
 * that each lies within the message. A message stored without them counts as the server's whole.
 */
export const mcpPromptSpansSchema = z
  .array(z.tuple([z.number().int().min(0), z.number().int().min(0)]))
  .max(MCP_PROMPT_MAX_SPANS)
  .refine(
    (spans) => spans.every(([start, end], index) => start < end && start >= (spans[index - 1]?.[1] ?? 0)),
    'spans are sorted, each non-empty, and none overlaps another',
  );

/** The prompt a message's text came from, with the ranges of the text it wrote (`POST /agent/run`'s `mcp_prompt`). */
export const mcpPromptSentSchema = mcpPromptOriginSchema.extend({ spans: mcpPromptSpansSchema.optional() });
export type McpPromptSent = z.infer<typeof mcpPromptSentSchema>;

/**
 * Where a text part of a stored prompt came from, besides the person's typing: the server's prompt
 * the message's text came from, or a resource attached to it (its text is the part's).
 */
export const mcpTextOriginSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('prompt'),
    server: mcpServerNameSchema,
    name: z.string(),
    /** The ranges of the text the prompt wrote (mcpPromptSpansSchema); absent in a message stored before they were kept. */
    spans: mcpPromptSpansSchema.optional(),
  }),
  z.strictObject({ kind: z.literal('resource'), server: mcpServerNameSchema, uri: z.string(), name: z.string() }),
]);
export type McpTextOrigin = z.infer<typeof mcpTextOriginSchema>;
