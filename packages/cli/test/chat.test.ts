/**
 * `bastion chat`, the real CLI process with the demo model: each line piped in is a prompt to one
 * session, run in turn (`/compact` a compaction, `/exit` the end); on a real terminal (util-linux `script`) it prompts for each line, an
 * approval is asked and answered on the same terminal, and Ctrl-D ends it. A PROMPT on its command
 * line is a usage error that starts nothing.
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { AGENT_MAX_MESSAGE_CHARS, INIT_INSTRUCTIONS_PROMPT } from '@bastion/protocol';
import { SCRIPTED_MODEL, startScriptedEndpoint, waitFor } from '@bastion/test-support';
import {
  projectsRemovedAfterEachTest,
  runCli,
  runCliInTerminal,
  userMessagesBySession,
} from './support/cli-process.js';

const tempProject = projectsRemovedAfterEachTest();

/** A home (not made yet) and a workspace holding README.md. */
function project(): { home: string; workspace: string; args: string[] } {
  const { home, workspace } = tempProject();
  writeFileSync(join(workspace, 'README.md'), '# Chat test\n');
  return { home, workspace, args: ['chat', '--home', home, '--workspace', workspace, '--provider', 'demo'] };
}

/** How many runs of the demo model a terminal shows ended: replies (each starts `demo: `, one a run) with chat's prompt after them. */
function demoReplies(shown: string): number {
  return shown.slice(0, shown.lastIndexOf('bastion> ')).split('demo: ').length - 1;
}

/** The text of each prompt the home's one session holds, in order. */
function sentPrompts(home: string): (string | undefined)[] | undefined {
  const [sent] = [...userMessagesBySession(home).values()];
  return sent?.map((content) => (JSON.parse(content) as { text: string }[])[0]?.text);
}

it('runs each line piped in as a prompt to one session, in order, skipping empty lines, and exits 0 at the end of input', async () => {
  const { home, args } = project();
  const result = await runCli(args, 'ls\n\n   \nread README.md\n');
  expect(result.code).toBe(0);
  expect(result.stdout).toBe(
    [
      '[tool] list_dir .',
      '[tool] list_dir → 1 entry',
      'demo: . has 1 entries: README.md.',
      '[tool] read_file README.md',
      '[tool] read_file → 1 line',
      'demo: read README.md (12 bytes); it starts with "# Chat test".',
      '',
    ].join('\n'),
  );
  const sessions = userMessagesBySession(home);
  expect(sessions.size).toBe(1);
  const [prompts] = [...sessions.values()];
  expect(prompts).toHaveLength(2);
  expect(prompts?.[0]).toContain('ls');
  expect(prompts?.[1]).toContain('read README.md');
});

it("ends each prompt's output with the files that prompt's runs changed: a later prompt that changes none lists none, and one that does lists only its own", async () => {
  const { args } = project();
  const result = await runCli(args, 'write a.txt: one\nread a.txt\nwrite b.txt: two\n');
  expect(result.code).toBe(0);
  // Each prompt's output starts at its one call's line (`[tool] write_file a.txt`), not its result's (`[tool] read_file → …`).
  const prompts = result.stdout.split(/^(?=\[tool\] \w+ [^→])/m);
  expect(prompts).toHaveLength(3);
  const [first, second, third] = prompts;
  expect(first).toContain('\nChanged files (1):\n  a.txt\n');
  expect(second).not.toContain('Changed files');
  expect(third).toContain('\nChanged files (1):\n  b.txt\n');
});

it('on a terminal: prompts for each line, asks an approval on the same terminal, and Ctrl-D ends it with exit 0', async () => {
  const { workspace, args } = project();
  const cli = runCliInTerminal(args);
  const prompts = () => cli.shown().split('bastion> ').length - 1;
  await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
  cli.type('$ touch made\r');
  await waitFor(() => cli.shown().includes('Allow? [y/N]'), 30_000, 'the approval');
  expect(existsSync(join(workspace, 'made'))).toBe(false);
  cli.type('y\r');
  await waitFor(() => prompts() === 2, 30_000, 'the prompt after the run');
  expect(cli.shown()).toContain('[run] $ touch made → exit 0');
  expect(existsSync(join(workspace, 'made'))).toBe(true);
  cli.type('\u0004');
  expect(await cli.closed).toBe(0);
});

