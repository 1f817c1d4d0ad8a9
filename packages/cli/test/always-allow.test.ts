/**
 * "Always allow" at the CLI's prompts, under a real terminal (util-linux `script`) with a scripted
 * loopback model: at the agent's approval prompt and at the host's own prompt (a command the
 * host's policy asks about), `a` shows the exact rule and where it will be saved, `y` saves it and
 * runs the command. The rule is in policy.json (0600) under this workspace's real path only: the
 * host's policy allows the same call there and still decides as before in another project.
 */
import { existsSync, mkdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PolicyStore } from '@bastion/host';
import { startScriptedEndpoint, waitFor } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { runCliInTerminal, scriptedRun } from './support/cli-process.js';

/** What the confirmation says a saved command rule lets through beyond the call asked about. */
const SCOPE = '(any further arguments after these exact first ones are allowed too)';

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

/** `touch <marker>` run in `dir`, as the host's policy sees it. */
function touchIn(dir: string, marker: string) {
  const real = realpathSync(dir);
  return { tool: 'run_command', workspace_root: real, command: { name: 'touch', args: [marker], cwd: real } };
}

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
  expect(shown).toContain(SCOPE);
  expect(shown).toContain(`in ${realpathSync(workspace)}`);
  cli.type('y\r');
  expect(await cli.closed).toBe(0);
  expect(existsSync(join(workspace, 'allowed-marker'))).toBe(true);

  expect(statSync(join(home, 'host', 'policy.json')).mode & 0o777).toBe(0o600);
  const policy = new PolicyStore(home);
  const call = (dir: string) => touchIn(dir, 'allowed-marker');
  expect(policy.evaluate(call(workspace))).toMatchObject({ verdict: 'allow', layer: 'project' });
  expect(policy.evaluate(call(other))).toEqual({ verdict: 'none' });
  expect(policy.listing(null).global).toEqual([]);
});

it('at the host’s own prompt, `a` then `y` saves the host’s exact-argv-prefix rule for this project; the next identical command runs unasked', async () => {
  const touch = { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['host-marker'] } } as const;
  const endpoint = await startEndpoint([
    touch,
    { kind: 'text', pieces: ['done'] },
    touch,
    { kind: 'text', pieces: ['again'] },
  ]);
  const { root, home, workspace, args } = scriptedRun(endpoint);
  const other = join(root, 'other');
  mkdirSync(other);
  mkdirSync(home, { mode: 0o700 });
  // The host's policy asks about this command everywhere (a global rule): the host asks, not the agent.
  new PolicyStore(home).add({ kind: 'global' }, { id: 'ask-host-marker', decision: 'ask', command: 'touch' });

  const first = runCliInTerminal([...args, 'make the marker']);
  await waitFor(() => first.shown().includes('a: always allow'), 60_000, 'the host’s prompt');
  expect(first.shown()).toContain("Bastion's policy asks before this runs:");
  expect(first.shown()).toContain('rule:    ask-host-marker');
  expect(existsSync(join(workspace, 'host-marker'))).toBe(false);
  first.type('a\r');
  await waitFor(() => first.shown().includes('Save it and allow?'), 20_000, 'the rule to be shown');
  expect(first.shown()).toContain('allow     tools=run_command argv="touch host-marker …"');
  expect(first.shown()).toContain(SCOPE);
  expect(first.shown()).toContain(`in ${realpathSync(workspace)}`);
  first.type('y\r');
  expect(await first.closed).toBe(0);
  expect(first.shown()).toMatch(/saved rule-[0-9a-f]+; remove it with bastion policy remove rule-/);
  expect(existsSync(join(workspace, 'host-marker'))).toBe(true);

  expect(statSync(join(home, 'host', 'policy.json')).mode & 0o777).toBe(0o600);
  const policy = new PolicyStore(home);
  expect(policy.listing(realpathSync(workspace)).project?.rules).toEqual([
    expect.objectContaining({
      decision: 'allow',
      tools: ['run_command'],
      command: 'touch',
      argv_prefix: ['host-marker'],
    }),
  ]);
  expect(policy.evaluate(touchIn(other, 'host-marker'))).toMatchObject({ verdict: 'ask', rule_id: 'ask-host-marker' });
  expect(policy.listing(null).global.map((rule) => rule.id)).toEqual(['ask-host-marker']);

  // The same command again in this project: nobody is asked (nothing is typed) and it runs.
  rmSync(join(workspace, 'host-marker'));
  const second = runCliInTerminal([...args, 'make it again']);
  expect(await second.closed).toBe(0);
  expect(second.shown()).not.toContain('Allow?');
  expect(existsSync(join(workspace, 'host-marker'))).toBe(true);
}, 120_000);

it('a program with no arguments (`env`, which runs any other) is not offered "always allow": `a` is a no, nothing is saved', async () => {
  const endpoint = await startEndpoint([
    { kind: 'tool-call', name: 'run_command', input: { command: 'env', args: [] } },
    { kind: 'text', pieces: ['done'] },
  ]);
  const { home, workspace, args } = scriptedRun(endpoint);
  const cli = runCliInTerminal([...args, 'show the environment']);
  await waitFor(() => cli.shown().includes('Allow? [y/N]'), 60_000, 'the approval prompt');
  expect(cli.shown()).toContain('command: env');
  expect(cli.shown()).not.toContain('always allow');
  cli.type('a\r');
  await cli.closed;
  expect(cli.shown()).not.toContain('Save it and allow?');
  expect(new PolicyStore(home).listing(realpathSync(workspace)).project?.rules ?? []).toEqual([]);
  const env = { tool: 'run_command', workspace_root: realpathSync(workspace) };
  const call = { ...env, command: { name: 'env', args: ['sh', '-c', 'touch pwned'], cwd: realpathSync(workspace) } };
  expect(new PolicyStore(home).evaluate(call)).toEqual({ verdict: 'none' });
  expect(existsSync(join(workspace, 'pwned'))).toBe(false);
}, 120_000);
