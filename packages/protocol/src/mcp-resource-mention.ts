/**
 * An MCP server's resource attached to a message by the person: the word `@SERVER:URI` in its text
 * (the message box's @ menu puts it in; `bastion chat` takes it typed). A word whose SERVER is none
 * of mcp.json's is left as it is (a file path such as `@src/a:b`); one that names a server that is
 * not ready, or a resource it does not list, is a mistake said in words, so that nothing the person
 * meant to attach is silently left out. Zod-free: the web bundle imports it.
 */
import type { McpServerStatus } from './api/mcp.js';
import { AGENT_MAX_MCP_RESOURCES } from './limits.js';

/** The word that attaches `uri` of `server`. */
export function mcpResourceMention(server: string, uri: string): string {
  return `@${server}:${uri}`;
}

/** A resource a word of a message names: its server and URI. */
export interface McpResourceRef {
  server: string;
  uri: string;
}

export type MentionedResources = { ok: true; resources: McpResourceRef[] } | { ok: false; message: string };

/** A word `@SERVER:URI` at the start of a text or after a space. */
const MENTION = /(?:^|\s)@([a-z0-9][a-z0-9-]*):(\S+)/g;

/** Whether `text` holds a word that may name a resource (`@SERVER:…`): only then need the servers be asked. */
export function mayNameResource(text: string): boolean {
  return /(?:^|\s)@[a-z0-9][a-z0-9-]*:\S/.test(text);
}

/** Punctuation a sentence may put right after a mention, tried off the end when the word as written names nothing. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"]+$/;

/** A range `[start, end)` of a text's characters. */
export type TextSpan = readonly [start: number, end: number];

/**
 * The words of `text` an MCP server's prompt wrote (any character of them in `serverSpans`) that
 * look like `@SERVER:URI`: mentionedResources attaches none of them, which the message box says.
 */
export function serverWrittenMentions(text: string, serverSpans: readonly TextSpan[]): string[] {
  return [...mentionWords(text)].filter((word) => serverWrote(serverSpans, word)).map(({ said }) => said);
}

/** Whether a character of the word `said` at `start` lies in one of `spans`. */
const serverWrote = (spans: readonly TextSpan[], { said, start }: { said: string; start: number }): boolean =>
  spans.some(([from, to]) => from < start + said.length && to > start);

/** Each word `@SERVER:URI` of `text` as written (`said`), where it starts, and its SERVER and URI. */
function* mentionWords(text: string): Generator<{ said: string; start: number; name: string; written: string }> {
  for (const match of text.matchAll(MENTION)) {
    const [word, name, written] = match;
    if (name === undefined || written === undefined) continue;
    const said = word.trimStart();
    yield { said, start: match.index + word.length - said.length, name, written };
  }
}

/**
 * The resources `text` names, each once, in the order first named: each word `@SERVER:URI` (at the
 * start or after a space) where SERVER is one of `servers`. `serverSpans`: the ranges of `text` an
 * MCP server's prompt wrote: a word with any character in one is the server's, not the person's,
 * and attaches nothing (a server's prompt cannot have another server's resource read and sent),
 * however the person edited around or inside it. `chosen`: resources the person read by choosing
 * them (a resource template filled in, whose URI no list holds): a word naming one is theirs too.
 */
export function mentionedResources(
  text: string,
  servers: readonly Pick<McpServerStatus, 'name' | 'state' | 'resources'>[],
  serverSpans: readonly TextSpan[] = [],
  chosen: readonly McpResourceRef[] = [],
): MentionedResources {
  const found: McpResourceRef[] = [];
  for (const word of mentionWords(text)) {
    const { said, name, written } = word;
    const server = servers.find((candidate) => candidate.name === name);
    if (server === undefined || serverWrote(serverSpans, word)) continue;
    if (server.state !== 'ready') {
      return {
        ok: false,
        message: `${said}: the MCP server ${server.name} is not running, so none of its resources can be attached`,
      };
    }
    const uri = [written, written.replace(TRAILING_PUNCTUATION, '')].find(
      (candidate) =>
        server.resources.some((resource) => resource.uri === candidate) ||
        chosen.some((ref) => ref.server === server.name && ref.uri === candidate),
    );
    if (uri === undefined)
      return { ok: false, message: `${said}: the MCP server ${server.name} lists no such resource` };
    if (!found.some((ref) => ref.server === server.name && ref.uri === uri)) found.push({ server: server.name, uri });
  }
  if (found.length > AGENT_MAX_MCP_RESOURCES) {
    return {
      ok: false,
      message: `the message names ${found.length} resources of MCP servers; one message carries at most ${AGENT_MAX_MCP_RESOURCES}`,
    };
  }
  return { ok: true, resources: found };
}
