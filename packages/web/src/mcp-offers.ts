/**
 * MCP servers' prompts and resources in the message box, the person's and never the agent's: a
 * ready server's prompts are slash commands (`/mcp__SERVER__PROMPT NAME=value`, whose text is put
 * in the box, unsent, as a saved prompt's is), its resources a section of the @ menu (`@SERVER:URI`,
 * whose text the host reads when the message goes). A server that is not ready offers nothing.
 * Zod-free imports only.
 */
import type { AgentRunMcp, BastionApi, McpListing, MessagePart } from '@bastion/bridge';
import type {
  McpAttachedResource,
  McpPromptOrigin,
  McpPromptSent,
  McpPromptSummary,
  McpResourceSummary,
  McpResourceTemplateSummary,
  TextSpan,
} from '@bastion/protocol';
import {
  mayNameResource,
  mcpPromptArguments,
  mcpPromptCommandName,
  mcpResourceMention,
  mentionedResources,
  mcpPromptCommandNames,
  mcpPromptLineServer,
  UI_MENTION_MAX_ENTRIES,
} from '@bastion/protocol';
import { describeError } from './bastion.js';

/** The bridge's MCP calls the message box makes. */
export type McpOffersSource = Pick<BastionApi['mcp'], 'catalog' | 'prompt' | 'resource'>;

/** A ready server's prompt as the box offers it. */
export interface McpPromptCommand {
  /** What is typed: `/mcp__SERVER__PROMPT`. */
  name: string;
  server: string;
  prompt: McpPromptSummary;
}

/** The prompts of the ready servers, as commands. */
export function mcpPromptCommands(listing: McpListing | undefined): McpPromptCommand[] {
  return (listing?.servers ?? []).flatMap((server) =>
    server.state !== 'ready'
      ? []
      : server.prompts.flatMap((prompt) => {
          const name = mcpPromptCommandName(server.name, prompt.name);
          return name === undefined ? [] : [{ name, server: server.name, prompt }];
        }),
  );
}

/** What a prompt takes, shown beside it in the list: its description, then its arguments. */
export function mcpPromptDescription(prompt: McpPromptSummary): string {
  const args = prompt.arguments.map((argument) => `${argument.name}=${argument.required ? '…' : '[…]'}`).join(' ');
  return [prompt.description, args].filter((part) => part !== '').join(' · ');
}

/**
 * A ready server's resource, or resource template, as the @ menu offers it: a resource's word goes
 * in the box; a template's variables are asked for first, and the URI the host expands it to goes.
 */
export type McpResourceOption = {
  server: string;
  /** `SERVER:URI` (`SERVER:TEMPLATE` for a template), what follows the `@`. */
  word: string;
  /** What the menu calls it: its name, else its URI. */
  name: string;
} & ({ kind: 'resource'; resource: McpResourceSummary } | { kind: 'template'; template: McpResourceTemplateSummary });

/**
 * The ready servers' resources, then their resource templates, for what is typed after `@`: those
 * whose `SERVER:URI` starts with it, or whose name holds it (ignoring case), all of them for a bare
 * `@`; at most UI_MENTION_MAX_ENTRIES.
 */
export function matchingResources(listing: McpListing | undefined, typed: string): McpResourceOption[] {
  const wanted = typed.toLowerCase();
  const ready = (listing?.servers ?? []).filter((server) => server.state === 'ready');
  const word = (server: string, uri: string) => mcpResourceMention(server, uri).slice(1);
  const options: McpResourceOption[] = [
    ...ready.flatMap((server) =>
      server.resources.map((resource) => ({
        kind: 'resource' as const,
        server: server.name,
        resource,
        word: word(server.name, resource.uri),
        name: resource.name === '' ? resource.uri : resource.name,
      })),
    ),
    ...ready.flatMap((server) =>
      server.resource_templates.map((template) => ({
        kind: 'template' as const,
        server: server.name,
        template,
        word: word(server.name, template.uri_template),
        name: template.name === '' ? template.uri_template : template.name,
      })),
    ),
  ];
  return options
    .filter((option) => option.word.toLowerCase().startsWith(wanted) || option.name.toLowerCase().includes(wanted))
    .slice(0, UI_MENTION_MAX_ENTRIES);
}

export type McpPromptRun =
  { kind: 'text'; text: string; origin: McpPromptOrigin } | { kind: 'mistake'; message: string };

/**
 * Enter on `/mcp__SERVER__PROMPT ARGS`: the prompt run by the host with ARGS (its text, for the
 * box), or why not, in words: an argument it does not take or a needed one missing, a server that
 * is not running, a prompt it does not offer, the host's refusal.
 */
