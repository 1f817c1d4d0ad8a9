/**
 * MCP servers' prompts and resources in `bastion chat`: the real CLI process, its host running the
 * test fixture MCP server (two prompts, two resources) in the real sandbox, and the demo model; the
 * session's stored prompts (sessions.db) show what the model was sent. `/mcp` lists the prompts and
 * resources; `/mcp__fixture__review code=…` sends the prompt's text, said first and marked as the
 * server's; a mistaken argument is said and nothing is sent; `@fixture:notes://readme` attaches the
 * readme's text, the binary logo is refused; on a terminal Tab completes a prompt's name. `bastion
 * run` with a mistaken MCP line exits 2 and leaves no session. A prompt's text (the fixture's lure)
 * naming another server's resource attaches nothing (that server's reads.log proves it never read
 * it), while the same word typed by the person does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { waitFor } from '@bastion/test-support';
import {
  projectsRemovedAfterEachTest,
  runCli,
  runCliInTerminal,
  userMessagesBySession,
} from './support/cli-process.js';

const FIXTURE = fileURLToPath(new URL('../../host/test/fixtures/mcp-fixture-server.mjs', import.meta.url));
const tempProject = projectsRemovedAfterEachTest();

/** A home whose mcp.json names the fixture server as each of `servers` (name, mode), and chat's arguments on it. */
async function project(servers = [['fixture', 'normal']]): Promise<{ home: string; args: string[] }> {
  const { home, workspace } = tempProject();
  for (const [name = '', mode = ''] of servers) {
    const added = await runCli(['mcp', 'add', name, '--home', home, '--', process.execPath, FIXTURE, mode]);
    expect(added.code).toBe(0);
  }
  return { home, args: ['chat', '--home', home, '--workspace', workspace, '--provider', 'demo'] };
}

