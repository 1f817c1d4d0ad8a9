/**
 * `bastion mcp` as real CLI processes on a temporary home: add writes the server to
 * `<home>/host/mcp.json` (0600, by an atomic rename: nothing left beside it), list prints it with
 * its env names but never a value (and --json parses as an McpListing), remove takes it out; every
 * refusal leaves the file's bytes as they were, and restart without a running Bastion says to
 * start one.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_MAX_SERVERS, mcpConfigFileSchema, mcpListingSchema } from '@bastion/protocol';
import { ensureUserData, McpConfigStore } from '@bastion/host';
import { projectsRemovedAfterEachTest, runCli } from './support/cli-process.js';

const project = projectsRemovedAfterEachTest();

/** Values no output may ever show: each test's env values. */
const SECRET = 'tok-3f9a1c7e5b2d';
const FROM_SHELL = 'shell-8e4b6d2a0c1f';

/** A variable this process passes on to the CLIs it starts, for `--env NAME` (removed after each test). */
const SHELL_VARIABLE = 'BASTION_TEST_MCP_TOKEN';
afterEach(() => {
  delete process.env[SHELL_VARIABLE];
});

const mcpFile = (home: string) => join(home, 'host', 'mcp.json');

describe('bastion mcp', () => {
  it('add writes the server to mcp.json (0600, nothing left beside it); list shows its command line and env names, never a value; remove takes it out', async () => {
    const { home, workspace } = project();
    process.env[SHELL_VARIABLE] = FROM_SHELL;
    const added = await runCli([
      'mcp',
      'add',
      'notes',
      '--home',
      home,
      '--env',
      `API_TOKEN=${SECRET}`,
      '--env',
      SHELL_VARIABLE,
      '--',
      'node',
      '/srv/notes server.js',
      '--flag',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toBe(
      [
        `bastion: added notes to ${mcpFile(home)}: node '/srv/notes server.js' --flag (env API_TOKEN, ${SHELL_VARIABLE})`,
        `bastion: it runs sandboxed: no network, the project read-only, writable only its own temp folder and its data folder ${join(home, 'host', 'mcp-data', 'notes')} (kept between runs; BASTION_MCP_DATA names it to the server)`,
        'bastion: Bastion starts it when a run first needs its tools',
        '',
      ].join('\n'),
    );
    expect(statSync(mcpFile(home)).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(home, 'host')).filter((entry) => entry.startsWith('.mcp.json'))).toEqual([]);
    expect(mcpConfigFileSchema.parse(JSON.parse(readFileSync(mcpFile(home), 'utf8')))).toEqual({
      version: 1,
      servers: [
        {
          name: 'notes',
          command: 'node',
          args: ['/srv/notes server.js', '--flag'],
          env: { API_TOKEN: SECRET, [SHELL_VARIABLE]: FROM_SHELL },
        },
      ],
    });

    const listed = await runCli(['mcp', 'list', '--home', home, '--workspace', workspace]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(
      [
        `MCP servers in ${mcpFile(home)} (workspace ${workspace})`,
        'notes  not running (no Bastion runs for this home)',
        "  command   node '/srv/notes server.js' --flag",
        `  env       API_TOKEN, ${SHELL_VARIABLE} (values not shown)`,
        `  data      ${join(home, 'host', 'mcp-data', 'notes')} (kept between runs; BASTION_MCP_DATA names it to the server)`,
        '',
      ].join('\n'),
    );
    const json = await runCli(['mcp', 'list', '--json', '--home', home, '--workspace', workspace]);
    expect(json.code, json.stderr).toBe(0);
    expect(mcpListingSchema.parse(JSON.parse(json.stdout))).toEqual({
      file: mcpFile(home),
      workspace,
      available: true,
      servers: [
        {
          name: 'notes',
          command: 'node',
          args: ['/srv/notes server.js', '--flag'],
          env_names: ['API_TOKEN', SHELL_VARIABLE],
          data: join(home, 'host', 'mcp-data', 'notes'),
          state: 'stopped',
          tools: [],
          prompts: [],
          resources: [],
          resource_templates: [],
          left_out: [],
        },
      ],
    });
    for (const output of [added, listed, json]) {
      expect(output.stdout + output.stderr).not.toContain(SECRET);
      expect(output.stdout + output.stderr).not.toContain(FROM_SHELL);
    }

    const removed = await runCli(['mcp', 'remove', 'notes', '--home', home]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toBe('bastion: removed notes; a running Bastion stops it at its next run\n');
    expect(JSON.parse(readFileSync(mcpFile(home), 'utf8'))).toEqual({ version: 1, servers: [] });
    const none = await runCli(['mcp', 'list', '--home', home, '--workspace', workspace]);
    expect(none.stdout).toBe(
      `MCP servers in ${mcpFile(home)} (workspace ${workspace})\n  none yet; add one with: bastion mcp add NAME -- COMMAND [ARG…]\n`,
    );
  });

  it.each([
    [
      'a name with capitals',
      2,
      ['add', 'Notes', '--', 'node', 'x.js'],
      'bastion: "Notes" is not a server name: a server name is up to 24 lower-case letters, digits and "-"',
    ],
    [
      'a name with "_" (it would break mcp__SERVER__TOOL)',
      2,
      ['add', 'my_notes', '--', 'node', 'x.js'],
      'bastion: "my_notes" is not a server name: a server name is up to 24 lower-case letters, digits and "-"',
    ],
    [
      'a name already taken',
      1,
      ['add', 'first', '--', 'node', 'other.js'],
      'bastion: a server named first exists already; remove it first',
    ],
    [
      'PATH, which Bastion sets',
      2,
      ['add', 'second', '--env', 'PATH=/evil/bin', '--', 'node', 'x.js'],
      'bastion: --env "PATH": PATH, HOME, TMPDIR, LANG, TERM, PWD and BASTION_MCP_DATA are set by Bastion',
    ],
    [
      'HOME, which Bastion sets',
      2,
      ['add', 'second', '--env', 'HOME=/root', '--', 'node', 'x.js'],
      'bastion: --env "HOME": PATH, HOME, TMPDIR, LANG, TERM, PWD and BASTION_MCP_DATA are set by Bastion',
    ],
    [
      'a lower-case variable name',
      2,
      ['add', 'second', '--env', 'token=1', '--', 'node', 'x.js'],
      'bastion: --env "token": a variable name is up to 64 upper-case letters, digits and "_"',
    ],
    [
      'a variable given twice',
      2,
      ['add', 'second', '--env', 'A=1', '--env', 'A=2', '--', 'node', 'x.js'],
      'bastion: --env A is given twice',
    ],
    [
      '--env NAME for a variable this environment lacks',
      2,
      ['add', 'second', '--env', 'BASTION_TEST_MCP_UNSET', '--', 'node', 'x.js'],
      'bastion: --env BASTION_TEST_MCP_UNSET: no BASTION_TEST_MCP_UNSET in this environment; give --env BASTION_TEST_MCP_UNSET=VALUE',
    ],
    [
      'a command without --',
      2,
      ['add', 'second', 'node', 'x.js'],
      'bastion: mcp add takes one NAME, then -- COMMAND [ARG…]',
    ],
    ['no command after --', 2, ['add', 'second', '--'], 'bastion: mcp add needs the server’s command after --'],
    [
      '--workspace (the list serves every workspace)',
      2,
      ['add', 'second', '--workspace', '.', '--', 'node'],
      'bastion: mcp add takes no --workspace',
    ],
    [
      'removing a server that is not there',
      2,
      ['remove', 'nope'],
      'bastion: no MCP server named "nope" in MCP_FILE (its servers: first); nothing was removed',
    ],
    [
      'an empty NAME (an unset shell variable)',
      2,
      ['remove', ''],
      'bastion: mcp remove takes one NAME, and it was given an empty one',
    ],
    [
      'restarting a server that is not there',
      2,
      ['restart', 'frist'],
      'bastion: no MCP server named "frist" in MCP_FILE — did you mean "first"? (its servers: first); nothing was restarted',
    ],
  ])('refuses %s with exit %i in one line, and mcp.json keeps its bytes', async (_name, code, args, line) => {
    const { home } = project();
    const [action = '', ...rest] = args;
    expect((await runCli(['mcp', 'add', 'first', '--home', home, '--', 'node', 'first.js'])).code).toBe(0);
    const before = readFileSync(mcpFile(home));
    const stamp = statSync(mcpFile(home));

    const refused = await runCli(['mcp', action, '--home', home, ...rest]);
    expect(refused.code).toBe(code);
    expect(refused.stderr.split('\n')[0]).toBe(line.replace('MCP_FILE', mcpFile(home)));
    expect(readFileSync(mcpFile(home)).equals(before)).toBe(true);
    expect(statSync(mcpFile(home)).ino).toBe(stamp.ino);
    expect(readdirSync(join(home, 'host')).filter((entry) => entry.startsWith('.mcp.json'))).toEqual([]);
  });

  it(`refuses a server beyond the ${MCP_MAX_SERVERS}th (exit 1) in one line, and mcp.json keeps its bytes`, async () => {
    const { home } = project();
    const store = new McpConfigStore(ensureUserData(home).path);
    for (let index = 0; index < MCP_MAX_SERVERS; index += 1)
      store.add({ name: `s${index}`, command: 'node', args: [] });
    const before = readFileSync(mcpFile(home));
    const refused = await runCli(['mcp', 'add', 'one-more', '--home', home, '--', 'node', 'x.js']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`bastion: at most ${MCP_MAX_SERVERS} servers; remove one first\n`);
    expect(readFileSync(mcpFile(home)).equals(before)).toBe(true);
  });

  it('a mcp.json that is not JSON is named by list and refused by add (exit 1), its bytes kept', async () => {
    const { home, workspace } = project();
    ensureUserData(home);
    writeFileSync(mcpFile(home), '{"version": 1, "servers": [', { mode: 0o600 });
    const listed = await runCli(['mcp', 'list', '--home', home, '--workspace', workspace]);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toBe('bastion: MCP_CONFIG_INVALID: mcp.json is not valid JSON\n');
    const added = await runCli(['mcp', 'add', 'notes', '--home', home, '--', 'node', 'x.js']);
    expect(added.code).toBe(1);
    expect(added.stderr).toBe('bastion: MCP_CONFIG_INVALID: mcp.json is not valid JSON\n');
    expect(readFileSync(mcpFile(home), 'utf8')).toBe('{"version": 1, "servers": [');
  });

  it('restart without a running Bastion exits 1 saying to start one', async () => {
    const { home, workspace } = project();
    expect((await runCli(['mcp', 'add', 'notes', '--home', home, '--', 'node', 'x.js'])).code).toBe(0);
    const restarted = await runCli(['mcp', 'restart', 'notes', '--home', home, '--workspace', workspace]);
    expect(restarted.code).toBe(1);
    expect(restarted.stdout).toBe('');
    expect(restarted.stderr).toBe(
      `bastion: no Bastion runs for this home, and only a running Bastion runs MCP servers: start it (bastion start --home ${home}), and it starts notes when a run first needs its tools\n`,
    );
  });

  it('remove and restart of a name mcp.json does not name exit 2 in one line naming the servers it has (or that it has none), and change nothing: no home made, no file nor lock written', async () => {
    const { home, workspace } = project();
    const actions = [
      { done: 'removed', args: (name: string) => ['mcp', 'remove', name, '--home', home] },
      { done: 'restarted', args: (name: string) => ['mcp', 'restart', name, '--home', home, '--workspace', workspace] },
    ];
    for (const { done, args } of actions) {
      const refused = await runCli(args('NOPE'));
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        `bastion: no MCP server named "NOPE" in ${mcpFile(home)}, which names none yet (bastion mcp add NAME -- COMMAND adds one); nothing was ${done}\n`,
      );
      expect(existsSync(home)).toBe(false);
    }
    for (const name of ['notes', 'memory'])
      expect((await runCli(['mcp', 'add', name, '--home', home, '--', 'node', `${name}.js`])).code).toBe(0);
    const before = readFileSync(mcpFile(home));
    const entries = readdirSync(join(home, 'host')).sort();
    for (const { done, args } of actions) {
      const refused = await runCli(args('nope'));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        `bastion: no MCP server named "nope" in ${mcpFile(home)} (its servers: notes, memory); nothing was ${done}\n`,
      );
    }
    expect(readFileSync(mcpFile(home)).equals(before)).toBe(true);
    expect(readdirSync(join(home, 'host')).sort()).toEqual(entries);
  });

  it("--help prints mcp's synopsis and paragraph; an unknown action exits 2 naming the actions and mcp's help", async () => {
    const help = await runCli(['mcp', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage:\n {2}bastion mcp list \[--workspace DIR\] \[--home DIR\] \[--json\]\n/);
    expect(help.stdout).toContain(
      '  bastion mcp add NAME [--env NAME=VALUE | --env NAME]… [--home DIR] -- COMMAND [ARG…]\n',
    );
    expect(help.stdout).toContain('\nmcp: the MCP servers in <home>/host/mcp.json');
    expect(help.stdout).not.toContain('bastion run');
    const unknown = await runCli(['mcp', 'frob']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'bastion: unknown mcp command "frob" (list, add, remove or restart)\nRun "bastion mcp --help" for its usage.\n',
    );
  });
});
