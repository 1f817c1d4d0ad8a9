/**
 * MCP servers, run by the host: one instance per (workspace, server) the user named in mcp.json,
 * started when a run in that workspace first asks for the tools (or from Settings and `bastion
 * mcp`), each inside the command sandbox as `run_command` children are, with three differences
 * that make a long-lived program safe to keep: the workspace is read-only to it (its profile
 * write-denies the root: the agent's own file tools, checked by the host, are the only way
 * anything is written there, so no git or steering-file sweep is needed when it ends), its only
 * writable place is a private temp dir removed when it stops, and its environment is the
 * command's (PATH, HOME, LANG, TERM, TMPDIR) plus the variables the user gave it, which reach it
 * through an inherited pipe (fd 3, read by its shell inside the sandbox: LOAD_AND_RUN): never on a
 * command line, nor in the environment of the launcher the host runs outside it, nor in any file
 * (a file in the host's temp dir, even 0600 in a 0700 dir, was readable by every other sandboxed
 * command of the same user, this Bastion's or another's, until the server's shell removed it). It
 * has no network. Where commands run unsandboxed, no server runs at all.
 *
 * A server that fails to start stays failed (restart it, or change its definition); one that
 * stops after it was ready is started again at the next run. Everything a server says is
 * untrusted: its tool list is bounded (names a provider takes, a schema size, a count, a total
 * that fits one channel frame), its messages are bounded lines checked as JSON-RPC
 * (mcp-stdio-transport.ts), and its results are cut to MCP_RESULT_MAX_BYTES of text. Its prompts,
 * resources and resource templates are listed too, for the person only (mcp-offers.ts: the sidecar
 * is never told of them), and run or read when the person asks (`prompt`, `resource`). A ready server that says a
 * list changed (`notifications/…/list_changed`) is listed again, within the same bounds, one
 * listing at a time and debounced (MCP_LIST_CHANGED_DEBOUNCE_MS): its new tools reach the agent at
 * its next run, its prompts and resources the message box's menus (an open one reads the listing
 * again every UI_MCP_MENU_RELIST_MS). Every text
 * of its that leaves the host — a result, an error, a tool's name, description and schema, its
 * last words on stderr — is cut of the variables' values the host holds (withoutHeld).
 *
 * What it does not catch: what a tool does inside its sandbox (CPU, its own temp files), or what
 * its text says (the model reads it as a tool result, like a command's output).
 */
