/**
 * The MCP server channels of host IPC (`mcp.list`, `mcp.add`, `mcp.remove`, `mcp.restart`),
 * through the real UI server of a real host with the real srt sandbox and the real
 * @modelcontextprotocol/server-memory: each answers the granted workspace's listing as its schema
 * says, the hub's refusals reach the page as their codes, and a folder the host was not granted —
 * another one, a folder inside or above the workspace, the workspace spelled another way — is
 * refused WORKSPACE_NOT_GRANTED on every channel with nothing done: mcp.json keeps its bytes and
 * the server keeps running in the workspace.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostIpcSchemas, type HostIpcChannel, type McpListing } from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { rawRequest, type RawResponse } from '../support/raw-request.js';
import { launchDesktopSession, type DesktopSession } from '../support/desktop-session.js';

const MEMORY_SERVER = fileURLToPath(
  new URL('../../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);
const memory = { name: 'memory', command: process.execPath, args: [MEMORY_SERVER] };

let host: TempHost;
let session: DesktopSession;
/** A folder beside the workspace that the host was not granted. */
let elsewhere: string;

async function ipc(channel: HostIpcChannel, input: unknown): Promise<RawResponse> {
  return rawRequest({
    port: host.ui.port,
    method: 'POST',
    path: `/_host/ipc/${channel}`,
    headers: {
      host: `127.0.0.1:${host.ui.port}`,
      ...session.headers,
      origin: host.uiOrigin,
      referer: `${host.uiOrigin}/desktop/`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(input),
  });
}

/** A 200 answer, checked against the channel's output schema. */
async function listing(channel: 'mcp.list' | 'mcp.add' | 'mcp.remove' | 'mcp.restart', input: unknown) {
  const response = await ipc(channel, input);
  expect(response.status, response.body).toBe(200);
  return hostIpcSchemas[channel].output.parse(JSON.parse(response.body)) satisfies McpListing;
}

const mcpFile = () => join(host.userData, 'host', 'mcp.json');
const fileBytes = () => (existsSync(mcpFile()) ? readFileSync(mcpFile()) : undefined);
const states = (answer: McpListing) => answer.servers.map((server) => [server.name, server.state]);

beforeAll(async () => {
  host = await startTempHost();
  elsewhere = join(host.root, 'elsewhere');
  mkdirSync(elsewhere);
  mkdirSync(join(host.workspace, 'sub'));
  session = await launchDesktopSession(host);
}, 90_000);

afterAll(() => host?.stop());

describe('the MCP channels for the granted workspace', () => {
  it('mcp.list answers the listing: the host’s mcp.json, the workspace, servers able to run, none named yet; it starts and writes nothing', async () => {
    expect(host.capabilities.sandbox).toBe('srt');
    const answer = await listing('mcp.list', { workspace: host.workspace });
    expect(answer).toEqual({ file: mcpFile(), workspace: host.workspace, available: true, servers: [] });
    expect(existsSync(mcpFile())).toBe(false);
  });

  it('mcp.add saves the server to mcp.json and answers once it is ready in the workspace, with its tools; an env value is in no answer and no log record', async () => {
    const answer = await listing('mcp.add', {
      workspace: host.workspace,
      server: { ...memory, env: { MEMORY_NOTE: 'value-never-listed' } },
    });
    const [server] = answer.servers;
    expect(server).toMatchObject({
      name: 'memory',
      command: process.execPath,
      args: [MEMORY_SERVER],
      env_names: ['MEMORY_NOTE'],
      state: 'ready',
      left_out: [],
    });
    expect(server?.tools.map((tool) => tool.name)).toContain('read_graph');
    expect(JSON.stringify(answer)).not.toContain('value-never-listed');
    expect(JSON.stringify(host.records)).not.toContain('value-never-listed');
    const saved = JSON.parse(readFileSync(mcpFile(), 'utf8')) as unknown;
    expect(saved).toEqual({ version: 1, servers: [{ ...memory, env: { MEMORY_NOTE: 'value-never-listed' } }] });
  });

  it('mcp.restart answers with the server ready again in the workspace', async () => {
    const answer = await listing('mcp.restart', { workspace: host.workspace, name: 'memory' });
    expect(states(answer)).toEqual([['memory', 'ready']]);
  });

  it('a name in use is MCP_SERVER_EXISTS (409), an unknown one MCP_SERVER_NOT_FOUND (404) for remove and restart; mcp.json unchanged', async () => {
    const before = fileBytes();
    const again = await ipc('mcp.add', { workspace: host.workspace, server: { ...memory, args: [] } });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body)).toMatchObject({ code: 'MCP_SERVER_EXISTS' });
    for (const channel of ['mcp.remove', 'mcp.restart'] as const) {
      const unknown = await ipc(channel, { workspace: host.workspace, name: 'nobody' });
      expect(unknown.status, channel).toBe(404);
      expect(JSON.parse(unknown.body), channel).toMatchObject({ code: 'MCP_SERVER_NOT_FOUND' });
    }
    expect(fileBytes()).toEqual(before);
  });

  it('a definition its schema refuses (a variable Bastion sets, a name with "_") is IPC_BODY before the hub; mcp.json unchanged', async () => {
    const before = fileBytes();
    for (const server of [
      { ...memory, name: 'other', env: { PATH: '/tmp' } },
      { ...memory, name: 'my_server' },
    ]) {
      const refused = await ipc('mcp.add', { workspace: host.workspace, server });
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'IPC_BODY' });
    }
    expect(fileBytes()).toEqual(before);
  });
});