export async function runMcpPromptLine(
  source: McpOffersSource,
  workspace: string,
  listing: McpListing | undefined,
  line: string,
): Promise<McpPromptRun> {
  const meant = mcpPromptLineServer(line, listing?.servers ?? []);
  if (!meant.ok) return { kind: 'mistake', message: `${meant.message}.` };
  const { named, server } = meant;
  const command = mcpPromptCommandName(named.server, named.prompt) ?? line.trim();
  if (server.state !== 'ready') {
    return { kind: 'mistake', message: `${command}: the MCP server ${server.name} is not running.` };
  }
  const prompt = server.prompts.find((candidate) => candidate.name === named.prompt);
  if (prompt === undefined) {
    const its = mcpPromptCommandNames([server]);
    return {
      kind: 'mistake',
      message: `The MCP server ${server.name} offers no prompt ${named.prompt}; it offers ${its.length === 0 ? 'none' : its.join(', ')}.`,
    };
  }
  const args = mcpPromptArguments(command, prompt, named.args);
  if (!args.ok) return { kind: 'mistake', message: `${args.message}.` };
  try {
    const { text } = await source.prompt(workspace, server.name, prompt.name, args.arguments);
    return { kind: 'text', text, origin: { server: server.name, name: prompt.name } };
  } catch (failure) {
    return { kind: 'mistake', message: describeError(failure) };
  }
}

/**
 * What goes with `message` from MCP servers: `prompt` (the one its text came from, if any, with
 * `spans`, the characters of `message` it wrote) and the text of each resource the person named in
 * it (`@SERVER:URI`; a word with a character the prompt wrote names none): as `chosen` holds it (read when
 * picked in the @ menu), else read by the host now: a template of `templates` (filled in before a
 * reload; its URI is in no list) from its values, any other as listed. Refused, with why, when a
 * word names a server that is not running or a resource it does not list, or the host refuses a
 * read (binary, too large): the message is then not sent.
 */
export async function mcpContextOf(
  source: McpOffersSource,
  workspace: string | null,
  message: string,
  prompt?: { origin: McpPromptOrigin; spans: readonly TextSpan[] },
  chosen: readonly McpAttachedResource[] = [],
  templates: readonly ChosenTemplate[] = [],
): Promise<AgentRunMcp> {
  const base: AgentRunMcp = prompt === undefined ? {} : { prompt: prompt.origin };
  // Only a message with a word that could name one asks the host (which starts the servers).
  if (workspace === null || !mayNameResource(message)) return base;
  const servers = (await source.catalog(workspace)).servers;
  const named = mentionedResources(message, servers, prompt?.spans, [...chosen, ...templates]);
  if (!named.ok) throw new McpAttachRefusal(named.message);
  if (named.resources.length === 0) return base;
  const resources = await Promise.all(
    named.resources.map(async ({ server, uri }) => {
      const same = (resource: { server: string; uri: string }) => resource.server === server && resource.uri === uri;
      const read = chosen.find(same);
      if (read !== undefined) return read;
      const template = templates.find(same);
      try {
        return await (template === undefined
          ? source.resource(workspace, server, uri)
          : source.resource(workspace, server, template.template, template.values));
      } catch (failure) {
        throw new McpAttachRefusal(`@${server}:${uri}: ${describeError(failure)}`);
      }
    }),
  );
  return { ...base, resources };
}

/**
 * A resource template the person filled in from the @ menu: the template as the server listed it,
 * the values they typed, and the URI the host expanded it to (the word `@SERVER:URI` in the box).
 * Kept with the draft, so that after a reload the word is still theirs and is read again from them.
 */
export interface ChosenTemplate {
  server: string;
  template: string;
  values: Record<string, string>;
  uri: string;
}

/** Whether `text` holds the word `@SERVER:URI` of `uri`. */
export const holdsMention = (text: string, server: string, uri: string): boolean =>
  text.includes(mcpResourceMention(server, uri));

/** A resource named in a message could not be attached; `message` says why, in words. */
export class McpAttachRefusal extends Error {
  readonly code = 'MCP_ATTACH_REFUSED';
  override readonly name = 'McpAttachRefusal';
}

/** A stored prompt's MCP parts: the prompt its text came from (with the ranges of it that prompt wrote), and the resources attached to it. */
export interface MessageMcp {
  prompt: McpPromptSent | undefined;
  resources: { server: string; uri: string; name: string; text: string }[];
}

type TextPart = Extract<MessagePart, { type: 'text' }>;
const isResource = (part: MessagePart): part is TextPart & { mcp: { kind: 'resource' } } =>
  part.type === 'text' && part.mcp?.kind === 'resource';

/** The text the person sent: the message's text parts but the resources'. */
export function typedTextOf(parts: readonly MessagePart[]): string {
  return parts.map((part) => (part.type === 'text' && !isResource(part) ? part.text : '')).join('');
}

/** A message's MCP parts, or undefined when it has none. */
export function messageMcpOf(parts: readonly MessagePart[]): MessageMcp | undefined {
  let prompt: McpPromptSent | undefined;
  const resources: MessageMcp['resources'] = [];
  for (const part of parts) {
    if (part.type !== 'text' || part.mcp === undefined) continue;
    if (part.mcp.kind === 'prompt') {
      const { server, name, spans } = part.mcp;
      prompt = { server, name, ...(spans === undefined ? {} : { spans }) };
    } else resources.push({ server: part.mcp.server, uri: part.mcp.uri, name: part.mcp.name, text: part.text });
  }
  return prompt === undefined && resources.length === 0 ? undefined : { prompt, resources };
}