it('a line /init sends the message asking the agent to write AGENTS.md', async () => {
  const { home, args } = project();
  const result = await runCli(args, '/init\n');
  expect(result.code).toBe(0);
  const [prompts] = [...userMessagesBySession(home).values()];
  expect(prompts).toHaveLength(1);
  expect(prompts?.[0]).toContain(JSON.stringify(INIT_INSTRUCTIONS_PROMPT).slice(1, -1));
});

it('a line /compact summarises the session’s older turns and /exit ends it: nothing after /exit runs', async () => {
  const { home, args } = project();
  const result = await runCli(args, 'ls\nread README.md\n/compact\n/exit\nls\n');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/\[context\] [1-9]\d* older messages summarised for the model\n$/);
  const [prompts] = [...userMessagesBySession(home).values()];
  expect(prompts).toHaveLength(2);
});

it.each(['exit', 'QUIT', '/quit'])(
  'a line %s alone ends chat like /exit: nothing after it runs and the model never gets it',
  async (line) => {
    const { home, args } = project();
    const result = await runCli(args, `ls\n${line}\nls\n`);
    expect(result.code).toBe(0);
    const [prompts] = [...userMessagesBySession(home).values()];
    expect(prompts).toHaveLength(1);
    expect(prompts?.[0]).toContain('"text":"ls"');
  },
);

it('exits 2 for a PROMPT on its command line or --compact, starting nothing', async () => {
  const { home, args } = project();
  const prompted = await runCli([...args, 'hello']);
  expect(prompted.code).toBe(2);
  expect(prompted.stderr).toContain('chat takes no PROMPT: type each prompt once it starts');
  const compact = await runCli([...args, '--compact']);
  expect(compact.code).toBe(2);
  expect(compact.stderr).toContain('--compact is for bastion run');
  expect(existsSync(home)).toBe(false);
});

it('--session naming no session of this home exits 2 saying so in one line that names bastion sessions and its --all, making no session', async () => {
  const { home, args } = project();
  const result = await runCli([...args, '--session', 'ses_nonexistent1'], 'ls\n');
  expect(result.code).toBe(2);
  const list = `bastion sessions --home ${home}`;
  expect(result.stderr.split('\n').filter((line) => line.includes('ses_nonexistent1'))).toEqual([
    `bastion: no session ses_nonexistent1 here (${list} lists this folder's sessions, ${list} --all every folder's)`,
  ]);
  expect(result.stdout).toBe('');
  expect(userMessagesBySession(home).size).toBe(0);
});

it('a piped line longer than the prompt limit ends chat with exit 2 and says so; the lines before it ran, nothing after', async () => {
  const { home, args } = project();
  const overlong = 'x'.repeat(4 * AGENT_MAX_MESSAGE_CHARS + 1);
  const result = await runCli(args, `ls\r\n${overlong}\nread README.md\n`);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`a line on standard input is longer than ${AGENT_MAX_MESSAGE_CHARS} characters`);
  expect(result.stdout).toContain('[tool] list_dir → 1 entry');
  expect(result.stdout).not.toContain('read_file');
  const [prompts] = [...userMessagesBySession(home).values()];
  expect(prompts).toEqual([expect.stringContaining('ls')]);
});

it('/model lists the models with the session’s marked, refuses one not on offer, and switches the session to one that is', async () => {
  const { home, args } = project();
  expect((await runCli(['secrets', 'set', 'openai', '--home', home], 'sk-chat-model-test-key\n')).code).toBe(0);
  const result = await runCli(args, 'ls\n/model\n/model openai/gpt-9\n/model openai/gpt-5\n');
  expect(result.code).toBe(0);
  expect(result.stderr).toContain(
    "bastion: * marks this session's model; /model PROVIDER/MODEL switches it\n* demo/demo",
  );
  expect(result.stderr).toContain('bastion: openai/gpt-9 is not on offer; choose one of:\n');
  expect(result.stderr).toMatch(/bastion: session (ses_\S+) now uses openai\/gpt-5\n/);
  const sessions = await runCli(['sessions', '--all', '--json', '--home', home]);
  const listed = sessions.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { provider: string; model: string });
  expect(listed).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-5' })]);
});

