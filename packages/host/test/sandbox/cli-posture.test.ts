/**
 * `bastion start` (real CLI process) with bubblewrap hidden from PATH: the ready line says
 * `sandbox: none`, shell withheld, with the reason; stderr says how to install what is missing.
 * With --unsandboxed-shell the shell comes back and stderr carries the warning.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor, makeTempDir } from '@bastion/test-support';
import { clisKilledAfterEachTest } from '../../../../test/support/per-test.js';

const startCli = clisKilledAfterEachTest();

async function startWithoutBubblewrap(
  extra: string[],
): Promise<{ ready: Record<string, unknown>; stderr: () => string }> {
  const root = makeTempDir('bastion-cli-posture-');
  for (const dir of ['ws', 'bin']) mkdirSync(join(root, dir));
  for (const tool of ['socat', 'rg', 'which', 'sh']) symlinkSync(`/usr/bin/${tool}`, join(root, 'bin', tool));
  const { line, stderr } = await startCli(
    ['start', '--json', '--no-open', '--home', join(root, 'data'), '--workspace', join(root, 'ws'), ...extra],
    { ...process.env, PATH: join(root, 'bin') },
  );
  return { ready: JSON.parse(line) as Record<string, unknown>, stderr };
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