import type { ChildProcess } from 'node:child_process';
import { lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import type { Writable } from 'node:stream';
import {
  EGRESS_MIN_SECRET_CHARS,
  heldValueForms,
  MCP_ERROR_MAX_CHARS,
  MCP_MAX_TOOLS_PER_SERVER,
  MCP_START_TIMEOUT_MS,
  MCP_STDERR_TAIL_CHARS,
  MCP_STOP_GRACE_MS,
  MCP_TOOL_DESCRIPTION_MAX_CHARS,
  MCP_TOOL_NAME_MAX_CHARS,
  MCP_TOOL_SCHEMA_MAX_BYTES,
  MCP_DATA_ENV,
  MCP_LIST_CHANGED_DEBOUNCE_MS,
  MCP_LIST_MAX_PAGES,
  MCP_MAX_PROMPTS_PER_SERVER,
  MCP_MAX_RESOURCES_PER_SERVER,
  MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER,
  MCP_PROMPT_TEXT_MAX_CHARS,
  MCP_READ_TIMEOUT_MS,
  mcpPromptArgumentsProblem,
  mcpPromptCommandName,
  mcpToolName,
  type HostErrorCode,
  type Logger,
  type McpAttachedResource,
  type McpListing,
  type McpPromptSummary,
  type McpResourceSummary,
  type McpResourceTemplateSummary,
  type McpServerConfig,
  type McpServerState,
  type McpServerStatus,
} from '@bastion/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { HostError } from '../errors.js';
import { buildCommandSandboxProfile } from '../commands/command-profile.js';
import { programNotFound } from '../commands/command-executor.js';
import { spawnCommandChild } from '../commands/command-process.js';
import { homeReadPaths } from '../sandbox/home-read-allowlist.js';
import { makePrivateTemp } from '../sandbox/private-temp-dir.js';
import { shellQuote, type SrtSession, type WrappedCommand } from '../sandbox/srt-session.js';
import { McpConfigStore } from './mcp-config-store.js';
import { promptText } from './mcp-content-text.js';
import { expandedTemplate, offersOf, resourceText } from './mcp-offers.js';
import type { McpStdioTransport } from './mcp-stdio-transport.js';

/**
 * What the SDK's client checks a tool's structured content with: nothing. By default it compiles
 * every listed tool's outputSchema with AJV and runs it on each call's structured content, in the
 * host's event loop — and both are the server's: a pattern that backtracks (`^(a+)+$` against
 * 32 a's and a "!") held the host for 20 s a call. The host does not rely on the content matching
 * its schema (it passes the content on as text, cut and redacted, the model reads it as a tool
 * result), so no schema of a server's is compiled or run.
 */
const OUTPUT_SCHEMAS_UNCOMPILED: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/** A ready server's tool as the sidecar is told of it. */
export interface McpListedTool {
  name: string;
  description: string;
  /** The tool's input JSON schema, serialised. */
  input_schema: string;
}

export interface McpHubOptions {
  userData: string;
  /** The HOME servers run with; the profile denies its secrets. */
  home: string;
  log: Logger;
  /** The srt session; undefined where commands run unsandboxed (no server runs then). */
  srt: SrtSession | undefined;
  /** PATH and LANG the servers see (default: the host's). */
  env?: { PATH?: string; LANG?: string };
  /** Where each server start's private temp dir is made: the host's temp root (default: the process's temp dir). */
  tempRoot?: string;
}

/** Said where no server can run. */
const UNAVAILABLE_REASON =
  'MCP servers run only inside the sandbox, and commands run without it here (bastion doctor says why)';

interface Instance {
  workspace: string;
  config: McpServerConfig;
  /** The definition it was started from: a different one in mcp.json means a restart. */
  definition: string;
  state: McpServerState;
  error: string | undefined;
  /** It was ready once: a stop after that is started again by the next run. */
  wasReady: boolean;
  listed: McpListedTool[];
  /** Its prompts, resources and resource templates, offered to the person (never to the agent). */
  prompts: McpPromptSummary[];
  resources: McpResourceSummary[];
  resourceTemplates: McpResourceTemplateSummary[];
  leftOut: string[];
  client: Client | undefined;
  /** Settles once the server is ready or failed. */
  starting: Promise<void> | undefined;
  /** Ends the process and settles once it is gone and its temp dir removed. */
  stop: (() => Promise<void>) | undefined;
  /** Its lists being read again after it said one changed. */
  relisting: Promise<void> | undefined;
  /** It said a list changed while they were being read (or at its start): read them once more after. */
  relistAgain: boolean;
}

function definitionOf(config: McpServerConfig): string {
  return JSON.stringify([config.command, config.args, Object.entries(config.env ?? {}).sort()]);
}

function inWords(text: string): string {
  return text.length <= MCP_ERROR_MAX_CHARS ? text : `${text.slice(0, MCP_ERROR_MAX_CHARS - 1)}…`;
}

/** A variable the user gave a server, long enough to be told from ordinary text, and whose it is. */
interface HeldValue {
  server: string;
  name: string;
  value: string;
}

/** The label a held value is replaced by. */
function redactionOf(held: HeldValue): string {
  return `[redacted: ${held.name} of the MCP server ${held.server}]`;
}

/**
 * `text` with every held value cut out and named: as written, as JSON escapes it (a server's
 * structured content or schema is JSON text, where a quote or a backslash in a value is escaped),
 * and in base64 (a token a server echoes in a Basic authorization header, say: held-value-forms.ts).
 * The label holds no character JSON escapes, so JSON text stays JSON wherever a value lay in a string.
 */
function withoutHeld(text: string, held: readonly HeldValue[]): string {
  let cut = text;
  for (const value of held) {
    for (const form of heldValueForms(value.value)) {
      cut = cut.split(form).join(redactionOf(value));
    }
  }
  return cut;
}

/**
 * `text` without its longest beginning that is the end of a held value in any form withoutHeld
 * cuts (a proper suffix: a whole one is cut as usual). For text that starts where a cut fell: what
 * is dropped may be ordinary text that happens to end like a value, never a value's part shown.
 */
function withoutHeldEnding(text: string, held: readonly HeldValue[]): string {
  let drop = 0;
  for (const value of held) {
    for (const form of heldValueForms(value.value)) {
      // An escaped form can be longer than all that is kept: the text may lie wholly inside it.
      if (form.includes(text)) return '';
      for (let length = Math.min(form.length - 1, text.length); length > drop; length -= 1) {
        if (text.startsWith(form.slice(form.length - length))) {
          drop = length;
          break;
        }
      }
    }
  }
  return text.slice(drop);
}

/** The tools the agent is given, and why each other one is not; every text a tool carries is cut of the held values. */
function offeredTools(
  server: string,
  tools: readonly Tool[],
  held: readonly HeldValue[],
): { listed: McpListedTool[]; leftOut: string[] } {
  const listed: McpListedTool[] = [];
  const leftOut: string[] = [];
  for (const tool of tools) {
    const name = withoutHeld(tool.name, held);
    const shown = name.slice(0, MCP_TOOL_NAME_MAX_CHARS);
    if (listed.length >= MCP_MAX_TOOLS_PER_SERVER) {
      leftOut.push(`${shown}: more than ${MCP_MAX_TOOLS_PER_SERVER} tools`);
      continue;
    }
    if (name !== tool.name) {
      leftOut.push(`${shown}: its name holds the value of a variable Bastion holds`);
      continue;
    }
    if (mcpToolName(server, tool.name) === undefined) {
      leftOut.push(`${shown}: its name is not letters, digits, "_" and "-", or too long`);
      continue;
    }
    const schema = schemaText(tool.inputSchema, held);
    if (schema === undefined) {
      leftOut.push(
        `${tool.name}: its input schema is over ${MCP_TOOL_SCHEMA_MAX_BYTES / 1024} KiB, too deep, or no JSON once a variable's value is cut out`,
      );
      continue;
    }
    const description = withoutHeld(tool.description ?? tool.title ?? '', held).slice(
      0,
      MCP_TOOL_DESCRIPTION_MAX_CHARS,
    );
    listed.push({ name: tool.name, description, input_schema: schema });
  }
  // One line a tool would let a server that lists thousands outgrow the status (MCP_MAX_TOOLS_PER_SERVER lines).
  if (leftOut.length > MCP_MAX_TOOLS_PER_SERVER) {
    const more = leftOut.length - (MCP_MAX_TOOLS_PER_SERVER - 1);
    leftOut.splice(MCP_MAX_TOOLS_PER_SERVER - 1, more, `${more} more tools left out`);
  }
  return { listed, leftOut };
}

/**
 * A tool's input schema as JSON text within MCP_TOOL_SCHEMA_MAX_BYTES, cut of the held values;
 * undefined when it is larger, too deep to serialise, or no longer JSON once cut (a value that was
 * a number, say).
 */
function schemaText(schema: Tool['inputSchema'], held: readonly HeldValue[]): string | undefined {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return undefined;
  }
  if (Buffer.byteLength(text) > MCP_TOOL_SCHEMA_MAX_BYTES) return undefined;
  const cut = withoutHeld(text, held);
  if (cut === text) return text;
  try {
    JSON.parse(cut);
  } catch {
    return undefined;
  }
  return cut;
}