describeAttack('path-traversal', 'MCP channels for a folder the host was not granted', () => {
  const folders = (): [string, string][] => [
    ['another folder', elsewhere],
    ['a folder inside the workspace', join(host.workspace, 'sub')],
    ['the folder above the workspace', host.root],
    ['the workspace with a trailing slash', `${host.workspace}/`],
    ['the workspace through ..', join(host.workspace, 'sub') + '/../'],
    ['the workspace through /./', host.workspace.replace(/\/([^/]+)$/, '/./$1')],
    ['a relative path', 'workspace'],
  ];

  // Run alone (npm run test:attacks), the server the tests above add is not there yet.
  beforeAll(async () => {
    const now = await listing('mcp.list', { workspace: host.workspace });
    if (!now.servers.some((server) => server.name === 'memory'))
      await listing('mcp.add', { workspace: host.workspace, server: memory });
  }, 60_000);

  it('mcp.list, mcp.add, mcp.remove and mcp.restart each refuse it WORKSPACE_NOT_GRANTED (403) with no listing; mcp.json keeps its bytes and the server keeps running', async () => {
    const before = fileBytes();
    expect(before).toBeDefined();
    for (const [what, workspace] of folders()) {
      for (const [channel, input] of [
        ['mcp.list', { workspace }],
        ['mcp.add', { workspace, server: { ...memory, name: 'intruder' } }],
        ['mcp.remove', { workspace, name: 'memory' }],
        ['mcp.restart', { workspace, name: 'memory' }],
      ] as const) {
        const refused = await ipc(channel, input);
        expect(refused.status, `${channel} ${what}`).toBe(403);
        expect(JSON.parse(refused.body), `${channel} ${what}`).toEqual({
          code: 'WORKSPACE_NOT_GRANTED',
          message: 'not a workspace Bastion was granted',
        });
      }
    }
    expect(fileBytes()).toEqual(before);
    // A restart or remove that reached the hub would have stopped the server here.
    const after = await listing('mcp.list', { workspace: host.workspace });
    expect(states(after)).toEqual([['memory', 'ready']]);
  });
});

describe('removing a server', () => {
  it('mcp.remove stops it and takes it out of mcp.json; the listing has no server', async () => {
    const answer = await listing('mcp.remove', { workspace: host.workspace, name: 'memory' });
    expect(answer.servers).toEqual([]);
    expect(JSON.parse(readFileSync(mcpFile(), 'utf8'))).toEqual({ version: 1, servers: [] });
  });
});
