/**
 * "Always allow" at the CLI's approval prompt, under a real terminal (util-linux `script`) with a
 * scripted loopback model asking for `touch allowed-marker`: `a` shows the exact rule and where it
 * will be saved, `y` saves it and runs the command. The rule is in policy.json (0600) under this
 * workspace's real path only: the host's policy allows the same call there and has no opinion on
 * it in another project.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { quoteArgv, PolicyStore } from '@bastion/host';
import {
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type ScriptedEndpoint,
  makeTempDir,
  waitFor,
} from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

it('`a` then `y` saves an exact-argv-prefix allow rule for this project only, and runs the command', async () => {
  endpoint = await startScriptedEndpoint([
    { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['allowed-marker'] } },
    { kind: 'text', pieces: ['done'] },
  ]);
  const root = makeTempDir();
  const workspace = join(root, 'ws');
  const other = join(root, 'other');
  mkdirSync(workspace);
  mkdirSync(other);
  const home = join(root, 'home');
  const argv = [process.execPath, CLI, 'run', '--home', home, '--workspace', workspace];
  argv.push('--endpoint', endpoint.baseUrl, '--model', SCRIPTED_MODEL, 'make the marker');
  const child = spawn('script', ['-qefc', quoteArgv(argv), '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  await waitFor(() => shown.includes('a: always allow'), 60_000, 'the approval prompt');
  child.stdin.write('a\r');
  await waitFor(() => shown.includes('Save it and allow?'), 20_000, 'the rule to be shown');
  expect(shown).toContain('allow     tools=run_command argv="touch allowed-marker …"');
  expect(shown).toContain(`in ${realpathSync(workspace)}`);
  child.stdin.write('y\r');
  expect(await closed).toBe(0);
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