export class McpHub {
  readonly #options: McpHubOptions;
  readonly #store: McpConfigStore;
  readonly #instances = new Map<string, Instance>();
  #closed = false;

  constructor(options: McpHubOptions) {
    this.#options = options;
    this.#store = new McpConfigStore(options.userData);
  }

  get file(): string {
    return this.#store.path;
  }

  /** Whether servers can run here at all. */
  get available(): boolean {
    return this.#options.srt !== undefined;
  }

  /** The servers of `workspace` as they are now; starts nothing. */
  listing(workspace: string): McpListing {
    const servers = this.#store.servers();
    return {
      file: this.file,
      workspace,
      available: this.available,
      ...(this.available ? {} : { reason: UNAVAILABLE_REASON }),
      servers: servers.map((config) => this.#status(workspace, config)),
    };
  }

  /** Save a server to mcp.json and start it in `workspace`; answers once it is ready or failed. */
  async add(workspace: string, server: McpServerConfig): Promise<McpListing> {
    const added = this.#store.add(server);
    this.#options.log.info('mcp.added', { server: added.name });
    if (this.available) await this.#ensure(workspace, added);
    return this.listing(workspace);
  }

  /** Remove a server from mcp.json and stop it wherever it runs. */
  async remove(workspace: string, name: string): Promise<McpListing> {
    if (!this.#store.remove(name)) throw new HostError('MCP_SERVER_NOT_FOUND', `no server named ${name}`);
    this.#options.log.info('mcp.removed', { server: name });
    await this.#stopAll((instance) => instance.config.name === name);
    return this.listing(workspace);
  }

  /** Stop a server wherever it runs and start it again in `workspace`. */
  async restart(workspace: string, name: string): Promise<McpListing> {
    const config = this.#store.servers().find((server) => server.name === name);
    if (config === undefined) throw new HostError('MCP_SERVER_NOT_FOUND', `no server named ${name}`);
    await this.#stopAll((instance) => instance.config.name === name);
    if (this.available) await this.#ensure(workspace, config);
    return this.listing(workspace);
  }

  /**
   * What a run in `workspace` is offered: each server's state and, for a ready one, its tools.
   * Starts what is not running (a server that failed to start stays failed), stops what mcp.json
   * no longer names, and waits for the starts (MCP_START_TIMEOUT_MS at most each).
   */
  async tools(workspace: string): Promise<{ name: string; state: McpServerState; tools: McpListedTool[] }[]> {
    if (!this.available) return [];
    let servers: McpServerConfig[];
    try {
      servers = this.#store.servers();
    } catch (error) {
      this.#options.log.warn('mcp.config-unusable', { code: error instanceof HostError ? error.code : 'unknown' });
      return [];
    }
    const named = new Set(servers.map((server) => server.name));
    await this.#stopAll((instance) => instance.workspace === workspace && !named.has(instance.config.name));
    await Promise.all(servers.map((config) => this.#ensure(workspace, config)));
    return servers.map((config) => {
      const instance = this.#instances.get(keyOf(workspace, config.name));
      const state = instance?.state ?? 'stopped';
      return { name: config.name, state, tools: state === 'ready' ? (instance?.listed ?? []) : [] };
    });
  }

  /**
   * The servers of `workspace` for the message box and `bastion chat`: started (as a run starts
   * them, MCP_START_TIMEOUT_MS at most each) and listed with their prompts and resources.
   */
  async catalog(workspace: string): Promise<McpListing> {
    await this.tools(workspace);
    return this.listing(workspace);
  }

  /**
   * Run a prompt of a ready server for the person with the arguments they gave: its messages as
   * one text for the message box, cut of the held values. Only a prompt the server listed, with
   * the arguments it listed (the needed ones given); a text longer than a message is refused.
   */
  async prompt(
    workspace: string,
    server: string,
    name: string,
    args: Readonly<Record<string, string>>,
  ): Promise<{ text: string }> {
    const { client, instance } = this.#ready(workspace, server);
    const prompt = instance.prompts.find((listed) => listed.name === name);
    const command = mcpPromptCommandName(server, name);
    if (prompt === undefined || command === undefined)
      throw this.#refused(server, 'MCP_PROMPT_UNKNOWN', `the MCP server ${server} offers no prompt ${name}`);
    const problem = mcpPromptArgumentsProblem(command, prompt, args);
    if (problem !== undefined) throw this.#refused(server, 'MCP_PROMPT_ARGUMENTS_INVALID', problem);

    const started = performance.now();
    const result = await this.#read(server, () =>
      client.getPrompt({ name, arguments: { ...args } }, { timeout: MCP_READ_TIMEOUT_MS }),
    );
    const text = this.redact(promptText(result));
    if (text.trim() === '') throw this.#refused(server, 'MCP_READ_FAILED', `${command} gave no text`);
    if (text.length > MCP_PROMPT_TEXT_MAX_CHARS) {
      throw this.#refused(
        server,
        'MCP_PROMPT_TOO_LARGE',
        `${command} gave ${text.length.toLocaleString('en-US')} characters, over the ${MCP_PROMPT_TEXT_MAX_CHARS.toLocaleString('en-US')} a message may be`,
      );
    }
    this.#options.log.info('mcp.prompt-run', {
      server,
      bytes: Buffer.byteLength(text),
      duration_ms: Math.round(performance.now() - started),
    });
    return { text };
  }