it('/model of a provider without its key says so and names the command that adds it, as models default does, and keeps the session’s model', async () => {
  const { args } = project();
  const result = await runCli(args, '/model anthropic/claude-sonnet-4-5\n/model\n');
  expect(result.code).toBe(0);
  expect(result.stderr).toContain(
    "bastion: provider anthropic has no API key: add one with bastion secrets set anthropic (or in the UI's Settings); choose one of:\n* demo/demo",
  );
  expect(result.stderr).not.toContain('now uses');
  expect(result.stderr).toContain(
    "bastion: * marks this session's model; /model PROVIDER/MODEL switches it\n* demo/demo",
  );
});

it('at a terminal, greets in one line of at most 100 columns that names /help and /exit, then prompts; /help says what the greeting leaves out', async () => {
  const { args } = project();
  const cli = runCliInTerminal(args);
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the prompt');
  const lines = cli.shown().slice(0, cli.shown().indexOf('bastion> ')).split('\r\n');
  const greeting = lines.filter((line) => line.startsWith('bastion: ') && !line.startsWith('bastion: session '));
  expect(greeting).toEqual([
    'bastion: type a prompt and Enter; /help lists the commands (Tab completes them), /exit ends',
  ]);
  expect([...(greeting[0] ?? '')].length).toBeLessThanOrEqual(100);
  // What the greeting leaves out is in /help.
  cli.type('/help\r');
  await waitFor(() => cli.shown().includes('ArrowUp'), 30_000, 'the help');
  expect(cli.shown()).toContain(
    'At a terminal, a line ending in \\ goes on to the next, a paste is one prompt however many lines\r\nit holds, Tab completes a command and ArrowUp brings back an earlier line.',
  );
  cli.type('\u0004');
  expect(await cli.closed).toBe(0);
});

it('/help prints the lines that are commands and sends nothing', async () => {
  const { home, args } = project();
  const result = await runCli(args, 'ls\n/help\n');
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('bastion: a line is a prompt to this session, except these:\n  /init ');
  expect(result.stderr).toContain('  /model PROVIDER/MODEL  switch this session to that model\n');
  const [prompts] = [...userMessagesBySession(home).values()];
  expect(prompts).toHaveLength(1);
});

it('/plan prints the agent’s last plan again, and says so when there is none yet; it sends nothing', async () => {
  const { home, args } = project();
  const result = await runCli(args, '/plan\nplan Read the README; Summarise it\nls\n/plan\n');
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('bastion: the agent has set no plan in this chat\n');
  const plan = '[plan] 0 of 2 steps done\n  [>] Read the README\n  [ ] Summarise it\n';
  expect(result.stdout.split(plan)).toHaveLength(3);
  expect(result.stdout.endsWith(`demo: . has 1 entries: README.md.\n${plan}`)).toBe(true);
  const [prompts] = [...userMessagesBySession(home).values()];
  expect(prompts).toHaveLength(2);
});

