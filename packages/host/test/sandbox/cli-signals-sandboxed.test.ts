/**
 * `bastion start` (real CLI process) runs the sidecar inside srt by default, and on SIGINT or
 * SIGTERM ends the whole sandboxed tree it started: the wrapper shell, both bwrap processes, the
 * sidecar and the host-side socat bridges (no relay runs inside). Even a SIGKILLed host
 * leaves nothing running. Checked with `ps`.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitFor, makeTempDir } from '@bastion/test-support';
import { clisKilledAfterEachTest } from '../../../../test/support/per-test.js';
import { descendantPids } from '../../src/process-tree.js';
import { commandLine } from './process-tree.js';

const startCli = clisKilledAfterEachTest();

/** Live (non-zombie) processes among `pids`, as `ps` sees them. */
function livePids(pids: number[]): string[] {
  if (pids.length === 0) return [];
  const ps = spawnSync('ps', ['-o', 'pid=,stat=,args=', '-p', pids.join(',')], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^\d+\s+Z/.test(line));
}

interface ReadyLine {
  sandbox: string;
  shell: boolean;
  reason: string | null;
  pid: { host: number; sidecar: number };
}

/** Start the CLI on a temporary HOME, wait for its ready line, and list the tree it started. */
async function startSandboxedCli(): Promise<{ child: ChildProcess; tree: number[] }> {
  const root = makeTempDir('bastion-cli-srt-');
  for (const dir of ['ws', 'home']) mkdirSync(join(root, dir));
  const { child, line } = await startCli(
    ['start', '--json', '--no-open', '--home', join(root, 'data'), '--workspace', join(root, 'ws')],
    { ...process.env, HOME: join(root, 'home') },
  );
  const ready = JSON.parse(line) as ReadyLine;
  expect(ready).toMatchObject({ sandbox: 'srt', shell: true, reason: null });

  const tree = descendantPids(ready.pid.host);
  const lines = tree.map(commandLine);
  expect(lines.filter((l) => l.startsWith('bwrap ')).length).toBeGreaterThanOrEqual(1);
  expect(lines.some((l) => l.startsWith('socat UNIX-LISTEN:'))).toBe(true);
  expect(lines.some((l) => l.endsWith('daemon/dist/main.js'))).toBe(true);
  expect(livePids(tree)).toHaveLength(tree.length);
  return { child, tree };
}

describe('bastion start under srt: signals end the sandboxed tree', { timeout: 60_000 }, () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'on %s, exits 0 and leaves no bwrap, sidecar or socat running',
    async (signal) => {
      const { child, tree } = await startSandboxedCli();
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      expect(await exited).toBe(0);
      await waitFor(() => livePids(tree).length === 0, 10_000, 'the sandboxed tree to end');
      expect(livePids(tree)).toEqual([]);
    },
  );

  it('even when the host is SIGKILLed, no bwrap, sidecar or socat bridge is left (they die with their parents)', async () => {
    const { child, tree } = await startSandboxedCli();
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    await waitFor(() => livePids(tree).length === 0, 15_000, 'the orphaned sandboxed tree to end');
    expect(livePids(tree)).toEqual([]);
  });
});