  /**
   * Read a resource a ready server listed, for a message the person attaches it to: its text, cut
   * of the held values; a binary or too large one is refused (resourceText). A URI the server did
   * not list is not read. With `variables`, `given` is a resource template the server listed, and
   * the URI it expands to with the person's values (expandedTemplate) is read, as a listed one is.
   */
  async resource(
    workspace: string,
    server: string,
    given: string,
    variables?: Readonly<Record<string, string>>,
  ): Promise<McpAttachedResource> {
    const { client, instance } = this.#ready(workspace, server);
    let uri = given;
    let listed: { name: string } | undefined;
    if (variables === undefined) {
      listed = instance.resources.find((resource) => resource.uri === uri);
    } else {
      const template = instance.resourceTemplates.find((offered) => offered.uri_template === given);
      if (template === undefined)
        throw this.#refused(
          server,
          'MCP_RESOURCE_UNKNOWN',
          `the MCP server ${server} lists no resource template ${given}`,
        );
      const expanded = expandedTemplate(template, variables);
      if (!expanded.ok) throw this.#refused(server, expanded.code, expanded.message);
      uri = expanded.uri;
      listed = template;
    }
    if (listed === undefined)
      throw this.#refused(server, 'MCP_RESOURCE_UNKNOWN', `the MCP server ${server} lists no resource ${uri}`);
    const started = performance.now();
    const result = await this.#read(server, () => client.readResource({ uri }, { timeout: MCP_READ_TIMEOUT_MS }));
    const read = resourceText(uri, result, (text) => this.redact(text));
    if (!read.ok) throw this.#refused(server, read.code, read.message);
    this.#options.log.info('mcp.resource-read', {
      server,
      bytes: Buffer.byteLength(read.text),
      duration_ms: Math.round(performance.now() - started),
    });
    return { server, uri, name: listed.name, text: read.text };
  }

  /** The instance of `server` in `workspace` and its client, for the person's prompt or resource; refused unless it is ready. */
  #ready(workspace: string, server: string): { instance: Instance; client: Client } {
    if (!this.available) throw this.#refused(server, 'MCP_UNAVAILABLE', UNAVAILABLE_REASON);
    const instance = this.#instances.get(keyOf(workspace, server));
    if (instance === undefined)
      throw this.#refused(server, 'MCP_SERVER_UNKNOWN', `no MCP server named ${server} runs in this folder`);
    if (instance.state !== 'ready' || instance.client === undefined) {
      const why = instance.error === undefined ? '' : `: ${instance.error}`;
      throw this.#refused(server, 'MCP_SERVER_FAILED', `the MCP server ${server} is not running${why}`);
    }
    return { instance, client: instance.client };
  }

  /** A request of the person's to a server; its error (in the server's words, cut of the held values) or no answer in time is MCP_READ_FAILED. */
  async #read<T>(server: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      const timedOut = error instanceof Error && /timed? ?out/i.test(error.message);
      const why = timedOut
        ? `it did not answer within ${MCP_READ_TIMEOUT_MS / 1000} s`
        : `it answered: ${error instanceof Error ? this.redact(error.message) : 'an error'}`;
      throw this.#refused(server, 'MCP_READ_FAILED', `the MCP server ${server} failed the request: ${why}`);
    }
  }

  /** A refusal of the person's request, logged by its code. */
  #refused(server: string, code: HostErrorCode, message: string): HostError {
    this.#options.log.info('mcp.offer-refused', { server, code });
    return new HostError(code, inWords(message));
  }

  /** The ready client of a server in `workspace` and the tool, for a call; undefined when either is not there. */
  callable(
    workspace: string,
    server: string,
    tool: string,
  ): { client: Client } | { code: 'MCP_SERVER_UNKNOWN' | 'MCP_SERVER_FAILED' | 'MCP_TOOL_UNKNOWN' } {
    const instance = this.#instances.get(keyOf(workspace, server));
    if (instance === undefined) return { code: 'MCP_SERVER_UNKNOWN' };
    if (instance.state !== 'ready' || instance.client === undefined) return { code: 'MCP_SERVER_FAILED' };
    if (!instance.listed.some((listed) => listed.name === tool)) return { code: 'MCP_TOOL_UNKNOWN' };
    return { client: instance.client };
  }

  /**
   * The values of the variables the user gave the servers (tokens, often) long enough to be told
   * from ordinary text, with whose they are: a server's answer is cut of them before it reaches the
   * sidecar. Those of mcp.json now and of every server still running (one started from a
   * definition since changed or removed, or while mcp.json cannot be used).
   */
  heldValues(): HeldValue[] {
    let named: McpServerConfig[] = [];
    try {
      named = this.#store.servers();
    } catch {
      // An unusable mcp.json starts nothing; the running servers' own definitions still count.
    }
    const held = new Map<string, HeldValue>();
    for (const server of [...named, ...[...this.#instances.values()].map((instance) => instance.config)]) {
      for (const [name, value] of Object.entries(server.env ?? {})) {
        if (value.length >= EGRESS_MIN_SECRET_CHARS) held.set(value, { server: server.name, name, value });
      }
    }
    return [...held.values()];
  }

  /** `text` a server said, cut of every held value (heldValues), each named. */
  redact(text: string): string {
    return withoutHeld(text, this.heldValues());
  }

  /** The host stops: every server ends, its temp dir removed. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#stopAll(() => true);
  }

  #status(workspace: string, config: McpServerConfig): McpServerStatus {
    const instance = this.#instances.get(keyOf(workspace, config.name));
    const current = instance !== undefined && instance.definition === definitionOf(config);
    return {
      name: config.name,
      command: config.command,
      args: config.args,
      env_names: Object.keys(config.env ?? {}),
      data: this.#store.dataFolderOf(config.name),
      state: current ? instance.state : 'stopped',
      ...(current && instance.error !== undefined ? { error: instance.error } : {}),
      tools: current ? instance.listed.map(({ name, description }) => ({ name, description })) : [],
      // A server that failed or stopped offers the person nothing: its prompts and resources go with it.
      prompts: current && instance.state === 'ready' ? instance.prompts : [],
      resources: current && instance.state === 'ready' ? instance.resources : [],
      resource_templates: current && instance.state === 'ready' ? instance.resourceTemplates : [],
      left_out: current ? instance.leftOut : [],
    };
  }

  /** Start `config` in `workspace` unless it runs there with this definition (or failed to start with it). */
  async #ensure(workspace: string, config: McpServerConfig): Promise<void> {
    const key = keyOf(workspace, config.name);
    const definition = definitionOf(config);
    const existing = this.#instances.get(key);
    if (existing !== undefined && existing.definition === definition) {
      const restartable = existing.state === 'failed' && existing.wasReady;
      if (!restartable) return existing.starting;
    }
    if (existing !== undefined) {
      await this.#stop(existing);
      // Another caller may have started it meanwhile: that start is this one's too.
      const started = this.#instances.get(key);
      if (started !== undefined) return started.starting;
    }
    if (this.#closed) return;
    const instance: Instance = {
      workspace,
      config,
      definition,
      state: 'starting',
      error: undefined,
      wasReady: false,
      listed: [],
      prompts: [],
      resources: [],
      resourceTemplates: [],
      leftOut: [],
      client: undefined,
      starting: undefined,
      stop: undefined,
      relisting: undefined,
      relistAgain: false,
    };
    this.#instances.set(key, instance);
    instance.starting = this.#start(instance);
    return instance.starting;
  }

  async #start(instance: Instance): Promise<void> {
    const { log } = this.#options;
    const started = performance.now();
    log.info('mcp.starting', { server: instance.config.name });
    const fail = (reason: string) => {
      // Stopped by the hub itself (a restart, a removal, the host's stop): nothing failed.
      if (instance.state === 'failed' || instance.state === 'stopped') return;
      instance.state = 'failed';
      // Its last words are the server's own: a token it prints there is cut as from its answers.
      instance.error = inWords(this.redact(reason));
      instance.client = undefined;
      log.warn('mcp.failed', { server: instance.config.name, reason: instance.wasReady ? 'stopped' : 'start' });
    };
    let process: { child: ChildProcess; transport: McpStdioTransport } | undefined;
    try {
      // The SDK (its schemas are most of it) loads with the first server, not with the host.
      const [{ Client }, { McpStdioTransport }] = await Promise.all([
        import('@modelcontextprotocol/sdk/client/index.js'),
        import('./mcp-stdio-transport.js'),
      ]);
      process = await this.#spawn(instance, (child) => new McpStdioTransport(child));
      // Stopped while its sandbox was being prepared (a removal, the host's stop): end it now.
      if (instance.state !== 'starting') {
        await instance.stop?.();
        return;
      }
      // Only told that a list changed (autoRefresh off): the SDK's own refresh reads one page, unbounded.
      const changed = {
        autoRefresh: false,
        debounceMs: MCP_LIST_CHANGED_DEBOUNCE_MS,
        onChanged: () => this.#relist(instance),
      };
      const client = new Client(
        { name: 'bastion', version: '0.1.0' },
        {
          capabilities: {},
          jsonSchemaValidator: OUTPUT_SCHEMAS_UNCOMPILED,
          listChanged: { tools: changed, prompts: changed, resources: changed },
        },
      );
      const transport = process.transport;
      const deadline = AbortSignal.timeout(MCP_START_TIMEOUT_MS);
      await client.connect(transport, { signal: deadline, timeout: MCP_START_TIMEOUT_MS });
      const lists = await this.#lists(instance.config.name, client, {
        signal: deadline,
        timeout: MCP_START_TIMEOUT_MS,
      });
      if (instance.state !== 'starting') return;
      Object.assign(instance, { ...lists, client, state: 'ready' });
      instance.wasReady = true;
      // After the client's own (set by connect), which fails the calls still waiting for an answer.
      const clientClosed = transport.onclose;
      transport.onclose = () => {
        clientClosed?.();
        const why = transport.broken ?? 'it stopped';
        const tail = this.#lastWords(transport);
        fail(`${why}${tail === '' ? '' : `; its last words: ${tail}`}`);
      };
      log.info('mcp.ready', {
        server: instance.config.name,
        count: lists.listed.length,
        duration_ms: Math.round(performance.now() - started),
      });
      // A list that changed while the first listing was read is read again.
      if (instance.relistAgain) this.#relist(instance);
    } catch (error) {
      // Ended first, so that all it wrote to stderr has been read (a write to its closed stdin can
      // fail the start before its last words arrive).
      await instance.stop?.();
      if (process?.transport.stderrTail === PROGRAM_NOT_FOUND) {
        fail(`could not start: ${programNotFound(instance.config.command)}`);
        return;
      }
      const tail = process === undefined ? '' : this.#lastWords(process.transport);
      const timedOut = error instanceof Error && /timed? ?out|aborted/i.test(`${error.name} ${error.message}`);
      const why =
        process?.transport.broken ??
        (timedOut
          ? `it did not answer within ${MCP_START_TIMEOUT_MS / 1000} s`
          : error instanceof HostError
            ? error.message
            : 'it stopped before listing its tools');
      fail(`could not start ${instance.config.command}: ${why}${tail === '' ? '' : `; its last words: ${tail}`}`);
    }
  }

  /** What a server offers: its tools for the agent, its prompts and resources for the person, and what was left out. */
  async #lists(
    server: string,
    client: Client,
    options: { signal: AbortSignal; timeout: number },
  ): Promise<Pick<Instance, 'listed' | 'prompts' | 'resources' | 'resourceTemplates' | 'leftOut'>> {
    const tools: Tool[] = await listPaged(
      (params) => client.listTools(params, options).then((page) => ({ items: page.tools, next: page.nextCursor })),
      MCP_MAX_TOOLS_PER_SERVER,
    );
    const offers = await this.#offersOf(server, client, options);
    const offered = offeredTools(server, tools, this.heldValues());
    return {
      listed: offered.listed,
      prompts: offers.prompts,
      resources: offers.resources,
      resourceTemplates: offers.resourceTemplates,
      leftOut: [...offered.leftOut, ...offers.leftOut],
    };
  }

  /**
   * A ready server said a list of its changed: all of them are read again, as at its start (the
   * same bounds, MCP_START_TIMEOUT_MS), one reading at a time (one asked for meanwhile runs once
   * after). A reading that fails keeps the lists it had; a server stopped meanwhile keeps nothing.
   */
  #relist(instance: Instance): void {
    if (instance.state === 'starting' || instance.relisting !== undefined) {
      instance.relistAgain = true;
      return;
    }
    const client = instance.client;
    if (instance.state !== 'ready' || client === undefined) return;
    const { log } = this.#options;
    const server = instance.config.name;
    const current = () => instance.state === 'ready' && instance.client === client;
    instance.relisting = (async () => {
      do {
        instance.relistAgain = false;
        const deadline = AbortSignal.timeout(MCP_START_TIMEOUT_MS);
        try {
          const lists = await this.#lists(server, client, { signal: deadline, timeout: MCP_START_TIMEOUT_MS });
          if (!current()) return;
          Object.assign(instance, lists);
          log.info('mcp.relisted', { server, count: lists.listed.length });
        } catch {
          log.warn('mcp.relist-failed', { server });
          return;
        }
      } while (instance.relistAgain && current());
    })().finally(() => {
      instance.relisting = undefined;
    });
  }

  /**
   * What a server offers the person, at its start and when listed again: its prompts, resources
   * and resource templates, when it says it has any (its capabilities). A server that cannot list them still gives the agent its tools: the
   * failure is a note of what was left out.
   */
  async #offersOf(
    server: string,
    client: Client,
    options: { signal: AbortSignal; timeout: number },
  ): Promise<ReturnType<typeof offersOf>> {
    const capabilities = client.getServerCapabilities();
    const redact = (text: string) => this.redact(text);
    try {
      const prompts: Prompt[] =
        capabilities?.prompts === undefined
          ? []
          : await listPaged(
              (params) =>
                client.listPrompts(params, options).then((page) => ({ items: page.prompts, next: page.nextCursor })),
              MCP_MAX_PROMPTS_PER_SERVER,
            );
      const resources: Resource[] =
        capabilities?.resources === undefined
          ? []
          : await listPaged(
              (params) =>
                client
                  .listResources(params, options)
                  .then((page) => ({ items: page.resources, next: page.nextCursor })),
              MCP_MAX_RESOURCES_PER_SERVER,
            );
      const templates = capabilities?.resources === undefined ? [] : await this.#templatesOf(client, options);
      return offersOf(server, prompts, resources, templates, redact);
    } catch (error) {
      const why = error instanceof Error ? redact(error.message) : 'it did not answer';
      return {
        prompts: [],
        resources: [],
        resourceTemplates: [],
        leftOut: [inWords(`its prompts and resources could not be listed: ${why}`)],
      };
    }
  }

  /**
   * A server's resource templates; none from one that does not answer `resources/templates/list`
   * (Method not found: a server with resources need not have templates).
   */
  async #templatesOf(client: Client, options: { signal: AbortSignal; timeout: number }): Promise<ResourceTemplate[]> {
    try {
      return await listPaged(
        (params) =>
          client
            .listResourceTemplates(params, options)
            .then((page) => ({ items: page.resourceTemplates, next: page.nextCursor })),
        MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER,
      );
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === METHOD_NOT_FOUND) return [];
      throw error;
    }
  }

  /**
   * The end of what a server wrote to stderr: its kept tail without a beginning that could be the
   * end of a held value (the kept text may begin inside one), cut of the held values, and then
   * to MCP_STDERR_TAIL_CHARS.
   */
  #lastWords(transport: McpStdioTransport): string {
    const held = this.heldValues();
    const kept = transport.stderrTailCut ? withoutHeldEnding(transport.stderrTail, held) : transport.stderrTail;
    return withoutHeld(kept, held).slice(-MCP_STDERR_TAIL_CHARS).trim();
  }

  /** Spawn the server in its sandbox: the command profile with the workspace write-denied. */
  async #spawn(
    instance: Instance,
    transportOf: (child: ChildProcess) => McpStdioTransport,
  ): Promise<{ child: ChildProcess; transport: McpStdioTransport }> {
    const { srt, home, userData } = this.#options;
    if (srt === undefined) throw new HostError('SANDBOX_INIT', UNAVAILABLE_REASON);
    const data = this.#dataFolder(instance.config.name);
    const privateTemp = makePrivateTemp('bastion-mcp-', this.#options.tempRoot);
    // Bastion's variables only: the user's reach the server through fd 3 (ownVariables), so the
    // launcher run outside the sandbox never has them (LD_PRELOAD, say).
    const env: Record<string, string> = {
      [MCP_DATA_ENV]: data,
      PATH: this.#options.env?.PATH ?? process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      LANG: this.#options.env?.LANG ?? process.env.LANG ?? 'C.UTF-8',
      TERM: 'dumb',
      TMPDIR: privateTemp,
    };
    let wrapped: WrappedCommand | undefined;
    try {
      const profile = buildCommandSandboxProfile({
        home,
        userData: realpathSync(userData),
        workspaceRoot: instance.workspace,
        scratchDir: data,
        privateTemp,
        protectedInWorkspace: [instance.workspace],
        realPath: (path) => {
          try {
            return realpathSync(path);
          } catch {
            return undefined;
          }
        },
        homeReads: homeReadPaths({ home }),
      });
      // The workspace is write-denied whole, and the temp dir and the data folder are the server's
      // own: no deny path lies where it could write, so srt's placeholders are not needed.
      wrapped = await srt.wrapCommand(withOwnVariables(instance.config), profile, {
        home,
        privateTemp,
        env,
        skipPlaceholder: () => true,
      });
    } catch (error) {
      rmSync(privateTemp, { recursive: true, force: true });
      throw error instanceof HostError ? error : new HostError('SANDBOX_WRAP', 'the sandbox could not be prepared');
    }
    const [command, ...args] = wrapped.argv;
    const child = spawnCommandChild(
      { command: command ?? '/bin/false', args, env, cwd: instance.workspace, dieWithHost: !wrapped.diesWithParent },
      { stdin: true, requestChannel: true },
    );
    handOver(child, ownVariables(instance.config.env ?? {}));
    const transport = transportOf(child);
    const gone = new Promise<void>((resolve) => {
      child.once('error', () => resolve());
      child.once('close', () => resolve());
    }).then(() => {
      wrapped?.ended();
      rmSync(privateTemp, { recursive: true, force: true });
    });
    transport.onerror = () => undefined;
    instance.stop = async () => {
      child.stdin?.end();
      signalGroup(child, 'SIGTERM');
      const kill = setTimeout(() => signalGroup(child, 'SIGKILL'), MCP_STOP_GRACE_MS);
      await gone;
      clearTimeout(kill);
    };
    // A broken protocol ends the server at once.
    const broke = transport.onerror;
    transport.onerror = (error) => {
      broke(error);
      signalGroup(child, 'SIGKILL');
    };
    return { child, transport };
  }

  /**
   * A server's data folder, `<userData>/host/mcp-data/NAME` (0700), made when missing: inside
   * `host/`, which the sidecar cannot write, so nothing but the host and the server itself puts
   * anything there. A link or a non-directory in its place is refused, never followed.
   */
  #dataFolder(name: string): string {
    const path = this.#store.dataFolderOf(name);
    mkdirSync(path, { recursive: true, mode: 0o700 });
    const stats = lstatSync(path);
    if (!stats.isDirectory()) throw new HostError('SANDBOX_WRAP', `${path} is not a directory of Bastion's`);
    return realpathSync(path);
  }

  async #stop(instance: Instance): Promise<void> {
    if (this.#instances.get(keyOf(instance.workspace, instance.config.name)) === instance) {
      this.#instances.delete(keyOf(instance.workspace, instance.config.name));
    }
    instance.state = 'stopped';
    instance.client = undefined;
    await instance.stop?.();
    this.#options.log.info('mcp.stopped', { server: instance.config.name });
  }

  async #stopAll(which: (instance: Instance) => boolean): Promise<void> {
    await Promise.all([...this.#instances.values()].filter(which).map((instance) => this.#stop(instance)));
  }
}

