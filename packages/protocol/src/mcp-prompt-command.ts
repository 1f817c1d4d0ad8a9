/**
 * An MCP server's prompt run as a slash command, in the message box and in `bastion chat`:
 * `/mcp__SERVER__PROMPT NAME=value …`, named as a tool of the server would be (mcp-tool-name.ts).
 * A value holding spaces is quoted (`"…"` with `\"` and `\\`, or `'…'` as it is); a prompt that
 * takes one argument also takes the whole text after its name as that argument's value. An
 * argument the prompt does not take, one given twice, or one it needs and was not given is a
 * mistake said in words; nothing is run then. Zod-free: the web bundle imports it.
 */
import type { McpPromptSummary, McpServerStatus } from './api/mcp.js';
import { MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS } from './limits.js';
import { MCP_PROMPT_ARGUMENT_NAME_PATTERN, mcpToolName, splitMcpToolName } from './mcp-tool-name.js';

/** The command that runs `prompt` of `server` (`/mcp__SERVER__PROMPT`), or undefined when no such name can be made. */
export function mcpPromptCommandName(server: string, prompt: string): string | undefined {
  const name = mcpToolName(server, prompt);
  return name === undefined ? undefined : `/${name}`;
}

/** The commands that run the prompts `servers` offer (`/mcp__SERVER__PROMPT`), in order; a server not ready offers none. */
export function mcpPromptCommandNames(
  servers: readonly Pick<McpServerStatus, 'name' | 'state' | 'prompts'>[],
): string[] {
  return servers.flatMap((server) =>
    server.state === 'ready'
      ? server.prompts.flatMap((prompt) => mcpPromptCommandName(server.name, prompt.name) ?? [])
      : [],
  );
}

/** Whether `line` is meant as a server's prompt, named right or not: it starts `/mcp__`. */
export const meansMcpPrompt = (line: string): boolean => line.trim().startsWith('/mcp__');

/**
 * `line`, meant as a server's prompt (meansMcpPrompt), split, with the server of `servers` it
 * names; or why it runs none: it names no server here, or no prompt at all, said with the prompts
 * there are. The message box and `bastion chat` refuse such a line with that rather than send it to
 * the model; the server's own state and prompts are checked after.
 */
export function mcpPromptLineServer<Server extends Pick<McpServerStatus, 'name' | 'state' | 'prompts'>>(
  line: string,
  servers: readonly Server[],
):
  | { ok: true; named: { server: string; prompt: string; args: string }; server: Server }
  | { ok: false; message: string } {
  const named = splitMcpPromptLine(line);
  const server = servers.find((candidate) => candidate.name === named?.server);
  if (named !== undefined && server !== undefined) return { ok: true, named, server };
  const word = line.trim().split(/\s/, 1)[0] ?? '';
  const here = mcpPromptCommandNames(servers);
  const prompts = here.length === 0 ? 'no MCP server here offers a prompt' : `the prompts here: ${here.join(', ')}`;
  return {
    ok: false,
    message:
      named === undefined
        ? `${word} names no MCP server's prompt (one is typed /mcp__SERVER__PROMPT); ${prompts}`
        : `${word}: no MCP server named ${named.server} here; ${prompts}`,
  };
}

/** `/mcp__SERVER__PROMPT ARGS` split into the server, the prompt and ARGS; undefined for any other line. */
export function splitMcpPromptLine(line: string): { server: string; prompt: string; args: string } | undefined {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(line.trim());
  const named = match?.[1] === undefined ? undefined : splitMcpToolName(match[1]);
  return named === undefined ? undefined : { server: named.server, prompt: named.tool, args: match?.[2] ?? '' };
}

export type McpPromptArguments = { ok: true; arguments: Record<string, string> } | { ok: false; message: string };

