/**
 * The command's process group is signalled only while it can still be the command's: once the
 * leader is reaped and its group is empty, Linux may hand the same pid to another process, and a
 * group kill then would take that process's whole group (an editor, a terminal). Real processes;
 * the reused pid is produced on purpose through /proc/sys/kernel/ns_last_pid (root only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '@bastion/test-support';
import { processStartTime } from '../process-tree.js';
import { startCommandProcess } from './command-process.js';

const LAST_PID = '/proc/sys/kernel/ns_last_pid';
const canPlacePids = (() => {
  try {
    accessSync(LAST_PID, constants.W_OK);
    return true;
  } catch {
    return false;
  }
})();

let decoy: ChildProcess | undefined;
afterEach(() => {
  if (decoy?.pid !== undefined && decoy.exitCode === null && decoy.signalCode === null) decoy.kill('SIGKILL');
  decoy = undefined;
});

/** A detached `sleep` (a group leader of its own) at exactly `pid`, or undefined when another process took it first. */
function leaderAt(pid: number): ChildProcess | undefined {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    writeFileSync(LAST_PID, String(pid - 1));
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    if (child.pid === pid) return child;
    // A spawn that failed has no pid, and its kill() could signal this runner's own group.
    if (child.pid !== undefined) child.kill('SIGKILL');
  }
  return undefined;
}

describe('command process: the group kill', () => {
  it.runIf(canPlacePids)(
    "never signals a process that got the reaped leader's pid: a new group leader there lives on after the command ends",
    async () => {
      // Another process may take the freed pid first on a busy machine; a few fresh commands give
      // the test a pid it can place its decoy at.
      let command: ReturnType<typeof startCommandProcess> | undefined;
      let leader = 0;
      for (let attempt = 0; attempt < 5 && decoy === undefined; attempt += 1) {
        let out = '';
        // The leader prints its pid and exits at once; a setsid child keeps the pipes open, so the
        // command's end (and its group kill) comes a second later, with the leader's group empty.
        command = startCommandProcess(
          { command: 'sh', args: ['-c', 'echo $$; setsid sleep 1 & exit 0'], env: process.env, cwd: '/' },
          { timeoutMs: 30_000, onOutput: (_stream, chunk) => (out += chunk.toString()) },
        );
        await waitFor(() => /^\d+\n/.test(out));
        leader = Number(out.split('\n')[0]);
        await waitFor(() => processStartTime(leader) === undefined);
        decoy = leaderAt(leader);
        if (decoy === undefined) await command.done;
      }
      expect(
        decoy,
        `each freed leader pid was taken by another process before the test could place its own`,
      ).toBeDefined();
      if (command === undefined) throw new Error('no command was started');
      const decoyStarted = processStartTime(leader);
      await command.done;
      // A SIGKILL sent to its group would have ended it by now, or within this grace (an exit event).
      const exited = decoy ? once(decoy, 'exit').then(() => true) : Promise.resolve(true);
      expect(await Promise.race([exited, delay(1000).then(() => false)])).toBe(false);
      expect(processStartTime(leader)).toBe(decoyStarted);
    },
  );
});
