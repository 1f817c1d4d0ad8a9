/**
 * "Always allow" at the CLI's approval prompt, under a real terminal (util-linux `script`) with a
 * scripted loopback model asking for `touch allowed-marker`: `a` shows the exact rule and where it
 * will be saved, `y` saves it and runs the command. The rule is in policy.json (0600) under this
 * workspace's real path only: the host's policy allows the same call there and has no opinion on
 * it in another project.
 */
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PolicyStore } from '@bastion/host';
import { startScriptedEndpoint, waitFor } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { runCliInTerminal, scriptedRun } from './support/cli-process.js';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

it('`a` then `y` saves an exact-argv-prefix allow rule for this project only, and runs the command', async () => {
  const endpoint = await startEndpoint([
    { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['allowed-marker'] } },
    { kind: 'text', pieces: ['done'] },
  ]);
  const { root, home, workspace, args } = scriptedRun(endpoint);
  const other = join(root, 'other');
  mkdirSync(other);
  const cli = runCliInTerminal([...args, 'make the marker']);
  await waitFor(() => cli.shown().includes('a: always allow'), 60_000, 'the approval prompt');
  cli.type('a\r');
  await waitFor(() => cli.shown().includes('Save it and allow?'), 20_000, 'the rule to be shown');
  const shown = cli.shown();
  expect(shown).toContain('allow     tools=run_command argv="touch allowed-marker …"');
  expect(shown).toContain(`in ${realpathSync(workspace)}`);
  cli.type('y\r');
  expect(await cli.closed).toBe(0);
  expect(existsSync(join(workspace, 'allowed-marker'))).toBe(true);

  expect(statSync(join(home, 'host', 'policy.json')).mode & 0o777).toBe(0o600);
  const policy = new PolicyStore(home);
  const call = (dir: string) => ({
    tool: 'run_command',
    workspace_root: realpathSync(dir),
    command: { name: 'touch', args: ['allowed-marker'], cwd: realpathSync(dir) },
  });
  expect(policy.evaluate(call(workspace))).toMatchObject({ verdict: 'allow', layer: 'project' });
  expect(policy.evaluate(call(other))).toEqual({ verdict: 'none' });
  expect(policy.listing(null).global).toEqual([]);
});
