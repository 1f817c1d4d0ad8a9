/**
 * `bastion mcp` with a real running Bastion (`bastion start --no-open` on a temporary home) and a
 * real MCP server (@modelcontextprotocol/server-memory, run by `node` in the command sandbox): a
 * server added while it runs is listed stopped until `restart` starts it, then ready with its
 * tools, through the control socket, its env value never shown or logged; a folder the running Bastion does not work in is listed from
 * mcp.json and refused a restart; a server that cannot start is failed with its error in words.
 * And `bastion run` on the demo model calls a server's tool.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mcpListingSchema } from '@bastion/protocol';
import {
  demoInAuto,
  projectsRemovedAfterEachTest,
  runCli,
  startHolder,
  stoppedAfterEachTest,
} from './support/cli-process.js';

const started = stoppedAfterEachTest();
const project = projectsRemovedAfterEachTest();

/** The MCP reference server the tests run (a devDependency of the repository). */
const MEMORY_SERVER = fileURLToPath(
  new URL('../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
);

/** An env value the server is given: no output and no log line may show it. */
const SECRET = 'tok-7d1e9b3a5c2f';

/** How many `control.request` lines of the home's host log are for `method`. */
function controlRequests(home: string, method: string): number {
  return readFileSync(join(home, 'logs', 'host.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('"event":"control.request"') && line.includes(`"method":"${method}"`)).length;
}

describe('bastion mcp with a running Bastion', () => {
  it('lists a server added while Bastion runs as stopped; restart starts it in the sandbox, ready with read_graph; list then shows it ready; its env value is never printed or logged', async () => {
    const { home, workspace } = project();
    await startHolder(started, home, workspace).ready;
    const added = await runCli([
      'mcp',
      'add',
      'memory',
      '--home',
      home,
      '--env',
      `NOTES_TOKEN=${SECRET}`,
      '--',
      'node',
      MEMORY_SERVER,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(
      `bastion: the running Bastion starts it at its next run in a workspace (now: bastion mcp restart memory --home ${home})\n`,
    );

    const before = await runCli(['mcp', 'list', '--home', home, '--workspace', workspace]);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toBe(
      [
        `MCP servers in ${join(home, 'host', 'mcp.json')} (workspace ${workspace})`,
        'memory  stopped (starts when a run here first needs its tools)',
        `  command   node ${MEMORY_SERVER}`,
        '  env       NOTES_TOKEN (values not shown)',
        `  data      ${join(home, 'host', 'mcp-data', 'memory')} (kept between runs; BASTION_MCP_DATA names it to the server)`,
        '',
      ].join('\n'),
    );

    const restarted = await runCli(['mcp', 'restart', 'memory', '--home', home, '--workspace', workspace]);
    expect(restarted.code, restarted.stderr).toBe(0);
    const lines = restarted.stdout.split('\n');
    expect(lines[1]).toBe('memory  ready');
    expect(lines.find((line) => line.startsWith('  tools     '))?.split(/[ ,]+/)).toContain('read_graph');

    const after = await runCli(['mcp', 'list', '--json', '--home', home, '--workspace', workspace]);
    expect(after.code, after.stderr).toBe(0);
    const listing = mcpListingSchema.parse(JSON.parse(after.stdout));
    expect(listing).toMatchObject({ workspace, available: true });
    expect(listing.servers.map((server) => [server.name, server.state])).toEqual([['memory', 'ready']]);
    expect(listing.servers[0]?.tools.map((tool) => tool.name)).toContain('read_graph');
    // Each answer came from the running host's control socket, not from mcp.json alone.
    expect(controlRequests(home, 'mcp.list')).toBe(2);
    expect(controlRequests(home, 'mcp.restart')).toBe(1);
    expect(listing.servers[0]?.env_names).toEqual(['NOTES_TOKEN']);
    for (const output of [added, before, restarted, after]) expect(output.stdout + output.stderr).not.toContain(SECRET);
    expect(readFileSync(join(home, 'logs', 'host.log'), 'utf8')).not.toContain(SECRET);
  });

  it('a folder the running Bastion does not work in: list shows mcp.json with the server not running there, restart is refused in words (exit 1); a server mcp.json does not name is said as without a running Bastion (exit 2), which is not asked', async () => {
    const { root, home, workspace } = project();
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    await startHolder(started, home, workspace).ready;
    expect((await runCli(['mcp', 'add', 'memory', '--home', home, '--', 'node', MEMORY_SERVER])).code).toBe(0);

    const listed = await runCli(['mcp', 'list', '--home', home, '--workspace', elsewhere]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[1]).toBe('memory  not running (the running Bastion does not work in this folder)');
    const refused = await runCli(['mcp', 'restart', 'memory', '--home', home, '--workspace', elsewhere]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'bastion: could not restart memory: WORKSPACE_NOT_GRANTED: the running Bastion does not work in this folder, so no MCP server of it runs here\n',
    );
    const restarts = controlRequests(home, 'mcp.restart');
    const unnamed = await runCli(['mcp', 'restart', 'nope', '--home', home, '--workspace', workspace]);
    expect(controlRequests(home, 'mcp.restart')).toBe(restarts);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toBe(
      `bastion: no MCP server named "nope" in ${join(home, 'host', 'mcp.json')} (its servers: memory); nothing was restarted\n`,
    );
  });

  it('a server that exits before listing its tools is failed after restart (exit 1), why in words', async () => {
    const { home, workspace } = project();
    await startHolder(started, home, workspace).ready;
    const added = await runCli(['mcp', 'add', 'broken', '--home', home, '--', 'node', '-e', 'process.exit(3)']);
    expect(added.code, added.stderr).toBe(0);
    const restarted = await runCli(['mcp', 'restart', 'broken', '--home', home, '--workspace', workspace]);
    expect(restarted.code).toBe(1);
    const lines = restarted.stdout.split('\n');
    expect(lines.slice(1, 4)).toEqual([
      'broken  failed',
      "  command   node -e 'process.exit(3)'",
      `  data      ${join(home, 'host', 'mcp-data', 'broken')} (kept between runs; BASTION_MCP_DATA names it to the server)`,
    ]);
    expect(lines[4]).toMatch(/^ {2}error {5}\S/);
  });

  it("bastion run on the demo model ('mcp memory read_graph {}') calls the server's tool and prints the call and its answer", async () => {
    const { home, workspace } = project();
    expect((await runCli(['mcp', 'add', 'memory', '--home', home, '--', 'node', MEMORY_SERVER])).code).toBe(0);
    const run = await runCli([...demoInAuto('run', home, workspace), 'mcp memory read_graph {}']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('[tool] mcp__memory__read_graph {}\n');
    expect(run.stdout).toContain('[tool] mcp__memory__read_graph → answered: { …\n');
    expect(run.stdout).toMatch(/read_graph of the MCP server memory answered: .*"entities": \[\]/);
  });
});
