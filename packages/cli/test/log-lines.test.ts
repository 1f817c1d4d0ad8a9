/**
 * Without --verbose, a warning the host logs reaches the terminal as one readable sentence, never
 * as its raw JSON record or its event name and fields (both stay in host.log). Real CLI runs: on a
 * userData left loose (the host repairs it and says so), and with a command the host's policy
 * refuses (said once, by the run's own `[run] … refused` line).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { demoInAuto, projectsRemovedAfterEachTest, runCli } from './support/cli-process.js';

const project = projectsRemovedAfterEachTest();

/** A line as the host's log used to tell a record: `event.name (field=value …)`. */
const RAW_RECORD_LINE = /[a-z]+\.[a-z-]+ \([a-z_]+=/;

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));

it('a host warning is one readable sentence on stderr, not a JSON record nor its event and fields; host.log keeps the record', async () => {
  const { home, workspace } = project();
  mkdirSync(home);
  chmodSync(home, 0o755);
  const child = spawn(
    process.execPath,
    [CLI, 'run', '--home', home, '--workspace', workspace, '--provider', 'demo', 'ls'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.resume();
  expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
  expect(stderr).toContain(
    'bastion: warning: the data folder could be read by other users (was 755, group/other bits removed); Bastion made it private again, nothing to do\n',
  );
  expect(stderr).not.toMatch(RAW_RECORD_LINE);
  expect(stderr.split('\n').filter((line) => line.trimStart().startsWith('{'))).toEqual([]);
  const records = readFileSync(join(home, 'logs', 'host.log'), 'utf8')
    .trim()
    .split('\n');
  expect(records.map((line) => (JSON.parse(line) as { event: string }).event)).toContain('userdata.mode-repaired');
});

it("a command the host's policy refuses is said once, by the run's [run] line: no warning repeats it, and the run exits 1 (nobody was there to approve it); host.log keeps command.refused", async () => {
  const { home, workspace } = project();
  const rule = await runCli(['policy', 'add', 'ask', '--home', home, '--workspace', workspace, '--', 'touch']);
  expect(rule.code).toBe(0);
  // No terminal: nobody to ask, so the host refuses the command (COMMAND_POLICY_UNAPPROVED).
  const result = await runCli([...demoInAuto('run', home, workspace), '$ touch asked']);
  expect(result.code).toBe(1);
  expect(result.stdout.split('[run] $ touch asked → refused: COMMAND_POLICY_UNAPPROVED\n')).toHaveLength(2);
  expect(result.stderr).not.toContain('command.refused');
  expect(result.stderr).not.toContain('refused a command');
  expect(result.stderr).not.toMatch(RAW_RECORD_LINE);
  const events = readFileSync(join(home, 'logs', 'host.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { event: string }).event);
  expect(events).toContain('command.refused');
});
