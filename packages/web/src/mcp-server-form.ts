/**
 * Settings → MCP servers, Add server: the form's fields read into a server definition exactly as
 * the person wrote them. There is no shell and no quoting: each line of Arguments is one argument,
 * spaces, quotes, `$VARS` and `~` included, as the program receives it; Environment is `NAME=value`
 * lines, the value everything after the first `=`. The host's schema checks the definition again;
 * this says what it would refuse in words, naming the line, before anything is sent.
 */
import {
  COMMAND_MAX_ARGS,
  COMMAND_MAX_PATH_CHARS,
  HOST_IPC_MAX_BODY_BYTES,
  MCP_ENV_VALUE_MAX_CHARS,
  MCP_MAX_ENV_VARS,
  MCP_ENV_NAME_MAX_CHARS,
  MCP_ENV_NAME_PATTERN,
  MCP_RESERVED_ENV_NAMES,
  MCP_SERVER_NAME_PATTERN,
} from '@bastion/protocol';
import type { McpServerConfig } from '@bastion/bridge';

export interface McpServerFields {
  name: string;
  command: string;
  /** One argument per line. */
  args: string;
  /** `NAME=value` per line. */
  env: string;
}

export type McpServerFormRead = { ok: true; server: McpServerConfig } | { ok: false; message: string };

/** The lines of a text box, a pasted CRLF's `\r` taken off each; empty lines are left out. */
function lines(text: string): { line: number; text: string }[] {
  return text
    .split('\n')
    .map((entry, index) => ({ line: index + 1, text: entry.endsWith('\r') ? entry.slice(0, -1) : entry }))
    .filter((entry) => entry.text !== '');
}

/** Each non-empty line one argument, exactly as written. */
export function argumentsOf(text: string): string[] {
  return lines(text).map((entry) => entry.text);
}

/** What may be a slip in an argument: spaces at its ends are passed as they are, which few programs expect. */
export function argumentWarnings(args: readonly string[]): string[] {
  return args.flatMap((arg, index) =>
    arg.trim() === arg
      ? []
      : [`Argument ${index + 1} ${/^\s/.test(arg) ? 'starts' : 'ends'} with a space, passed as it is.`],
  );
}

/** `NAME=value` lines into variables, or why a line cannot be read (naming it). */
export function environmentOf(
  text: string,
): { ok: true; env: Record<string, string> } | { ok: false; message: string } {
  const env: Record<string, string> = {};
  for (const { line, text: entry } of lines(text)) {
    const cut = entry.indexOf('=');
    if (cut < 0) return { ok: false, message: `Environment line ${line} has no "=": write VARIABLE=value.` };
    const name = entry.slice(0, cut);
    if (!MCP_ENV_NAME_PATTERN.test(name)) {
      return {
        ok: false,
        message: `Environment line ${line}: "${name}" is not a variable name (upper-case letters, digits and "_", up to ${MCP_ENV_NAME_MAX_CHARS}).`,
      };
    }
    if (MCP_RESERVED_ENV_NAMES.includes(name)) {
      return {
        ok: false,
        message: `Environment line ${line}: ${name} is set by Bastion (${MCP_RESERVED_ENV_NAMES.join(', ')} are).`,
      };
    }
    if (Object.hasOwn(env, name)) return { ok: false, message: `Environment line ${line}: ${name} is given twice.` };
    const value = entry.slice(cut + 1);
    if (value.length > MCP_ENV_VALUE_MAX_CHARS) {
      return {
        ok: false,
        message: `Environment line ${line}: the value is over ${MCP_ENV_VALUE_MAX_CHARS} characters.`,
      };
    }
    env[name] = value;
  }
  if (Object.keys(env).length > MCP_MAX_ENV_VARS) {
    return { ok: false, message: `At most ${MCP_MAX_ENV_VARS} environment variables.` };
  }
  return { ok: true, env };
}

/**
 * The form as a server definition for `workspace`, or the first thing in it that cannot be one,
 * in words. `workspace` counts toward the host IPC body's bound.
 */
export function readMcpServerForm(fields: McpServerFields, workspace: string): McpServerFormRead {
  const name = fields.name.trim();
  if (!MCP_SERVER_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      message:
        'A name is 1 to 24 lower-case letters, digits and "-", starting with a letter or digit (it becomes part of each tool’s name).',
    };
  }
  const command = fields.command.trim();
  if (command === '') return { ok: false, message: 'Give the program to run, e.g. node or /usr/local/bin/my-server.' };
  if (command.length > COMMAND_MAX_PATH_CHARS) {
    return { ok: false, message: `The program is over ${COMMAND_MAX_PATH_CHARS} characters.` };
  }
  const args = argumentsOf(fields.args);
  if (args.length > COMMAND_MAX_ARGS) return { ok: false, message: `At most ${COMMAND_MAX_ARGS} arguments.` };
  const env = environmentOf(fields.env);
  if (!env.ok) return env;
  const server: McpServerConfig = {
    name,
    command,
    args,
    ...(Object.keys(env.env).length > 0 ? { env: env.env } : {}),
  };
  // What the bridge sends, as it sends it.
  if (new TextEncoder().encode(JSON.stringify({ workspace, server })).length > HOST_IPC_MAX_BODY_BYTES) {
    return {
      ok: false,
      message: `The definition is over ${HOST_IPC_MAX_BODY_BYTES / 1024} KiB, more than Settings can send; bastion mcp add takes it.`,
    };
  }
  return { ok: true, server };
}
