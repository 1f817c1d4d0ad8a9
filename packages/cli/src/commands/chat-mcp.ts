/**
 * MCP servers' prompts and resources in `bastion chat` and `bastion run`, the person's and never
 * the agent's: a line `/mcp__SERVER__PROMPT NAME=value …` is that prompt, run by this CLI's host
 * with the arguments (a mistake said, nothing sent), its text sent as the message and said to be
 * the server's; a `/mcp__…` line that names no prompt of a server here is refused, naming those
 * there are, rather than sent to the model as a prompt; a word `@SERVER:URI` in a line typed attaches that resource's text, read by the
 * host (refused, nothing sent, when it is binary, too large, or its server is not running). A
 * prompt's own text attaches nothing. Tab at chat's prompt completes the ready servers' prompts.
 */
import { HostError, terminalLine, terminalText, type BastionHost } from '@bastion/host';
import {
  mayNameResource,
  meansMcpPrompt,
  mcpPromptArguments,
  mcpPromptCommandName,
  mcpPromptCommandNames,
  mcpPromptLineServer,
  mentionedResources,
  type McpAttachedResource,
  type McpListing,
  type McpPromptOrigin,
} from '@bastion/protocol';

/** What `POST /agent/run` is sent for a line: the message and what goes with it from MCP servers. */
export interface McpRunBody {
  message: string;
  mcp_prompt?: McpPromptOrigin;
  mcp_resources?: McpAttachedResource[];
}

export type McpLine = { ok: true; body: McpRunBody } | { ok: false; message: string };

/** A refusal of the host's, in words for the terminal. */
const refused = (error: unknown): string =>
  error instanceof HostError ? `${error.code}: ${terminalLine(error.message)}` : 'the MCP server could not be asked';

/**
 * `line` as a run's body: a server's prompt run into its text, and the resources the person named
 * attached; a line that names neither goes as it is. `workspace` null: no server runs for the session.
 */
export async function withMcp(host: BastionHost, workspace: string | null, line: string): Promise<McpLine> {
  // `/mcp__…` is meant as a server's prompt, named right or not: one that names none is refused
  // rather than sent to the model as a prompt, as chat refuses another `/NAME` it does not know.
  const meantPrompt = meansMcpPrompt(line);
  if (workspace === null) {
    return meantPrompt
      ? { ok: false, message: 'this session works in no folder, so no MCP server runs for it' }
      : { ok: true, body: { message: line } };
  }
  if (!meantPrompt && !mayNameResource(line)) return { ok: true, body: { message: line } };
  let listing: McpListing;
  try {
    // Started as a run would start them, so a prompt can be the session's first line.
    listing = await host.mcp.catalog(workspace);
  } catch (error) {
    return { ok: false, message: `the MCP servers could not be listed: ${refused(error)}` };
  }
  if (meantPrompt) return runPrompt(host, workspace, listing, line);
  const mentioned = mentionedResources(line, listing.servers);
  if (!mentioned.ok) return { ok: false, message: terminalLine(mentioned.message) };
  const resources: McpAttachedResource[] = [];
  for (const { server: name, uri } of mentioned.resources) {
    try {
      resources.push(await host.mcp.resource(workspace, name, uri));
    } catch (error) {
      return { ok: false, message: `@${name}:${terminalLine(uri)}: ${refused(error)}` };
    }
  }
  for (const resource of resources) {
    process.stderr.write(
      `bastion: attached the resource ${terminalLine(resource.uri)} of the MCP server ${resource.server} (${Buffer.byteLength(resource.text)} bytes)\n`,
    );
  }
  return { ok: true, body: { message: line, ...(resources.length === 0 ? {} : { mcp_resources: resources }) } };
}

/**
 * `line`, `/mcp__SERVER__PROMPT ARGS`, run when it names a prompt of a ready server of the listing
 * (its text said before it goes); else why not, naming the prompts there are.
 */
async function runPrompt(host: BastionHost, workspace: string, listing: McpListing, line: string): Promise<McpLine> {
  const meant = mcpPromptLineServer(line, listing.servers);
  if (!meant.ok) return { ok: false, message: terminalLine(meant.message) };
  const { named, server } = meant;
  const command = mcpPromptCommandName(named.server, named.prompt) ?? `/mcp__${named.server}__${named.prompt}`;
  if (server.state !== 'ready') {
    return { ok: false, message: `${command}: the MCP server ${named.server} is not running (/mcp says why)` };
  }
  const prompt = server.prompts.find((candidate) => candidate.name === named.prompt);
  if (prompt === undefined) {
    const its = mcpPromptCommandNames([server]);
    return {
      ok: false,
      message: `the MCP server ${server.name} offers no prompt ${named.prompt}; it offers ${its.length === 0 ? 'none' : its.join(', ')}`,
    };
  }
  const args = mcpPromptArguments(command, prompt, named.args);
  if (!args.ok) return { ok: false, message: terminalLine(args.message) };
  let text: string;
  try {
    ({ text } = await host.mcp.prompt(workspace, server.name, prompt.name, args.arguments));
  } catch (error) {
    return { ok: false, message: `${command}: ${refused(error)}` };
  }
  // The server's words go in the person's name: they are shown before the run.
  process.stderr.write(
    `bastion: ${command} is the prompt ${prompt.name} of the MCP server ${server.name}; it sends:\n${terminalText(text)}\n`,
  );
  return { ok: true, body: { message: text, mcp_prompt: { server: server.name, name: prompt.name } } };
}

/** The ready servers' prompts as chat's Tab completes them (`/mcp__SERVER__PROMPT`); none when none runs yet. */
export function mcpPromptNames(host: BastionHost, workspace: string | null): string[] {
  if (workspace === null) return [];
  try {
    return mcpPromptCommandNames(host.mcp.listing(workspace).servers);
  } catch {
    // An unusable mcp.json: /mcp says why.
    return [];
  }
}
