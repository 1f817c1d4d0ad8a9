/**
 * An `ask` becomes a denial in a headless `bastion run` (no terminal: standard input is a pipe),
 * even in `auto`: a command the host's policy asks about is refused by the host
 * (COMMAND_POLICY_UNAPPROVED, nobody to ask), and so is a file write the built-in rule asks about
 * (`.github/workflows/**`), which the host performs (POLICY_UNAPPROVED). Neither acts:
 * the marker stays absent, the workflow file is never written. A control command no rule covers
 * runs in the same run, so "refused" is told from "nothing happened"; the run exits 1, as what was
 * asked for was not all done. In accept-edits, where write_file runs unasked, the same built-in ask
 * turns it into a prompt (then denied: no terminal).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PolicyStore } from '@bastion/host';
import { startScriptedEndpoint } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { runCli, scriptedRun } from './support/cli-process.js';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

/** The tool results of a `--json` run, in order. */
function toolResults(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; output?: unknown })
    .filter((event) => event.type === 'tool-result')
    .map((event) => event.output);
}

it('without a terminal, in auto, a host-policy ask on run_command is refused (COMMAND_POLICY_UNAPPROVED) and a file-write ask is refused by the host (POLICY_UNAPPROVED); neither acts, and the run exits 1 saying so on its last line', async () => {
  const endpoint = await startEndpoint([
    { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['asked-marker'] } },
    { kind: 'tool-call', name: 'write_file', input: { path: '.github/workflows/ci.yml', content: 'on: push\n' } },
    { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['control-marker'] } },
    { kind: 'text', pieces: ['done'] },
  ]);
  const { home, workspace, args } = scriptedRun(endpoint);
  mkdirSync(home, { mode: 0o700 });
  new PolicyStore(home).add(
    { kind: 'global' },
    { id: 'ask-marker', decision: 'ask', command: 'touch', argv_prefix: ['asked-marker'] },
  );

  const result = await runCli([...args, '--mode', 'auto', '--json', 'do it']);
  const outputs = toolResults(result.stdout);
  expect(result.code).toBe(1);
  expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
    'bastion: exit 1: the run finished, but 2 tool calls were refused for want of an approval (no terminal to ask)',
  );
  expect(outputs).toEqual([
    expect.objectContaining({ ok: false, code: 'COMMAND_POLICY_UNAPPROVED' }),
    expect.objectContaining({ ok: false, code: 'POLICY_UNAPPROVED' }),
    expect.objectContaining({ exit_code: 0 }),
  ]);
  // The terminal is told which rule held the write back; the command's refusal is its tool result alone.
  expect(result.stderr).toContain(
    'bastion: warning: the host refused a file write the agent asked for (POLICY_UNAPPROVED) by policy rule builtin.ci-workflows-write\n',
  );
  expect(result.stderr).not.toContain('COMMAND_POLICY_UNAPPROVED');
  expect(existsSync(join(workspace, 'asked-marker'))).toBe(false);
  expect(existsSync(join(workspace, '.github', 'workflows', 'ci.yml'))).toBe(false);
  expect(existsSync(join(workspace, 'control-marker'))).toBe(true);
}, 120_000);

it('in accept-edits, where write_file runs unasked, the built-in .github/workflows ask holds it for the host, which refuses it (POLICY_UNAPPROVED: no terminal) and the agent shows no prompt of its own; a control write runs', async () => {
  const endpoint = await startEndpoint([
    { kind: 'tool-call', name: 'write_file', input: { path: '.github/workflows/ci.yml', content: 'on: push\n' } },
    { kind: 'tool-call', name: 'write_file', input: { path: 'notes.txt', content: 'plain\n' } },
    { kind: 'text', pieces: ['done'] },
  ]);
  const { workspace, args } = scriptedRun(endpoint);
  const result = await runCli([...args, '--json', 'do it']);
  const events = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; tool_name?: string });
  expect(events.filter((event) => event.type === 'tool-approval-request')).toEqual([]);
  expect(toolResults(result.stdout)).toEqual([
    expect.objectContaining({ ok: false, code: 'POLICY_UNAPPROVED' }),
    expect.objectContaining({ path: 'notes.txt', created: true }),
  ]);
  expect(existsSync(join(workspace, '.github', 'workflows', 'ci.yml'))).toBe(false);
  expect(existsSync(join(workspace, 'notes.txt'))).toBe(true);
}, 120_000);

it('a write the host asks about prints, before the question, what it would change in the file as it is', async () => {
  const endpoint = await startEndpoint([
    {
      kind: 'tool-call',
      name: 'write_file',
      input: { path: '.github/workflows/ci.yml', content: 'on: push\njobs: {}\n' },
    },
    { kind: 'text', pieces: ['done'] },
  ]);
  const { workspace, args } = scriptedRun(endpoint);
  mkdirSync(join(workspace, '.github', 'workflows'), { recursive: true });
  writeFileSync(join(workspace, '.github', 'workflows', 'ci.yml'), 'on: push\n');
  const result = await runCli([...args, 'do it']);
  expect(result.stdout).toContain(
    '[preview] .github/workflows/ci.yml would change:\n  --- a/.github/workflows/ci.yml\n  +++ b/.github/workflows/ci.yml\n  @@ -1,1 +1,2 @@\n   on: push\n  +jobs: {}\n',
  );
  expect(readFileSync(join(workspace, '.github', 'workflows', 'ci.yml'), 'utf8')).toBe('on: push\n');
}, 120_000);