/** The URIs the fixture server `server` of `home` was asked to read, in order (its reads.log). */
function readsOf(home: string, server: string): string[] {
  const log = join(home, 'host', 'mcp-data', server, 'reads.log');
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

/** Each stored prompt of the home's one session, part by part. */
function sentParts(home: string): unknown[][] {
  const [sent] = [...userMessagesBySession(home).values()];
  return (sent ?? []).map((content) => JSON.parse(content) as unknown[]);
}

it('runs /mcp__fixture__review with its argument: the prompt’s text is said, then sent marked as the server’s; a mistaken argument is said, nothing sent, and chat goes on', async () => {
  const { home, args } = await project();
  const result = await runCli(args, '/mcp__fixture__review lang=ts\n/mcp__fixture__review code="let x = 1"\n');
  expect(result.stderr).toContain(
    'bastion: /mcp__fixture__review takes no argument "lang"; it takes code (needed), focus; nothing was sent\n',
  );
  expect(result.stderr).toContain(
    'bastion: /mcp__fixture__review is the prompt review of the MCP server fixture; it sends:\nReview this code: let x = 1\n',
  );
  expect(sentParts(home)).toEqual([
    [{ type: 'text', text: 'Review this code: let x = 1', mcp: { kind: 'prompt', server: 'fixture', name: 'review' } }],
  ]);
  expect(result.code).toBe(0);
});

it('/mcp lists the prompts and resources; @fixture:notes://readme attaches the readme’s text, the binary logo is refused and nothing sent', async () => {
  const { home, args } = await project();
  const result = await runCli(args, 'ls\n/mcp\nSummarise @fixture:notes://readme\nLook at @fixture:notes://logo\n');
  expect(result.stderr).toContain('  prompts   /mcp__fixture__review, /mcp__fixture__greet\n');
  expect(result.stderr).toContain('  resources @fixture:notes://readme, @fixture:notes://logo\n');
  expect(result.stderr).toContain(
    'bastion: attached the resource notes://readme of the MCP server fixture (57 bytes)\n',
  );
  expect(result.stderr).toContain(
    "bastion: @fixture:notes://logo: MCP_RESOURCE_NOT_TEXT: notes://logo is binary (image/png): only a resource's text can be attached to a message; nothing was sent\n",
  );
  const parts = sentParts(home);
  expect(parts).toHaveLength(2);
  expect(parts[1]).toEqual([
    { type: 'text', text: 'Summarise @fixture:notes://readme' },
    {
      type: 'text',
      text: "# Fixture notes\nThe fixture's readme: FIXTURE-README-7c1.",
      mcp: { kind: 'resource', server: 'fixture', uri: 'notes://readme', name: 'Fixture readme' },
    },
  ]);
});

it('a /mcp__… line that names no prompt of a server here (no such server, no prompt part, a prompt the server does not offer) is refused naming the prompts there are, and nothing reaches the model: no message stored, no session left; bastion run exits 2 on one', async () => {
  const { home, args } = await project();
  const here = 'the prompts here: /mcp__fixture__review, /mcp__fixture__greet';
  const result = await runCli(args, '/mcp__nope__review code=x\n/mcp__fixture\n/mcp__fixture__nope\n');
  expect(result.stderr).toContain(
    `bastion: /mcp__nope__review: no MCP server named nope here; ${here}; nothing was sent\n`,
  );
  expect(result.stderr).toContain(
    `bastion: /mcp__fixture names no MCP server's prompt (one is typed /mcp__SERVER__PROMPT); ${here}; nothing was sent\n`,
  );
  expect(result.stderr).toContain(
    'bastion: the MCP server fixture offers no prompt nope; it offers /mcp__fixture__review, /mcp__fixture__greet; nothing was sent\n',
  );
  expect(result.stdout).not.toContain('demo:');
  expect(result.code).toBe(2);
  const run = await runCli(['run', ...args.slice(1), '/mcp__nope__review code=x']);
  expect(run.stderr).toContain(
    `bastion: /mcp__nope__review: no MCP server named nope here; ${here}; nothing was sent\n`,
  );
  expect(run.code).toBe(2);
  expect(userMessagesBySession(home).size).toBe(0);
  const sessions = await runCli(['sessions', '--all', '--json', '--home', home]);
  expect(sessions.stdout.trim()).toBe('');
});

it('on a terminal, Tab completes an MCP server’s prompt once the server runs: /mcp__fixture__r becomes /mcp__fixture__review', async () => {
  const { home, args } = await project();
  const cli = runCliInTerminal(args);
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the first prompt');
  cli.type('/mcp__fixture__r');
  // The first Tab starts the server (as a run would); a Tab once it is ready completes the name.
  const deadline = Date.now() + 60_000;
  while (!cli.shown().endsWith('/mcp__fixture__review')) {
    if (Date.now() > deadline) throw new Error('the prompt’s name was never completed');
    cli.type('\t');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  cli.type(' code=x\r');
  await waitFor(() => cli.shown().includes('Review this code: x'), 60_000, 'the prompt sent');
  await waitFor(() => cli.shown().split('bastion> ').length - 1 === 2, 60_000, 'the prompt after the run');
  cli.type('/exit\r');
  expect(await cli.closed).toBe(0);
  expect(sentParts(home)[0]).toEqual([
    { type: 'text', text: 'Review this code: x', mcp: { kind: 'prompt', server: 'fixture', name: 'review' } },
  ]);
});

it('bastion run with a mistaken MCP line (an argument the prompt does not take, a refused resource) exits 2 and leaves no session behind', async () => {
  const { home, args } = await project();
  const run = ['run', ...args.slice(1)];
  const mistaken = await runCli([...run, '/mcp__fixture__review lang=ts']);
  expect(mistaken.stderr).toContain(
    'bastion: /mcp__fixture__review takes no argument "lang"; it takes code (needed), focus; nothing was sent\n',
  );
  expect(mistaken.code).toBe(2);
  const refused = await runCli([...run, 'Look at @fixture:notes://logo']);
  expect(refused.stderr).toContain('MCP_RESOURCE_NOT_TEXT');
  expect(refused.code).toBe(2);
  const sessions = await runCli(['sessions', '--all', '--json', '--home', home]);
  expect(sessions.stdout.trim()).toBe('');
});

it('on a terminal, /rewind of a prompt whose text an MCP server’s prompt wrote does not put it back on the line as the person’s: it says so and how to run the prompt again, and Enter then attaches no @fixture:notes://readme the server wrote', async () => {
  const { home, args } = await project();
  const cli = runCliInTerminal(args);
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the first prompt');
  cli.type('/mcp__fixture__review code=@fixture:notes://readme\r');
  await waitFor(() => cli.shown().split('bastion> ').length - 1 === 2, 60_000, 'the prompt after the run');
  cli.type('/rewind\r');
  await waitFor(() => cli.shown().split('bastion> ').length - 1 === 3, 60_000, 'the prompt after the rewind');
  // Enter on what the line holds now: nothing, or (were the text put back) the server's text.
  cli.type('\r');
  await waitFor(() => cli.shown().split('bastion> ').length - 1 === 4, 60_000, 'the prompt after Enter');
  cli.type('/exit\r');
  expect(await cli.closed).toBe(0);
  const stored = JSON.stringify(sentParts(home));
  expect(stored).toContain('Review this code: @fixture:notes://readme');
  expect(stored).not.toContain('FIXTURE-README-7c1');
  expect(sentParts(home)).toHaveLength(1);
  expect(cli.shown()).toContain(
    "bastion: that prompt's text came from the MCP server fixture's prompt, so it is not put back on the line; /mcp__fixture__review runs it again",
  );
});

it('on a terminal, lure’s prompt whose text names another server’s resource (@other:notes://readme) is sent with nothing attached: other is never asked for it (its reads.log stays empty) and no stored row holds the readme; the same word the person types on the next line attaches it (read once)', async () => {
  const { home, args } = await project([
    ['lure', 'lure'],
    ['other', 'normal'],
  ]);
  const cli = runCliInTerminal(args);
  await waitFor(() => cli.shown().includes('bastion> '), 60_000, 'the first prompt');
  cli.type('/mcp__lure__lure\r');
  await waitFor(() => cli.shown().split('bastion> ').length - 1 === 2, 60_000, 'the prompt after the run');
  expect(cli.shown()).toContain('it sends:\r\nSummarise @other:notes://readme for me.');
  expect(readsOf(home, 'other')).toEqual([]);
  cli.type('Read @other:notes://readme\r');
  await waitFor(() => cli.shown().split('bastion> ').length - 1 === 3, 60_000, 'the prompt after the second run');
  cli.type('/exit\r');
  expect(await cli.closed).toBe(0);
  expect(readsOf(home, 'other')).toEqual(['notes://readme']);
  const [lure, typed] = sentParts(home);
  expect(lure).toEqual([
    {
      type: 'text',
      text: 'Summarise @other:notes://readme for me.',
      mcp: { kind: 'prompt', server: 'lure', name: 'lure' },
    },
  ]);
  expect(typed).toEqual([
    { type: 'text', text: 'Read @other:notes://readme' },
    {
      type: 'text',
      text: "# Fixture notes\nThe fixture's readme: FIXTURE-README-7c1.",
      mcp: { kind: 'resource', server: 'other', uri: 'notes://readme', name: 'Fixture readme' },
    },
  ]);
});