/** JSON-RPC's code for a method the server does not have. */
const METHOD_NOT_FOUND = -32601;

/** What LOAD_AND_RUN prints, alone, when the server's program is on no path the sandbox shows. */
const PROGRAM_NOT_FOUND = 'bastion: the program was not found in the sandbox\n';

/**
 * The script the server is started by, inside its sandbox (`sh -c LOAD_AND_RUN sh PROGRAM ARG…`):
 * it reads the variables the user gave the server from fd 3 to its end, closes fd 3 and exports
 * them, then runs the program in its place (exec: the same process, no shell left behind, and no
 * fd 3 in it). fd 3 reaches it through every wrap: bwrap, srt's seccomp helper and srt's own
 * shells (a wrap that cannot be taken apart) pass inherited descriptors on, as the pre-started
 * sandbox's request channel relies on. Read with `cat`, not `. /dev/fd/3`: libuv's stdio pipes
 * are socketpairs, which /proc/self/fd cannot open (ENXIO). A read cut short (the host gone)
 * leaves a quote open or lines out; the sandbox dies with the host anyway (--die-with-parent).
 */
const LOAD_AND_RUN = [
  'variables=$(cat <&3) && exec 3<&- && eval "$variables" || exit 1',
  'unset variables',
  `command -v -- "$1" >/dev/null 2>&1 || { printf %s ${shellQuote(PROGRAM_NOT_FOUND)} >&2; exit 1; }`,
  'exec "$@"',
].join('\n');

