/**
 * `bastion mcp list|add|remove|restart`: the MCP servers in `<home>/host/mcp.json`.
 *
 * `list` asks the running Bastion for this home, when one runs, for each server's live state and
 * tools in the workspace; else it reads mcp.json alone and says no server runs. `add` and `remove`
 * edit mcp.json with the host's own store (the same file, checks and atomic writes the running
 * host uses; it re-reads the file at its next run), as `bastion policy` edits policy.json.
 * `restart` goes only through the running Bastion: it alone runs servers. A NAME that `remove` or
 * `restart` is given and mcp.json does not name is a mistake in what was asked (exit 2, the names
 * it has said), checked before anything is made or asked.
 *
 * An `env` value may be a token: it is written to mcp.json (0600) and never printed — `list`
 * shows the names only, and `--env NAME` takes the value from this shell's environment so that
 * it stays out of the command line.
 */
import { existsSync } from 'node:fs';
import {
  checkSandboxAvailability,
  ensureUserData,
  askRunningHost,
  holderStatusSchema,
  HostError,
  McpConfigStore,
  mcpAnswerSchema,
  quoteArgv,
  resolveUserDataPath,
  terminalJson,
  terminalLine,
  workspaceRootOf,
} from '@bastion/host';
import {
  MCP_DATA_ENV,
  MCP_ENV_VALUE_MAX_CHARS,
  MCP_MAX_ENV_VARS,
  mcpEnvNameSchema,
  mcpPromptCommandName,
  mcpResourceMention,
  mcpServerConfigSchema,
  mcpServerNameSchema,
  type McpListing,
  type McpServerConfig,
  type McpServerStatus,
} from '@bastion/protocol';
import { closestName } from '../closest-name.js';
import { homeFlag } from '../home-in-use.js';
import { parseCommandLine, unknownNameError, UsageError, WORKSPACE_OPTIONS } from '../usage.js';
import { enterWorkspace } from '../workspace.js';

/** Said of every server when no Bastion runs them. */
const NO_BASTION = 'no Bastion runs for this home';

/** What a server's state means to the person reading the list. */
function stateInWords(server: McpServerStatus, notRunning: string | undefined): string {
  if (notRunning !== undefined) return `not running (${notRunning})`;
  if (server.state === 'stopped') return 'stopped (starts when a run here first needs its tools)';
  return server.state;
}

/**
 * The listing as lines: the file, then each server with its state, command line, env names, tools,
 * the prompts and resources it offers the person (as `bastion chat` takes them) and notes.
 */
