/**
 * How an MCP server's tool is named to the model, the policy and the UI: `mcp__SERVER__TOOL`.
 * Server names hold no `_`, so the first `__` after the prefix always ends the server's. The
 * whole name keeps to what every provider takes as a function name (`^[A-Za-z0-9_-]{1,64}$`); a
 * server's tool whose name cannot be put so is left out. Also the variables Bastion sets for every
 * server. Zod-free: the web bundle imports it.
 */
import {
  MCP_ENV_NAME_MAX_CHARS,
  MCP_PROMPT_ARGUMENT_NAME_MAX_CHARS,
  MCP_SERVER_NAME_MAX_CHARS,
  MCP_TOOL_NAME_MAX_CHARS,
} from './limits.js';

export const MCP_TOOL_PREFIX = 'mcp__';
/** A server's name: lower-case letters, digits and `-`, starting with a letter or digit. */
export const MCP_SERVER_NAME_PATTERN = new RegExp(`^[a-z0-9][a-z0-9-]{0,${MCP_SERVER_NAME_MAX_CHARS - 1}}$`);
/** A variable's name a server may be given: upper-case letters, digits and `_`, not starting with a digit. */
export const MCP_ENV_NAME_PATTERN = new RegExp(`^[A-Z_][A-Z0-9_]{0,${MCP_ENV_NAME_MAX_CHARS - 1}}$`);
const TOOL_PART = /^[A-Za-z0-9_-]+$/;
/** A prompt's argument's name, typed as `NAME=value`: letters, digits, `_`, `-` and `.`. */
export const MCP_PROMPT_ARGUMENT_NAME_PATTERN = new RegExp(`^[A-Za-z0-9_.-]{1,${MCP_PROMPT_ARGUMENT_NAME_MAX_CHARS}}$`);
/** A resource's URI as Bastion offers it: one word of printable characters (`@SERVER:URI` names it in a message). */
export const MCP_RESOURCE_URI_PATTERN = /^[^\s\p{Cc}\p{Cf}]+$/u;

/** The model's name for `tool` of `server`, or undefined when no such name can be made. */
export function mcpToolName(server: string, tool: string): string | undefined {
  if (!MCP_SERVER_NAME_PATTERN.test(server) || !TOOL_PART.test(tool)) return undefined;
  const name = `${MCP_TOOL_PREFIX}${server}__${tool}`;
  return name.length <= MCP_TOOL_NAME_MAX_CHARS ? name : undefined;
}

/** The server and the tool a model-facing name stands for; undefined for any other tool's name. */
export function splitMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const cut = rest.indexOf('__');
  if (cut <= 0) return undefined;
  const server = rest.slice(0, cut);
  const tool = rest.slice(cut + 2);
  return mcpToolName(server, tool) === name ? { server, tool } : undefined;
}

/** The variable that names a server's own data folder, kept between its runs. */
export const MCP_DATA_ENV = 'BASTION_MCP_DATA';

/** The variables Bastion sets for every server itself: a server's definition may not set them. */
export const MCP_RESERVED_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'TERM',
  'PWD',
  MCP_DATA_ENV,
];
