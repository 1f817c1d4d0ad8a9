/**
 * A sidecar respawn whose program does not exist fails without signalling anything. Node's kill()
 * of a child whose spawn failed (no pid) signals whatever pid the failed handle held: 0 when its
 * memory was fresh, which is kill(0, …), SIGKILL to every process in the host's group (under
 * `bastion start`, the terminal's job; in CI, the whole test run), else a stale pid. The host runs
 * in a process group of its own with a `sleep` beside it; both must come through, and the host
 * must have made no such call at all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { SIDECAR_RESPAWN_MAX_ATTEMPTS } from '@bastion/protocol';
import { isSameProcessRunning, processStartTime } from '@bastion/host/testing';
import { makeTempDir } from '@bastion/test-support';

const HOST = fileURLToPath(new URL('./fixtures/failing-respawn-host.mjs', import.meta.url));

/** The sibling `sleep`, with its start time, so the cleanup never signals a reused pid. */
let sibling: { pid: number; started: string | undefined } | undefined;
/** The host, ended after a test that failed before it exited. */
let running: ChildProcess | undefined;
afterEach(() => {
  if (running?.pid !== undefined && running.exitCode === null && running.signalCode === null) {
    running.kill('SIGKILL');
  }
  running = undefined;
  if (sibling && sibling.started !== undefined && processStartTime(sibling.pid) === sibling.started) {
    process.kill(sibling.pid, 'SIGKILL');
  }
  sibling = undefined;
});

it('a respawn of a missing program fails with SIDECAR_RESPAWN_FAILED and signals no process of the host’s group', async () => {
  const root = makeTempDir();
  mkdirSync(join(root, 'workspace'));
  const host = spawn(process.execPath, [HOST, join(root, 'home'), join(root, 'workspace')], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running = host;
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    host.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines: unknown[] = [];
  createInterface({ input: host.stdout }).on('line', (line) => {
    const parsed = JSON.parse(line) as { sibling?: number };
    if (parsed.sibling !== undefined) sibling = { pid: parsed.sibling, started: processStartTime(parsed.sibling) };
    lines.push(parsed);
  });

  expect(await ended).toEqual({ code: 0, signal: null });
  const beside = sibling;
  if (beside?.started === undefined) throw new Error('the host printed no running sibling');
  expect(isSameProcessRunning(beside.pid, beside.started), 'the sleep beside the host still runs').toBe(true);
  expect(lines.at(-1)).toEqual({
    refused: 'SIDECAR_RESPAWN_FAILED',
    calls: 1 + SIDECAR_RESPAWN_MAX_ATTEMPTS,
    failedAttempts: Array.from({ length: SIDECAR_RESPAWN_MAX_ATTEMPTS }, (_, index) => index + 1),
    pidlessKills: 0,
  });
});
