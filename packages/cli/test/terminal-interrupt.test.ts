/**
 * Ctrl-C on a real terminal (util-linux `script`), with the demo model in auto mode running a
 * sandboxed `sleep`: the terminal signals the CLI's process group, and only the host decides what
 * stops. `bastion run` aborts its run and exits 130 at once, as a shell's command stopped by
 * Ctrl-C does (the sidecar, in a group of its own, is not cut off under it); `bastion chat` aborts
 * the run and goes on with the same session, and exits 130 when that run was its last. Ctrl-C at
 * an approval question (readline's, in raw mode: no signal) stops the run the same way.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { waitFor } from '@bastion/test-support';
import { demoInAuto, projectsRemovedAfterEachTest, runCli, runCliInTerminal } from './support/cli-process.js';

const project = projectsRemovedAfterEachTest();

/** Whether a process runs `argv` exactly (read from /proc): the sandboxed command has started. */
function running(argv: string[]): boolean {
  const wanted = `${argv.join('\0')}\0`;
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8') === wanted;
    } catch {
      return false;
    }
  });
}

it('bastion run: Ctrl-C during a command aborts the run and exits 130, the command that printed nothing named as stopped, the agent process not cut off', async () => {
  const { home, workspace } = project();
  const cli = runCliInTerminal([...demoInAuto('run', home, workspace), '$ sleep 41.3']);
  await waitFor(() => running(['sleep', '41.3']), 60_000, 'the sandboxed sleep');
  cli.type('\u0003');
  expect(await cli.closed).toBe(130);
  expect(cli.shown()).toContain('[run] $ sleep 41.3 → stopped');
  expect(cli.shown()).toContain('bastion: run stopped: RUN_ABORTED: the run was aborted');
  expect(cli.shown()).not.toContain('the agent process stopped');
});

it('bastion chat: Ctrl-C during a command aborts that run only, the command said once to be stopped; the next prompt runs in the same session', async () => {
  const { home, workspace } = project();
  const cli = runCliInTerminal(demoInAuto('chat', home, workspace));
  const prompts = () => cli.shown().split('bastion> ').length - 1;
  await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
  cli.type('$ sleep 42.7\r');
  await waitFor(() => running(['sleep', '42.7']), 30_000, 'the sandboxed sleep');
  cli.type('\u0003');
  await waitFor(() => prompts() === 2, 30_000, 'the prompt after the stopped run');
  expect(cli.shown()).toContain('bastion: run stopped: RUN_ABORTED: the run was aborted');
  cli.type('ls\r');
  await waitFor(() => prompts() === 3, 30_000, 'the prompt after ls');
  expect(cli.shown()).toContain('[tool] list_dir → 0 entries');
  expect(cli.shown().split('[run] $ sleep 42.7 → stopped')).toHaveLength(2);
  expect(cli.shown()).not.toContain('the agent process stopped');
  cli.type('\u0004');
  expect(await cli.closed).toBe(0);
});

it('bastion chat: a run stopped by Ctrl-C as its last, chat ended with Ctrl-D exits 130', async () => {
  const { home, workspace } = project();
  const cli = runCliInTerminal(demoInAuto('chat', home, workspace));
  const prompts = () => cli.shown().split('bastion> ').length - 1;
  await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
  cli.type('$ sleep 43.1\r');
  await waitFor(() => running(['sleep', '43.1']), 30_000, 'the sandboxed sleep');
  cli.type('\u0003');
  await waitFor(() => prompts() === 2, 30_000, 'the prompt after the stopped run');
  cli.type('\u0004');
  expect(await cli.closed).toBe(130);
  expect(cli.shown()).toContain('[run] $ sleep 43.1 → stopped');
});

it('bastion run: Ctrl-C at an approval question stops the run: exit 130, the command said stopped and never run, the session no longer waiting for approval', async () => {
  const { home, workspace } = project();
  const cli = runCliInTerminal([
    'run',
    '--home',
    home,
    '--workspace',
    workspace,
    '--provider',
    'demo',
    '$ touch asked',
  ]);
  await waitFor(() => cli.shown().includes('Allow? [y/N]'), 60_000, 'the approval question');
  cli.type('\u0003');
  expect(await cli.closed).toBe(130);
  expect(cli.shown()).toContain('[run] $ touch asked → stopped');
  expect(cli.shown()).toContain('bastion: run stopped: RUN_ABORTED: the run was stopped while it waited for approval');
  expect(cli.shown()).not.toContain('ABORT_ERR');
  expect(existsSync(join(workspace, 'asked'))).toBe(false);
  const listed = await runCli(['sessions', '--json', '--home', home, '--workspace', workspace]);
  expect(JSON.parse(listed.stdout)).toMatchObject({ approval_pending: false });
});

it('bastion chat: Ctrl-C at an approval question stops that run only; the next prompt runs in the same session', async () => {
  const { home, workspace } = project();
  const cli = runCliInTerminal(['chat', '--home', home, '--workspace', workspace, '--provider', 'demo']);
  const prompts = () => cli.shown().split('bastion> ').length - 1;
  await waitFor(() => prompts() === 1, 60_000, 'the first prompt');
  cli.type('$ touch asked\r');
  await waitFor(() => cli.shown().includes('Allow? [y/N]'), 30_000, 'the approval question');
  cli.type('\u0003');
  await waitFor(() => prompts() === 2, 30_000, 'the prompt after the stopped run');
  expect(cli.shown()).toContain('bastion: run stopped: RUN_ABORTED: the run was stopped while it waited for approval');
  cli.type('ls\r');
  await waitFor(() => prompts() === 3, 30_000, 'the prompt after the next run');
  expect(cli.shown()).toContain('[tool] list_dir → 0 entries');
  cli.type('\u0004');
  expect(await cli.closed).toBe(0);
  expect(cli.shown()).not.toContain('ABORT_ERR');
  expect(existsSync(join(workspace, 'asked'))).toBe(false);
});

it("bastion run: Ctrl-C at the host policy's question refuses the command, and what follows starts on a line of its own", async () => {
  const { home, workspace } = project();
  const rule = await runCli(['policy', 'add', 'ask', '--home', home, '--workspace', workspace, '--', 'touch']);
  expect(rule.code).toBe(0);
  const cli = runCliInTerminal([...demoInAuto('run', home, workspace), '$ touch asked']);
  await waitFor(() => cli.shown().includes("Bastion's policy asks before this runs"), 60_000, 'the host question');
  await waitFor(() => cli.shown().includes('Allow? [y/N]'), 30_000, 'its prompt');
  cli.type('\u0003');
  expect(await cli.closed).toBe(0);
  // readline moves the cursor past the question (ESC [ n G) before anything typed would show.
  const question = 'Allow? [y/N] ';
  const after = cli.shown().slice(cli.shown().indexOf(question) + question.length);
  expect((after.startsWith('\u001b') ? after.slice(1).replace(/^\[\d+G/, '') : after).slice(0, 2)).toMatch(/^\r?\n/);
  expect(cli.shown()).toContain('[run] $ touch asked → refused: COMMAND_POLICY_UNAPPROVED');
  expect(existsSync(join(workspace, 'asked'))).toBe(false);
});
