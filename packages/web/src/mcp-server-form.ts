/**
 * Settings → MCP servers, Add server: the form's fields read into a server definition exactly as
 * the person wrote them. There is no shell and no quoting: each line of Arguments is one argument,
 * spaces, quotes, `$VARS` and `~` included, as the program receives it; Environment is `NAME=value`
 * lines, the value everything after the first `=`. What the host's schema checks (lengths, the
 * names Bastion sets itself) it answers in words; this reads only what needs the form's lines.
 */
import { MCP_SERVER_NAME_PATTERN } from '@bastion/protocol';
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

/** The variable names a server may be given (the host's schema also refuses the ones Bastion sets). */
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

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
    if (cut < 0) return { ok: false, message: `Environment line ${line} has no "=": write NAME=value.` };
    const name = entry.slice(0, cut);
    if (!ENV_NAME.test(name)) {
      return {
        ok: false,
        message: `Environment line ${line}: "${name}" is not a variable name (upper-case letters, digits and "_").`,
      };
    }
    if (Object.hasOwn(env, name)) return { ok: false, message: `Environment line ${line}: ${name} is given twice.` };
    env[name] = entry.slice(cut + 1);
  }
  return { ok: true, env };
}

/** The form as a server definition, or the first thing in it that cannot be one, in words. */
export function readMcpServerForm(fields: McpServerFields): McpServerFormRead {
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
  const env = environmentOf(fields.env);
  if (!env.ok) return env;
  return {
    ok: true,
    server: {
      name,
      command,
      args: argumentsOf(fields.args),
      ...(Object.keys(env.env).length > 0 ? { env: env.env } : {}),
    },
  };
}