it('/mcp lists the MCP servers of the folder as this chat runs them: stopped before a run needs them, ready with their tools after one; it sends nothing', async () => {
  const { home, workspace, args } = project();
  const server = fileURLToPath(
    new URL('../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url),
  );
  const added = await runCli(['mcp', 'add', 'memory', '--home', home, '--', process.execPath, server], '');
  expect(added.code).toBe(0);
  const result = await runCli([...args, '--mode', 'auto'], '/mcp\nmcp memory read_graph {}\n/mcp\n');
  expect(result.code).toBe(0);
  const [before, after] = result.stderr.split('memory  ').slice(1);
  expect(before).toMatch(/^stopped \(starts when a run here first needs its tools\)/);
  expect(after).toMatch(/^ready\n/);
  expect(after).toContain('read_graph');
  expect(result.stderr).toContain(`(workspace ${workspace})`);
  expect(result.stdout).toContain('demo: read_graph of the MCP server memory answered');
  expect(sentPrompts(home)).toEqual(['mcp memory read_graph {}']);
});

it('a server that cannot start is said after the first run to have given the agent none of its tools, once; the runs go on', async () => {
  const { home, args } = project();
  const added = await runCli(
    [
      'mcp',
      'add',
      'broken',
      '--home',
      home,
      '--',
      process.execPath,
      '-e',
      "process.stderr.write('no config'); process.exit(3)",
    ],
    '',
  );
  expect(added.code).toBe(0);
  const result = await runCli(args, 'ls\nls\n');
  expect(result.code).toBe(0);
  const said = result.stderr.split('\n').filter((line) => line.startsWith('bastion: MCP server broken'));
  expect(said).toHaveLength(1);
  expect(said[0]).toMatch(
    /^bastion: MCP server broken is not running, so the agent had none of its tools: could not start .*its last words: no config$/,
  );
  expect(result.stdout.split('demo: . has 1 entries: README.md.')).toHaveLength(3);
});

it('on a terminal, Tab completes a command: /pl becomes /plan (run on Enter), /e becomes /exit, and a prompt is left as typed', async () => {
  const { home, args } = project();
  const cli = runCliInTerminal(args);
  const prompts = () => cli.shown().split('bastion> ').length - 1;
  await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
  expect(cli.shown()).toContain('Tab completes them');
  // Keys as a person types them: the completion is in the line before Enter.
  cli.type('/pl\t');
  await waitFor(() => cli.shown().endsWith('/plan'), 30_000, '/pl completed');
  cli.type('\r');
  await waitFor(() => cli.shown().includes('the agent has set no plan in this chat'), 30_000, '/plan');
  await waitFor(() => prompts() === 2, 30_000, 'the prompt after /plan');
  cli.type('ls\t\r');
  await waitFor(() => prompts() === 3, 30_000, 'the prompt after the run');
  cli.type('/e\t');
  await waitFor(() => cli.shown().endsWith('/exit'), 30_000, '/e completed');
  cli.type('\r');
  expect(await cli.closed).toBe(0);
  const [sent] = [...userMessagesBySession(home).values()];
  expect(sent).toHaveLength(1);
  expect(JSON.parse(sent?.[0] ?? '[]')).toEqual([{ type: 'text', text: 'ls' }]);
});

it('on a terminal, ArrowUp at the prompt brings back the lines typed before, across runs', async () => {
  const { home, args } = project();
  const cli = runCliInTerminal(args);
  // A redrawn prompt line repeats "bastion> ", so runs are counted instead, by their replies.
  const runs = () => demoReplies(cli.shown());
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the first prompt');
  cli.type('ls\r');
  await waitFor(() => runs() === 1, 30_000, 'the first run');
  cli.type('read README.md\r');
  await waitFor(() => runs() === 2, 30_000, 'the second run');
  // What the prompt's line reads now: readline redraws it, then moves the cursor (CSI … G).
  const ESC = '\u001b';
  const cursorMove = new RegExp(`${ESC}\\[\\d*G$`);
  const line = () => (cli.shown().split('bastion> ').at(-1) ?? '').replace(cursorMove, '');
  // Up twice: the first line again.
  cli.type(`${ESC}[A`);
  await waitFor(() => line() === 'read README.md', 30_000, 'the last line back');
  cli.type(`${ESC}[A`);
  await waitFor(() => line() === 'ls', 30_000, 'the first line back');
  cli.type('\r');
  await waitFor(() => runs() === 3, 30_000, 'the third run');
  await waitFor(() => line() === '', 30_000, 'the prompt after it');
  cli.type('\u0004');
  expect(await cli.closed).toBe(0);
  expect(sentPrompts(home)).toEqual(['ls', 'read README.md', 'ls']);
});

it('on a terminal, a bracketed paste of several lines is one prompt, sent with the Enter after it; a line ending in \\ goes on to the next; lines pasted without the marks are each a prompt, none dropped', async () => {
  const { home, args } = project();
  const cli = runCliInTerminal(args);
  const runs = () => demoReplies(cli.shown());
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the first prompt');
  expect(cli.shown()).toContain('\u001b[?2004h');
  // As a terminal in bracketed-paste mode sends a pasted block: its newlines as Enter, inside the marks.
  cli.type('\u001b[200~ls\rread README.md\u001b[201~');
  await waitFor(() => cli.shown().includes('     ... '), 30_000, 'the pasted line after the first');
  expect(runs()).toBe(0);
  cli.type('\r');
  await waitFor(() => runs() === 1, 30_000, 'the pasted prompt');
  cli.type('ls \\\r');
  await waitFor(() => cli.shown().split('     ... ').length === 3, 30_000, 'the line after the backslash');
  cli.type('.\r');
  await waitFor(() => runs() === 2, 30_000, 'the continued prompt');
  // Without the marks, a pasted block arrives as lines at once.
  cli.type('ls\rread README.md\r');
  await waitFor(() => runs() === 4, 30_000, 'both pasted lines');
  cli.type('\u0004');
  expect(await cli.closed).toBe(0);
  // Bracketed paste is off again once chat ends.
  expect(cli.shown().endsWith('\u001b[?2004l')).toBe(true);
  expect(sentPrompts(home)).toEqual(['ls\nread README.md', 'ls \n.', 'ls', 'read README.md']);
});

it('on a terminal, Ctrl-C at the prompt drops what is typed of it (a continued line too) and asks again; at an empty prompt it ends chat with exit 0', async () => {
  const { home, args } = project();
  const cli = runCliInTerminal(args);
  const runs = () => demoReplies(cli.shown());
  const dropped = () => cli.shown().split('^C\r\n').length - 1;
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the first prompt');
  cli.type('ls \\\r');
  await waitFor(() => cli.shown().includes('     ... '), 30_000, 'the line after the backslash');
  cli.type('\u0003');
  await waitFor(() => dropped() === 1, 30_000, 'the continued prompt dropped');
  cli.type('read README.md\r');
  await waitFor(() => runs() === 1, 30_000, 'the prompt typed after it');
  cli.type('ls');
  await waitFor(() => cli.shown().endsWith('ls'), 30_000, 'a prompt typed and not sent');
  cli.type('\u0003');
  await waitFor(() => dropped() === 2, 30_000, 'the typed prompt dropped');
  cli.type('\u0003');
  expect(await cli.closed).toBe(0);
  expect(runs()).toBe(1);
  expect(sentPrompts(home)).toEqual(['read README.md']);
});

it('on a terminal, /rewind takes the last prompt out and puts it back on the line, where what is typed next is added to it', async () => {
  const { home, args } = project();
  const cli = runCliInTerminal(args);
  const prompts = () => cli.shown().split('bastion> ').length - 1;
  await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
  cli.type('ls\r');
  await waitFor(() => prompts() === 2, 30_000, 'the prompt after the run');
  cli.type('/rewind\r');
  await waitFor(() => cli.shown().includes('1 turn out of the conversation'), 30_000, '/rewind');
  // readline moves the cursor past the prompt (ESC [ 10 G) before it echoes the line.
  await waitFor(
    () => cli.shown().endsWith('bastion> ls') || cli.shown().endsWith('bastion> \u001b[10Gls'),
    30_000,
    'the rewound prompt on the line',
  );
  cli.type(' .\r');
  await waitFor(() => prompts() === 4, 30_000, 'the prompt after the second run');
  cli.type('/exit\r');
  expect(await cli.closed).toBe(0);
  expect(sentPrompts(home)).toEqual(['ls', 'ls .']);
});

it('/reasoning shows the session’s effort and changes it on a model that takes one; on one that takes none, or with no such effort, it says why and changes nothing', async () => {
  const { home, workspace } = project();
  const key = await runCli(['secrets', 'set', 'openai', '--home', home], 'sk-chat-reasoning-test-key\n');
  expect(key.code).toBe(0);
  const gpt5 = ['chat', '--home', home, '--workspace', workspace, '--provider', 'openai', '--model', 'gpt-5'];
  const set = await runCli(gpt5, '/reasoning\n/reasoning high\n/reasoning max\n/reasoning\n');
  expect(set.code).toBe(0);
  expect(set.stderr).toContain(
    'bastion: reasoning effort the model’s default; /reasoning low|medium|high|default changes it\n',
  );
  expect(set.stderr).toContain('bastion: reasoning effort high\n');
  expect(set.stderr).toContain('bastion: /reasoning takes low, medium, high or default, not max\n');
  expect(set.stderr).toContain('bastion: reasoning effort high; /reasoning low|medium|high|default changes it\n');

  const demo = await runCli(
    ['chat', '--home', home, '--workspace', workspace, '--provider', 'demo'],
    '/reasoning low\n',
  );
  expect(demo.code).toBe(0);
  expect(demo.stderr).toContain('bastion: the reasoning effort was not changed: ');
  expect(demo.stderr).toContain('demo/demo takes no reasoning effort');
});

it('/changes lists what the session’s file tools changed, a line a file with its summary, and says so when nothing has; it sends nothing', async () => {
  const endpoint = await startScriptedEndpoint([
    { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made\n' } },
    { kind: 'text', pieces: ['written'] },
  ]);
  try {
    const { home, workspace } = tempProject();
    const args = ['chat', '--home', home, '--workspace', workspace, '--endpoint', endpoint.baseUrl];
    const result = await runCli([...args, '--model', SCRIPTED_MODEL], '/changes\nwrite it\n/changes\n');
    expect(result.code).toBe(0);
    expect(existsSync(join(workspace, 'made.txt'))).toBe(true);
    const [, after] = result.stderr.split("bastion: no file changed by this session's file tools\n");
    expect(after).toContain('added     made.txt  +1 −0\nbastion: 1 file changed, +1 −0\n');
    expect(endpoint.seen).toHaveLength(2);
    const [prompts] = [...userMessagesBySession(home).values()];
    expect(prompts).toHaveLength(1);
  } finally {
    await endpoint.close();
  }
});

it('a line /NAME that is no command and no saved prompt, or a command typed with what it does not take, is refused and not sent; a saved prompt and a path are not refused; an MCP prompt line naming no server here is refused as that, not as an unknown command', async () => {
  const { home, args } = project();
  mkdirSync(join(home, 'prompts'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, 'prompts', 'peek.md'), 'read $ARGUMENTS\n');
  const result = await runCli(
    args,
    '/compcat\n/compact now\n/model a b\n/Help\n/peek README.md\n/usr/share is what?\n/mcp__nosuch__prompt\n',
  );
  expect(result.stderr).toContain(
    'bastion: unknown command /compcat (did you mean /compact?); nothing was sent (/help lists the commands)\n',
  );
  expect(result.stderr).toContain('bastion: /compact is typed alone; nothing was sent (/help lists the commands)\n');
  expect(result.stderr).toContain(
    'bastion: /model is typed /model or /model PROVIDER/MODEL; nothing was sent (/help lists the commands)\n',
  );
  expect(result.stderr).toContain(
    'bastion: unknown command /Help (did you mean /help?); nothing was sent (/help lists the commands)\n',
  );
  expect(result.stderr).not.toContain('/mcp__nosuch__prompt (did you mean');
  expect(result.stderr).toContain(
    'bastion: /mcp__nosuch__prompt: no MCP server named nosuch here; no MCP server here offers a prompt; nothing was sent\n',
  );
  expect(sentPrompts(home)).toEqual(['read README.md', '/usr/share is what?']);
});

it('on a terminal, a refused /NAME line is put back on the line to correct, and sent once corrected', async () => {
  const { home, args } = project();
  const cli = runCliInTerminal(args);
  const prompts = () => cli.shown().split('bastion> ').length - 1;
  await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
  cli.type('/lss\r');
  await waitFor(() => cli.shown().includes('unknown command /lss'), 30_000, 'the refusal');
  // readline moves the cursor past the prompt (ESC [ 10 G) before it echoes the line.
  await waitFor(
    () => cli.shown().endsWith('bastion> /lss') || cli.shown().endsWith('bastion> \u001b[10G/lss'),
    30_000,
    'the refused line back on the line',
  );
  // Ctrl-A goes to the start of the line: the prompt sent is what was typed, corrected.
  cli.type('\u0001ls \r');
  await waitFor(() => cli.shown().includes('demo: list_dir was refused'), 30_000, 'the corrected prompt run');
  cli.type('/exit\r');
  expect(await cli.closed).toBe(0);
  expect(sentPrompts(home)).toEqual(['ls /lss']);
});

it('chat --help names each command chat’s /help lists', async () => {
  const { args } = project();
  const listed = (await runCli(args, '/help\n')).stderr.match(/^ {2}\/[a-z]+/gm) ?? [];
  expect(listed.length).toBeGreaterThan(10);
  const help = (await runCli(['chat', '--help'])).stdout;
  expect(listed.map((command) => command.trim()).filter((command) => !help.includes(command))).toEqual([]);
});

it('a chat that runs no prompt (input ended at once, or each line refused) removes the session it made, saying so; one it continued stays', async () => {
  const { home, workspace, args } = project();
  const sessions = async () =>
    (await runCli(['sessions', '--home', home, '--workspace', workspace, '--json'])).stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: string }).id);
  expect((await runCli(args, 'ls\n')).code).toBe(0);
  const [kept] = await sessions();

  for (const input of ['', '/compcat\n']) {
    const ended = await runCli(args, input);
    const made = /bastion: session (ses_\S+) /.exec(ended.stderr)?.[1];
    expect(ended.stderr).toContain(`bastion: session ${made} removed; nothing was run\n`);
    expect(await sessions()).toEqual([kept]);
  }
  const continued = await runCli([...args, '--continue'], '');
  expect(continued.stderr).not.toContain('removed');
  expect(await sessions()).toEqual([kept]);
});

