/**
 * A sidecar killed inside a write leaves no temp file in the workspace (issue 16 §4): the real
 * host (srt posture) and sidecar, a 768 KiB `/workspaces/write-file`, and the daemon stopped
 * (SIGSTOP) the moment its temp file appears, then SIGKILLed while that file still exists. The
 * respawned sidecar removes exactly that file, and a user's file named like one of ours stays.
 */
import { existsSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_MAX_WRITE_BYTES } from '@bastion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonProcess, waitFor } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const LOOK_ALIKE = '.notes.txt.0123456789ab.bastion-tmp';
const TRIALS = 20;

let host: TempHost;
beforeAll(async () => {
  host = await startTempHost();
  expect(host.capabilities.sandbox).toBe('srt');
});
afterAll(async () => {
  await host?.stop();
});

const temps = () => readdirSync(host.workspace).filter((name) => name.endsWith('.bastion-tmp') && name !== LOOK_ALIKE);

/**
 * Write big.txt and stop the daemon as soon as its temp file appears; if the file still exists
 * once it is stopped, SIGKILL it there and return the file's name, else let it go on.
 */
async function killInsideWrite(): Promise<{ name: string; leftAtKill: string[] } | undefined> {
  const pid = daemonProcess(host.supervisor.current?.pid ?? 0);
  let caught: { name: string; leftAtKill: string[] } | undefined;
  const watcher = watch(host.workspace, (_event, name) => {
    if (caught !== undefined || name === null || !name.endsWith('.bastion-tmp') || name === LOOK_ALIKE) return;
    process.kill(pid, 'SIGSTOP');
    if (existsSync(join(host.workspace, name))) {
      process.kill(pid, 'SIGKILL');
      // Listed at once: the request may resolve only after the respawned sidecar has swept it.
      caught = { name, leftAtKill: temps() };
    } else process.kill(pid, 'SIGCONT');
  });
  try {
    await host.client
      .request('POST', '/workspaces/write-file', {
        root: host.workspace,
        path: 'big.txt',
        content: 'x'.repeat(WORKSPACE_MAX_WRITE_BYTES),
      })
      .catch(() => undefined);
  } finally {
    watcher.close();
  }
  return caught;
}

describe('a sidecar SIGKILLed inside write_file', () => {
  it('leaves its temp file only until the respawned sidecar starts, which removes exactly it and keeps a look-alike user file', async () => {
    writeFileSync(join(host.workspace, LOOK_ALIKE), 'my own notes\n');
    let caught: { name: string; leftAtKill: string[] } | undefined;
    for (let trial = 0; trial < TRIALS && caught === undefined; trial++) caught = await killInsideWrite();
    if (caught === undefined) throw new Error(`no write was caught with its temp file in ${TRIALS} trials`);
    expect(caught.leftAtKill).toEqual([caught.name]);

    const killed = host.supervisor.current?.pid;
    await waitFor(
      () => host.supervisor.current !== undefined && host.supervisor.current.pid !== killed,
      20_000,
      'respawn',
    );
    await host.supervisor.whenReady();
    expect(temps()).toEqual([]);
    expect(readFileSync(join(host.workspace, LOOK_ALIKE), 'utf8')).toBe('my own notes\n');
    // The killed write changed nothing: big.txt is absent or whole from an earlier trial.
    const big = join(host.workspace, 'big.txt');
    if (existsSync(big)) expect(readFileSync(big, 'utf8')).toBe('x'.repeat(WORKSPACE_MAX_WRITE_BYTES));
  });
});
