/**
 * The control socket's MCP ops over a real Unix socket, asked with the CLI's own client: a folder
 * the host was not granted is refused in words before the hub is asked (these hubs fail the test
 * when they are reached), a granted one is named to the hub by its real path, the hub's refusals
 * come back with their code and words, a restart still starting is answered before the client
 * gives up, and a listing larger than an answer may be is refused, not cut.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONTROL_CONNECTION_TIMEOUT_MS,
  MCP_MAX_SERVERS,
  MCP_MAX_TOOLS_PER_SERVER,
  MCP_TOOL_DESCRIPTION_MAX_CHARS,
  type Logger,
  type McpListing,
} from '@bastion/protocol';
import { makeTempDir } from '@bastion/test-support';
import { HostError } from '../errors.js';
import { askRunningHost } from './control-client.js';
import { holderStatusSchema, mcpAnswerSchema } from './control-protocol.js';
import { ControlServer, type ControlServerOptions, type McpControl } from './control-server.js';

const quiet: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const servers: ControlServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** A home with a granted workspace, a folder beside it, and links from inside the granted one to each. */
function world() {
  const root = makeTempDir('bastion-control-mcp-');
  const userData = join(root, 'home');
  const granted = join(root, 'granted');
  const other = join(root, 'other');
  for (const dir of [userData, granted, other]) mkdirSync(dir);
  symlinkSync(other, join(granted, 'to-other'));
  symlinkSync(granted, join(root, 'granted-link'));
  return { root, userData, granted, other };
}

function listingOf(workspace: string, state: 'starting' | 'ready' = 'ready'): McpListing {
  return {
    file: '/home/u/.bastion/host/mcp.json',
    workspace,
    available: true,
    servers: [
      {
        name: 'memory',
        command: 'node',
        args: ['server.js'],
        env_names: [],
        data: '/home/u/.bastion/host/mcp-data/memory',
        state,
        tools: state === 'ready' ? [{ name: 'read_graph', description: 'Read the graph' }] : [],
        prompts: [],
        resources: [],
        resource_templates: [],
        left_out: [],
      },
    ],
  };
}

/** A hub that fails the test if any of it is reached. */
const unreachableHub: McpControl = {
  listing: () => expect.fail('the hub was asked for a listing'),
  restart: () => expect.fail('the hub was asked to restart'),
};

async function serve(userData: string, options: ControlServerOptions): Promise<string[]> {
  const handled: string[] = [];
  const server = await ControlServer.listen(
    userData,
    (request) => {
      handled.push(request.op);
      return Promise.resolve({ ok: true, pid: process.pid, command: 'start', ui: 'http://127.0.0.1:1/desktop/' });
    },
    quiet,
    options,
  );
  if (!server) throw new Error('the control socket could not be bound');
  servers.push(server);
  return handled;
}