export function listingText(listing: McpListing, notRunning?: string): string {
  const lines = [`MCP servers in ${terminalLine(listing.file)} (workspace ${terminalLine(listing.workspace)})`];
  if (!listing.available && listing.reason !== undefined)
    lines.push(`  they do not run here: ${terminalLine(listing.reason)}`);
  if (listing.servers.length === 0) lines.push('  none yet; add one with: bastion mcp add NAME -- COMMAND [ARG…]');
  for (const server of listing.servers) {
    lines.push(`${server.name}  ${stateInWords(server, notRunning)}`);
    lines.push(`  command   ${quoteArgv([server.command, ...server.args])}`);
    if (server.env_names.length > 0) lines.push(`  env       ${server.env_names.join(', ')} (values not shown)`);
    lines.push(`  data      ${terminalLine(server.data)} (kept between runs; ${MCP_DATA_ENV} names it to the server)`);
    if (server.tools.length > 0)
      lines.push(`  tools     ${server.tools.map((tool) => terminalLine(tool.name)).join(', ')}`);
    // The person's, run in `bastion chat` (and the message box) by these names; never the agent's.
    const prompts = server.prompts.flatMap((prompt) => mcpPromptCommandName(server.name, prompt.name) ?? []);
    if (prompts.length > 0) lines.push(`  prompts   ${prompts.join(', ')}`);
    if (server.resources.length > 0)
      lines.push(
        `  resources ${server.resources.map((resource) => terminalLine(mcpResourceMention(server.name, resource.uri))).join(', ')}`,
      );
    // Filled in from the message box's @ menu (the host expands them with the person's values).
    if (server.resource_templates.length > 0)
      lines.push(
        `  templates ${server.resource_templates.map((template) => terminalLine(mcpResourceMention(server.name, template.uri_template))).join(', ')}`,
      );
    for (const note of server.left_out) lines.push(`  left out  ${terminalLine(note)}`);
    if (server.error !== undefined) lines.push(`  error     ${terminalLine(server.error)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** mcp.json alone, as a listing: every server stopped, since no Bastion here runs it. */
function fileListing(userData: string, workspace: string): McpListing {
  const store = new McpConfigStore(userData);
  const sandbox = checkSandboxAvailability(process.platform);
  return {
    file: store.path,
    workspace,
    available: sandbox.available,
    ...(sandbox.available
      ? {}
      : {
          reason:
            'MCP servers run only inside the sandbox, and commands would run without it here (bastion doctor says why)',
        }),
    servers: store.servers().map((server) => ({
      name: server.name,
      command: server.command,
      args: server.args,
      env_names: Object.keys(server.env ?? {}),
      data: store.dataFolderOf(server.name),
      state: 'stopped',
      tools: [],
      prompts: [],
      resources: [],
      resource_templates: [],
      left_out: [],
    })),
  };
}

/** Refusals of the running Bastion after which mcp.json is listed alone, and what is said of each server then. */
const LISTED_FROM_FILE: Readonly<Record<string, string>> = {
  WORKSPACE_NOT_GRANTED: 'the running Bastion does not work in this folder',
  MCP_UNAVAILABLE: 'the running Bastion runs no MCP servers',
};

async function list(userData: string, workspace: string, json: boolean): Promise<number> {
  const answer = await askRunningHost(userData, { op: 'mcp.list', workspace }, mcpAnswerSchema);
  let listing: McpListing;
  let notRunning: string | undefined;
  if (answer === undefined || ('refused' in answer && Object.hasOwn(LISTED_FROM_FILE, answer.refused.code))) {
    listing = fileListing(userData, workspaceRootOf(workspace));
    notRunning = answer === undefined ? NO_BASTION : LISTED_FROM_FILE[answer.refused.code];
  } else if ('refused' in answer) {
    process.stderr.write(
      `bastion: could not list the MCP servers: ${terminalLine(`${answer.refused.code}: ${answer.refused.message}`)}\n`,
    );
    return 1;
  } else listing = answer.listing;
  process.stdout.write(json ? `${terminalJson(listing)}\n` : listingText(listing, notRunning));
  return 0;
}

/** `--env NAME=VALUE` or `--env NAME` (the value from this process's environment), checked; values never echoed. */
function envOf(given: readonly string[]): Record<string, string> | undefined {
  if (given.length === 0) return undefined;
  if (given.length > MCP_MAX_ENV_VARS) throw new UsageError(`at most ${MCP_MAX_ENV_VARS} --env variables`);
  const env: Record<string, string> = {};
  for (const entry of given) {
    const cut = entry.indexOf('=');
    const name = cut === -1 ? entry : entry.slice(0, cut);
    const checked = mcpEnvNameSchema.safeParse(name);
    if (!checked.success) {
      throw new UsageError(
        `--env ${JSON.stringify(name)}: ${checked.error.issues[0]?.message ?? 'not a variable name'}`,
      );
    }
    if (Object.hasOwn(env, name)) throw new UsageError(`--env ${name} is given twice`);
    const value = cut === -1 ? process.env[name] : entry.slice(cut + 1);
    if (value === undefined) {
      throw new UsageError(`--env ${name}: no ${name} in this environment; give --env ${name}=VALUE`);
    }
    if (value.length > MCP_ENV_VALUE_MAX_CHARS) {
      throw new UsageError(`--env ${name}: its value is over ${MCP_ENV_VALUE_MAX_CHARS} characters`);
    }
    env[name] = value;
  }
  return env;
}

/** The server the command line names, checked as mcp.json checks it; a mistake is a UsageError. */
function serverOf(name: string, env: readonly string[], program: readonly string[]): McpServerConfig {
  const named = mcpServerNameSchema.safeParse(name);
  if (!named.success) {
    throw new UsageError(`${JSON.stringify(name)} is not a server name: ${named.error.issues[0]?.message ?? ''}`);
  }
  const [command, ...args] = program;
  if (command === undefined || command === '') throw new UsageError('mcp add needs the server’s command after --');
  const variables = envOf(env);
  const checked = mcpServerConfigSchema.safeParse({ name, command, args, ...(variables ? { env: variables } : {}) });
  if (!checked.success) {
    const issue = checked.error.issues[0];
    // The path names the field (command, args.3); never the env value itself.
    throw new UsageError(`${issue?.path.join('.') || 'server'}: ${issue?.message ?? 'not a valid server'}`);
  }
  return checked.data;
}

/** mcp.json refusals that are about what the file holds, not the command line: exit 1. */
const REFUSED_BY_FILE = new Set(['MCP_SERVER_EXISTS', 'MCP_TOO_MANY_SERVERS']);

async function add(userData: string, server: McpServerConfig, home: string | undefined): Promise<number> {
  const store = new McpConfigStore(ensureUserData(userData).path);
  try {
    store.add(server);
  } catch (error) {
    if (error instanceof HostError && REFUSED_BY_FILE.has(error.code)) {
      process.stderr.write(`bastion: ${terminalLine(error.message)}\n`);
      return 1;
    }
    throw error;
  }
  const running = (await askRunningHost(userData, { op: 'status' }, holderStatusSchema)) !== undefined;
  const env = Object.keys(server.env ?? {});
  process.stderr.write(
    [
      `bastion: added ${server.name} to ${store.path}: ${quoteArgv([server.command, ...server.args])}${env.length > 0 ? ` (env ${env.join(', ')})` : ''}`,
      `bastion: it runs sandboxed: no network, the project read-only, writable only its own temp folder and its data folder ${terminalLine(store.dataFolderOf(server.name))} (kept between runs; ${MCP_DATA_ENV} names it to the server)`,
      running
        ? `bastion: the running Bastion starts it at its next run in a workspace (now: bastion mcp restart ${server.name}${homeFlag(home)})`
        : 'bastion: Bastion starts it when a run first needs its tools',
    ]
      .map((line) => `${line}\n`)
      .join(''),
  );
  return 0;
}

/**
 * `name` is none of the servers `store`'s mcp.json names (a name no server may have included): said
 * in one line with the ones it does name (the likeliest first, as for a mistyped command), exit 2
 * as for any mistake in what was asked; nothing is `done` (removed, restarted).
 */
function noSuchServer(store: McpConfigStore, name: string, done: string): number {
  const known = store.servers().map((server) => server.name);
  const meant = closestName(name, known);
  const names =
    known.length === 0
      ? ', which names none yet (bastion mcp add NAME -- COMMAND adds one)'
      : `${meant === undefined ? '' : ` — did you mean "${meant}"?`} (its servers: ${known.join(', ')})`;
  process.stderr.write(
    `bastion: no MCP server named ${terminalLine(JSON.stringify(name))} in ${store.path}${names}; nothing was ${done}\n`,
  );
  return 2;
}

function remove(userData: string, name: string): number {
  // A home not made yet names no server: said without making it.
  const store = new McpConfigStore(existsSync(userData) ? ensureUserData(userData).path : userData);
  // remove() reads the file again under its lock: another process may have taken the server out since.
  if (!store.servers().some((server) => server.name === name) || !store.remove(name))
    return noSuchServer(store, name, 'removed');
  process.stderr.write(`bastion: removed ${name}; a running Bastion stops it at its next run\n`);
  return 0;
}

async function restart(userData: string, workspace: string, name: string, home: string | undefined): Promise<number> {
  // Checked in mcp.json as the running Bastion would check it, and said the same way with or without one.
  const store = new McpConfigStore(userData);
  if (!store.servers().some((server) => server.name === name)) return noSuchServer(store, name, 'restarted');
  const answer = await askRunningHost(userData, { op: 'mcp.restart', workspace, name }, mcpAnswerSchema);
  if (answer === undefined) {
    process.stderr.write(
      `bastion: ${NO_BASTION}, and only a running Bastion runs MCP servers: start it (bastion start${homeFlag(home)}), and it starts ${name} when a run first needs its tools\n`,
    );
    return 1;
  }
  if ('refused' in answer) {
    process.stderr.write(
      `bastion: could not restart ${name}: ${terminalLine(`${answer.refused.code}: ${answer.refused.message}`)}\n`,
    );
    return 1;
  }
  const server = answer.listing.servers.find((listed) => listed.name === name);
  process.stdout.write(listingText({ ...answer.listing, servers: server === undefined ? [] : [server] }));
  if (server?.state === 'starting')
    process.stderr.write(`bastion: still starting; bastion mcp list shows how it ends\n`);
  return server === undefined || server.state === 'failed' || !answer.listing.available ? 1 : 0;
}

export async function mcpCommand(argv: string[]): Promise<number> {
  // What follows `--` is the server's own command line: never read as Bastion's options.
  const cut = argv.indexOf('--');
  const program = cut === -1 ? undefined : argv.slice(cut + 1);
  const { values, positionals } = parseCommandLine({
    args: cut === -1 ? argv : argv.slice(0, cut),
    allowPositionals: true,
    options: {
      ...WORKSPACE_OPTIONS,
      json: { type: 'boolean', default: false },
      env: { type: 'string', multiple: true },
    },
  });
  const [action, ...rest] = positionals;
  const userData = resolveUserDataPath(values.home);
  const only = (allowed: readonly string[]) => {
    for (const flag of ['workspace', 'json', 'env'] as const) {
      if (values[flag] !== undefined && values[flag] !== false && !allowed.includes(flag))
        throw new UsageError(`mcp ${action} takes no --${flag}`);
    }
    if (program !== undefined && action !== 'add') throw new UsageError(`mcp ${action} takes nothing after --`);
  };
  if (action === 'list') {
    only(['workspace', 'json']);
    if (rest.length > 0) throw new UsageError(`mcp list takes options only, not ${rest.join(' ')}`);
    return list(userData, enterWorkspace(values.workspace), values.json);
  }
  if (action === 'add') {
    only(['env']);
    if (rest.length !== 1 || rest[0] === undefined)
      throw new UsageError('mcp add takes one NAME, then -- COMMAND [ARG…]');
    if (program === undefined)
      throw new UsageError('mcp add needs -- before the server’s command: mcp add NAME -- COMMAND [ARG…]');
    return add(userData, serverOf(rest[0], values.env ?? [], program), values.home);
  }
  /** The one server NAME remove and restart take; an empty one (an unset shell variable) is none. */
  const oneName = (): string => {
    const [name] = rest;
    if (rest.length !== 1 || name === undefined) throw new UsageError(`mcp ${action} takes one NAME`);
    if (name === '') throw new UsageError(`mcp ${action} takes one NAME, and it was given an empty one`);
    return name;
  };
  if (action === 'remove') {
    only([]);
    return remove(userData, oneName());
  }
  if (action === 'restart') {
    only(['workspace']);
    return restart(userData, enterWorkspace(values.workspace), oneName(), values.home);
  }
  if (action === undefined) throw new UsageError('mcp needs an action: list, add, remove or restart');
  throw unknownNameError('mcp command', action, ['list', 'add', 'remove', 'restart'], { listKnown: true });
}
