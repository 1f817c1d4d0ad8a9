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
} from '../limits.js';
import { MCP_ENV_NAME_PATTERN, MCP_RESERVED_ENV_NAMES, MCP_SERVER_NAME_PATTERN } from '../mcp-tool-name.js';

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
  /** Tools the server offers that the agent is not given, and why, in words (a name no provider takes, too many, a schema too large). */
  left_out: z.array(z.string().max(MCP_ERROR_MAX_CHARS)).max(MCP_MAX_TOOLS_PER_SERVER),
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