describe('control socket: mcp.list and mcp.restart', () => {
  it.each([
    ['a folder beside the granted one', (w: ReturnType<typeof world>) => w.other],
    ['a path climbing out of the granted folder with ..', (w: ReturnType<typeof world>) => `${w.granted}/../other`],
    [
      'a symlink inside the granted folder to one outside it',
      (w: ReturnType<typeof world>) => join(w.granted, 'to-other'),
    ],
    ['a folder that does not exist', (w: ReturnType<typeof world>) => join(w.root, 'missing')],
  ])('refuses %s WORKSPACE_NOT_GRANTED in words, never asking the hub', async (_name, workspaceOf) => {
    const w = world();
    await serve(w.userData, { mcp: unreachableHub, grantedWorkspaces: () => [w.granted] });
    const workspace = workspaceOf(w);
    for (const request of [
      { op: 'mcp.list', workspace } as const,
      { op: 'mcp.restart', workspace, name: 'memory' } as const,
    ]) {
      const answer = await askRunningHost(w.userData, request, mcpAnswerSchema);
      expect(answer).toEqual({
        ok: true,
        refused: {
          code: 'WORKSPACE_NOT_GRANTED',
          message: 'the running Bastion does not work in this folder, so no MCP server of it runs here',
        },
      });
    }
  });

  it('names a granted workspace to the hub by its real path, however it was spelled', async () => {
    const w = world();
    const asked: string[] = [];
    const hub: McpControl = {
      listing: (workspace) => (asked.push(workspace), listingOf(workspace)),
      restart: (workspace) => (asked.push(workspace), Promise.resolve(listingOf(workspace))),
    };
    await serve(w.userData, { mcp: hub, grantedWorkspaces: () => [w.granted] });
    const spelled = join(w.root, 'granted-link');
    const listed = await askRunningHost(w.userData, { op: 'mcp.list', workspace: spelled }, mcpAnswerSchema);
    const restarted = await askRunningHost(
      w.userData,
      { op: 'mcp.restart', workspace: spelled, name: 'memory' },
      mcpAnswerSchema,
    );
    expect(listed).toEqual({ ok: true, listing: listingOf(w.granted) });
    expect(restarted).toEqual({ ok: true, listing: listingOf(w.granted) });
    expect(asked).toEqual([w.granted, w.granted]);
  });

  it("passes the hub's refusal (MCP_SERVER_NOT_FOUND, an unusable mcp.json) on with its code and words", async () => {
    const w = world();
    const hub: McpControl = {
      listing: () => {
        throw new HostError('MCP_CONFIG_INVALID', 'mcp.json is not valid JSON');
      },
      restart: (_workspace, name) => Promise.reject(new HostError('MCP_SERVER_NOT_FOUND', `no server named ${name}`)),
    };
    await serve(w.userData, { mcp: hub, grantedWorkspaces: () => [w.granted] });
    expect(await askRunningHost(w.userData, { op: 'mcp.list', workspace: w.granted }, mcpAnswerSchema)).toEqual({
      ok: true,
      refused: { code: 'MCP_CONFIG_INVALID', message: 'mcp.json is not valid JSON' },
    });
    expect(
      await askRunningHost(w.userData, { op: 'mcp.restart', workspace: w.granted, name: 'nope' }, mcpAnswerSchema),
    ).toEqual({ ok: true, refused: { code: 'MCP_SERVER_NOT_FOUND', message: 'no server named nope' } });
  });

  it('without a hub, refuses the MCP ops MCP_UNAVAILABLE in words; the other ops still reach the host', async () => {
    const w = world();
    const handled = await serve(w.userData, {});
    expect(await askRunningHost(w.userData, { op: 'mcp.list', workspace: w.granted }, mcpAnswerSchema)).toEqual({
      ok: true,
      refused: { code: 'MCP_UNAVAILABLE', message: 'this Bastion runs no MCP servers' },
    });
    expect(await askRunningHost(w.userData, { op: 'status' }, holderStatusSchema)).toMatchObject({ ok: true });
    expect(handled).toEqual(['status']);
  });

  it('answers a restart whose start goes on past the wait with the server starting, before the client gives up', async () => {
    const w = world();
    const hub: McpControl = {
      listing: (workspace) => listingOf(workspace, 'starting'),
      restart: () => new Promise<McpListing>(() => undefined),
    };
    await serve(w.userData, { mcp: hub, grantedWorkspaces: () => [w.granted] });
    const started = performance.now();
    const answer = await askRunningHost(
      w.userData,
      { op: 'mcp.restart', workspace: w.granted, name: 'memory' },
      mcpAnswerSchema,
    );
    expect(answer).toEqual({ ok: true, listing: listingOf(w.granted, 'starting') });
    expect(performance.now() - started).toBeLessThan(CONTROL_CONNECTION_TIMEOUT_MS);
  });

  it('refuses a listing larger than a control answer may be in words, rather than cutting it', async () => {
    const w = world();
    const description = 'd'.repeat(MCP_TOOL_DESCRIPTION_MAX_CHARS);
    const huge = (workspace: string): McpListing => ({
      ...listingOf(workspace),
      servers: Array.from({ length: MCP_MAX_SERVERS }, (_, server) => ({
        ...listingOf(workspace).servers[0]!,
        name: `s${server}`,
        tools: Array.from({ length: MCP_MAX_TOOLS_PER_SERVER }, (_, tool) => ({ name: `t${tool}`, description })),
      })),
    });
    await serve(w.userData, {
      mcp: { listing: huge, restart: (workspace) => Promise.resolve(huge(workspace)) },
      grantedWorkspaces: () => [w.granted],
    });
    expect(await askRunningHost(w.userData, { op: 'mcp.list', workspace: w.granted }, mcpAnswerSchema)).toEqual({
      ok: true,
      refused: {
        code: 'CONTROL_FAILED',
        message: "the servers' listing is larger than a control answer carries; Settings shows it",
      },
    });
  });
});