it('an idle chat on a session New session made and left untouched keeps it: the daemon removes an unshown one meanwhile, not that one, and chat ending leaves it', async () => {
  const { home, workspace, args } = project();
  // Chat with nothing typed: the home's sessions.db, every migration applied, and no session.
  expect((await runCli(args, '')).code).toBe(0);
  const db = new Database(join(home, 'sessions.db'));
  const insert = db.prepare(
    `INSERT INTO sessions (id, mode, provider, model, workspace, created_at, updated_at, provisional)
     VALUES (?, 'accept-edits', 'demo', 'demo', ?, ?, ?, 1)`,
  );
  const now = new Date().toISOString();
  // As a page's New session leaves them: one for chat to take, one nothing shows.
  insert.run('ses_takenByChat01', realpathSync(workspace), now, now);
  insert.run('ses_shownNowhere1', null, now, now);
  db.close();
  /** The ids `bastion sessions` lists (through the chat's running host); undefined when it failed. */
  const listed = async () => {
    const result = await runCli(['sessions', '--home', home, '--all', '--json']);
    if (result.code !== 0) return undefined;
    return result.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: string }).id);
  };

  // No setting on the command line (a PATCH of one would keep it anyway): chat only takes it.
  const cli = runCliInTerminal(['chat', '--home', home, '--workspace', workspace, '--session', 'ses_takenByChat01']);
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the prompt');
  let ids: string[] | undefined;
  await waitFor(
    async () => (ids = await listed())?.includes('ses_shownNowhere1') === false,
    90_000,
    'the unshown session removed',
  );
  expect(ids).toContain('ses_takenByChat01');
  cli.type('\u0004');
  expect(await cli.closed).toBe(0);
  const after = new Database(join(home, 'sessions.db'), { readonly: true });
  try {
    expect(after.prepare("SELECT provisional FROM sessions WHERE id = 'ses_takenByChat01'").get()).toEqual({
      provisional: 0,
    });
  } finally {
    after.close();
  }
}, 150_000);
