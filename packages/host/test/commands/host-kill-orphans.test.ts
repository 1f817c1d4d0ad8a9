/**
 * A host killed with SIGKILL while a run_command child runs under srt leaves nothing behind: the
 * group leader is bwrap, spawned by the host directly (the wrap cache's argv), and its
 * --die-with-parent kills it and its sandbox when the host dies (srt's wrap shell, when a wrap
 * keeps it, is spawned under `setpriv --pdeathsig KILL`). Before either, the wrap shell was
 * re-parented to init and the sandboxed `sleep` ran on (measured).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTime } from '@bastion/host/testing';
import { waitFor, makeTempDir } from '@bastion/test-support';
import { processesWith } from './command-harness.js';

/** The sandboxed `sleep` itself (the host's own argv carries the same words, so match argv exactly). */
function sleepProcesses(tag: string): number[] {
  return processesWith(tag).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${tag}\0`;
    } catch {
      return false;
    }
  });
}

const CLI = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url));
/** What a failed test may leave running: each pid with its start time, so a reused pid is never signalled. */
const leftovers: { pid: number; started: string | undefined }[] = [];
const recordLeftovers = (pids: number[]) =>
  leftovers.push(...pids.map((pid) => ({ pid, started: processStartTime(pid) })));

afterEach(() => {
  for (const { pid, started } of leftovers.splice(0)) {
    if (started === undefined || processStartTime(pid) !== started) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone since the check
    }
  }
});

describe('run_command children do not outlive a SIGKILLed host', () => {
  it('the sandboxed command and its sandbox end when the host is killed mid-command', async () => {
    // Removed after the file by the vitest setup, which first sweeps the killed host's temp root.
    const root = makeTempDir();
    mkdirSync(join(root, 'ws'));
    const tag = `${9000 + Math.floor(Math.random() * 900)}.2718`;
    const host = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--workspace',
        join(root, 'ws'),
        '--home',
        join(root, 'home'),
        '--mode',
        'auto',
        '--provider',
        'demo',
        '--json',
        `$ sleep ${tag}`,
      ],
      { stdio: 'ignore' },
    );
    if (host.pid !== undefined) recordLeftovers([host.pid]);
    await waitFor(() => sleepProcesses(tag).length > 0, 60_000, 'the sandboxed sleep to start');
    recordLeftovers(processesWith(tag).filter((pid) => pid !== host.pid));
    // Reaped before the file ends: the setup's sweep leaves the temp root of a host it still sees.
    const exited = new Promise((resolve) => host.once('exit', resolve));
    host.kill('SIGKILL');
    await exited;
    await waitFor(() => processesWith(tag).length === 0, 15_000, 'every process of the command to end');
    expect(processesWith(tag)).toEqual([]);
  }, 90_000);
});
