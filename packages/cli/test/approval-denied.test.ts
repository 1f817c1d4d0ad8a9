/**
 * An approval `bastion run` denies for want of a terminal (standard input a pipe): the prompt
 * pauses, is denied and runs on as a second run, and the terminal still shows its instruction
 * files and its tokens once; the ways out it offers are a terminal, the exact `bastion policy add`
 * line (which, run, lets the same command through on the next run) and --mode auto. The run exits
 * 1, its last line saying why. At a terminal the approval is its question alone, and a call
 * denied there is the person's answer: the run exits 0.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SCRIPTED_MODEL, startScriptedEndpoint, waitFor, type Script } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { CLI, runCli, runCliInTerminal, scriptedRun } from './support/cli-process.js';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

const TOUCH_MARKER: Script = [
  { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['marker'] } },
  { kind: 'text', pieces: ['done'] },
];

it('an approval denied for want of a terminal exits 1 saying so on the last line; the waiting line, the instruction files and the tokens print once, and it offers a terminal, the policy rule that then lets the command run, and --mode auto', async () => {
  const first = await startEndpoint(TOUCH_MARKER);
  const { home, workspace, args } = scriptedRun(first);
  writeFileSync(join(workspace, 'AGENTS.md'), 'Be brief.\n');

  const denied = await runCli([...args, 'touch the marker']);
  expect(denied.code).toBe(1);
  expect(denied.stderr.trimEnd().split('\n').at(-1)).toBe(
    'bastion: exit 1: the run finished, but 1 tool call was refused for want of an approval (no terminal to ask)',
  );
  expect(existsSync(join(workspace, 'marker'))).toBe(false);
  // No terminal asks here, so the line that the call waits is what says so.
  expect(denied.stdout.match(/^\[approval\] .*$/gm)).toEqual(['[approval] run_command is waiting for approval']);
  expect(denied.stdout.match(/^\[instructions\] /gm)).toEqual(['[instructions] ']);
  expect(denied.stdout).toContain('[instructions] AGENTS.md\n');
  expect(denied.stderr.match(/^bastion: tokens: /gm)).toEqual(['bastion: tokens: ']);
  const policyAdd = `bastion policy add allow --workspace ${workspace} --home ${home} -- touch marker`;
  expect(denied.stderr).toContain(
    'bastion: denied: no terminal to ask for approval. To allow it:\n' +
      'bastion:   rerun at a terminal and answer y when asked\n' +
      `bastion:   or allow it in this project from now on: ${policyAdd}\n` +
      'bastion:   or rerun with --mode auto, where commands and MCP tools run without asking (inside the sandbox)\n',
  );

  // The offered line, run as printed, lets the same command through, still without a terminal.
  const added = spawnSync(process.execPath, [CLI, ...policyAdd.split(' ').slice(1)], { encoding: 'utf8' });
  expect(added.status).toBe(0);
  const second = await startEndpoint(TOUCH_MARKER);
  const rerun = [
    'run',
    '--home',
    home,
    '--workspace',
    workspace,
    '--endpoint',
    second.baseUrl,
    '--model',
    SCRIPTED_MODEL,
  ];
  const allowed = await runCli([...rerun, 'touch the marker']);
  expect(allowed.code).toBe(0);
  expect(allowed.stderr).not.toContain('approval needed');
  expect(existsSync(join(workspace, 'marker'))).toBe(true);
}, 120_000);

it('at a terminal the approval is asked without a line before it saying it waits; denied there, the run exits 0 with the command not run', async () => {
  const endpoint = await startEndpoint(TOUCH_MARKER);
  const { workspace, args } = scriptedRun(endpoint);
  const cli = runCliInTerminal([...args, 'touch the marker']);
  await waitFor(() => cli.shown().includes('Allow? [y/N]'), 60_000, 'the approval question');
  expect(cli.shown()).toContain('The agent asks to run:\r\n  command: touch marker\r\n');
  cli.type('n\r');
  expect(await cli.closed).toBe(0);
  expect(cli.shown()).not.toContain('waiting for approval');
  expect(cli.shown()).not.toContain('exit 1');
  expect(existsSync(join(workspace, 'marker'))).toBe(false);
}, 120_000);