/** What `prompt` takes, as a mistake's message ends: `code (needed), focus`, or that it takes none. */
function takes(prompt: Pick<McpPromptSummary, 'arguments'>): string {
  if (prompt.arguments.length === 0) return 'it takes no arguments';
  return `it takes ${prompt.arguments.map((argument) => `${argument.name}${argument.required ? ' (needed)' : ''}`).join(', ')}`;
}

/** The words of `text` (`NAME=value`, the value bare or quoted); a message when a quote is left open. */
function argumentWords(text: string): { ok: true; words: string[] } | { ok: false; message: string } {
  const words: string[] = [];
  let index = 0;
  while (index < text.length) {
    while (index < text.length && /\s/.test(text.charAt(index))) index += 1;
    if (index >= text.length) break;
    let word = '';
    while (index < text.length && !/\s/.test(text.charAt(index))) {
      const char = text.charAt(index);
      if (char === '"' || char === "'") {
        const close = char === "'" ? text.indexOf("'", index + 1) : closingDoubleQuote(text, index + 1);
        if (close < 0) return { ok: false, message: `a ${char} is not closed` };
        const inside = text.slice(index + 1, close);
        word += char === "'" ? inside : inside.replace(/\\(["\\])/g, '$1');
        index = close + 1;
        continue;
      }
      word += char;
      index += 1;
    }
    words.push(word);
  }
  return { ok: true, words };
}

/** Where the `"` that closes a double-quoted value opened before `from` is, or -1. */
function closingDoubleQuote(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    if (text.charAt(index) === '\\') index += 1;
    else if (text.charAt(index) === '"') return index;
  }
  return -1;
}

/**
 * What is wrong with `given` as `prompt`'s arguments (run as `command`), in words: an argument it
 * does not take, a value over MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS, a needed one missing; undefined
 * when nothing is. The host checks what it is asked to run with this too.
 */
export function mcpPromptArgumentsProblem(
  command: string,
  prompt: Pick<McpPromptSummary, 'arguments'>,
  given: Readonly<Record<string, string>>,
): string | undefined {
  for (const [name, value] of Object.entries(given)) {
    if (!prompt.arguments.some((argument) => argument.name === name)) {
      return `${command} takes no argument "${name}"; ${takes(prompt)}`;
    }
    if (value.length > MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS) {
      return `${command}: ${name} is ${value.length} characters, over the ${MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS} an argument may be`;
    }
  }
  const missing = prompt.arguments.filter((argument) => argument.required && !Object.hasOwn(given, argument.name));
  if (missing.length === 0) return undefined;
  const names = missing.map((argument) => argument.name);
  return `${command} needs ${names.join(' and ')}: type ${command} ${names.map((name) => `${name}=…`).join(' ')}`;
}

/** The arguments `args` gives `prompt` (run as `command`), or what is wrong with them, in words. */
export function mcpPromptArguments(
  command: string,
  prompt: Pick<McpPromptSummary, 'arguments'>,
  args: string,
): McpPromptArguments {
  const given: Record<string, string> = {};
  const only = prompt.arguments.length === 1 ? prompt.arguments[0] : undefined;
  const trimmed = args.trim();
  if (only !== undefined && trimmed !== '' && !trimmed.startsWith(`${only.name}=`)) {
    given[only.name] = trimmed;
  } else {
    const split = argumentWords(trimmed);
    if (!split.ok) return { ok: false, message: `${command}: ${split.message}` };
    for (const word of split.words) {
      const cut = word.indexOf('=');
      const name = cut < 0 ? '' : word.slice(0, cut);
      if (cut < 0 || !MCP_PROMPT_ARGUMENT_NAME_PATTERN.test(name)) {
        return { ok: false, message: `${command}: "${word}" is not NAME=value; ${takes(prompt)}` };
      }
      if (Object.hasOwn(given, name)) return { ok: false, message: `${command}: ${name} is given twice` };
      given[name] = word.slice(cut + 1);
    }
  }
  const problem = mcpPromptArgumentsProblem(command, prompt, given);
  return problem === undefined ? { ok: true, arguments: given } : { ok: false, message: problem };
}