/**
 * The variables the user gave a server, as the `export NAME='value'` lines LOAD_AND_RUN evaluates:
 * so a value is on no command line (bwrap's `--setenv` would put it in every `ps` of the machine),
 * in no environment of the launcher run outside the sandbox, and in no file. Names are checked by
 * the schema (`[A-Z_][A-Z0-9_]*`, none of Bastion's own) and values hold no NUL.
 */
function ownVariables(variables: Readonly<Record<string, string>>): string {
  return Object.entries(variables)
    .map(([name, value]) => `export ${name}=${shellQuote(value)}\n`)
    .join('');
}

/**
 * Write `text` to the child's fd 3 and close the host's end. Asynchronous: the schema's bounds
 * (MCP_MAX_ENV_VARS values of MCP_ENV_VALUE_MAX_CHARS, some 0.5 MiB quoted at most) can exceed a
 * socket's buffer, and the shell reads it all before anything else. A child that dies first makes
 * the write fail (EPIPE), which is nothing to report: its exit is.
 */
function handOver(child: ChildProcess, text: string): void {
  const channel = child.stdio[3] as Writable | null | undefined;
  if (channel === null || channel === undefined) return;
  channel.on('error', () => undefined);
  channel.end(text, () => channel.destroy());
}

/** The argv run in the sandbox: the server's program, by way of LOAD_AND_RUN. */
function withOwnVariables(config: McpServerConfig): string[] {
  return ['/bin/sh', '-c', LOAD_AND_RUN, 'sh', config.command, ...config.args];
}

function keyOf(workspace: string, server: string): string {
  return `${workspace}\0${server}`;
}

/**
 * Every entry of a paged list (`tools/list`, `prompts/list`, `resources/list`) up to one past
 * `max` (so that a note can say more were left out), and no more than MCP_LIST_MAX_PAGES pages: a
 * server that pages without end is read no further.
 */
async function listPaged<T>(
  page: (params: { cursor: string } | undefined) => Promise<{ items: T[]; next: string | undefined }>,
  max: number,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const read = await page(cursor === undefined ? undefined : { cursor });
    items.push(...read.items);
    cursor = read.next;
    pages += 1;
  } while (cursor !== undefined && items.length <= max && pages < MCP_LIST_MAX_PAGES);
  return items;
}

/**
 * Signal the server's process group (it was spawned detached, so bwrap leads one). Once the child
 * is reaped its pid may belong to someone else: it is never signalled then.
 */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}
