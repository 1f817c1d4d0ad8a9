/**
 * `bastion start` (real CLI process) with bubblewrap hidden from PATH: the ready line says
 * `sandbox: none`, shell withheld, with the reason; stderr says how to install what is missing.
 * With --unsandboxed-shell the shell comes back and stderr carries the warning.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor, makeTempDir } from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));

const started: ChildProcess[] = [];
const roots: string[] = [];
afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function startWithoutBubblewrap(
  extra: string[],
): Promise<{ ready: Record<string, unknown>; stderr: () => string }> {
  const root = makeTempDir('bastion-cli-posture-');
  roots.push(root);
  for (const dir of ['ws', 'bin']) mkdirSync(join(root, dir));
  for (const tool of ['socat', 'rg', 'which', 'sh']) symlinkSync(`/usr/bin/${tool}`, join(root, 'bin', tool));
  const args = [
    CLI,
    'start',
    '--json',
    '--no-open',
    '--home',
    join(root, 'data'),
    '--workspace',
    join(root, 'ws'),
    ...extra,
  ];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: join(root, 'bin') },
  });
  started.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error(`exited before ready: ${stderr}`)));
  });
  return { ready: JSON.parse(line) as Record<string, unknown>, stderr: () => stderr };
}

describe('bastion start without bubblewrap', { timeout: 60_000 }, () => {
  it('fails closed: ready line sandbox none, shell false, the reason; stderr names the install command', async () => {
    const { ready, stderr } = await startWithoutBubblewrap([]);
    expect(ready).toMatchObject({ event: 'ready', sandbox: 'none', shell: false });
    expect(ready.reason).toEqual(expect.stringContaining('missing bubblewrap'));
    // stderr and stdout are separate pipes: wait for the notice rather than assume its order.
    await waitFor(() => stderr().includes('or accept the risk with --unsandboxed-shell'), 10_000, 'the notice');
    expect(stderr()).toContain('apt-get install -y bubblewrap');
  });

  it('with --unsandboxed-shell: the shell, unsandboxed, and a loud warning on stderr', async () => {
    const { ready, stderr } = await startWithoutBubblewrap(['--unsandboxed-shell']);
    expect(ready).toMatchObject({ sandbox: 'none', shell: true });
    expect(ready.reason).toEqual(expect.stringMatching(/^--unsandboxed-shell/));
    await waitFor(() => stderr().includes('WARNING: --unsandboxed-shell'), 10_000, 'the warning');
  });
});
