/**
 * A respawn that cannot start the sidecar must not hang the host: the supervisor retries on the
 * restart backoff and, after SIDECAR_RESPAWN_MAX_ATTEMPTS failures in a row, every waiter and
 * every later daemon request fails with SIDECAR_RESPAWN_FAILED. Real host, real first sidecar;
 * the launcher then throws. (A launch of a program that does not exist runs in a process group of
 * its own, in faults/failed-spawn-group.test.ts: a regression there would signal the runner's group.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SIDECAR_RESPAWN_MAX_ATTEMPTS } from '@bastion/protocol';
import { plainLauncher, type SidecarLauncher } from '../../src/supervisor/sidecar-launcher.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { isAlive, waitFor } from '@bastion/test-support';

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

/** A launcher whose first `healthy` launches work and whose later ones throw, counting calls. */
function failingLauncher(healthy: number): { launcher: SidecarLauncher; calls: () => number; heal: () => void } {
  let calls = 0;
  let healed = false;
  const launcher: SidecarLauncher = async (entry) => {
    calls += 1;
    if (healed || calls <= healthy) return plainLauncher(entry);
    throw Object.assign(new Error('launcher exploded'), { code: 'TEST_LAUNCHER_FAILED' });
  };
  return { launcher, calls: () => calls, heal: () => (healed = true) };
}

const capabilities = { sandbox: 'none', shell: false, platform: 'linux', reason: 'test launcher' } as const;

function killSidecar(h: TempHost): number {
  const pid = h.supervisor.current?.pid;
  if (pid === undefined) throw new Error('no ready sidecar');
  process.kill(pid, 'SIGKILL');
  return pid;
}

describe('respawn failures (real host and sidecar, a launcher that fails)', () => {
  it('a launcher that keeps failing: requests fail with SIDECAR_RESPAWN_FAILED after the retry limit, no hang', async () => {
    const launch = failingLauncher(1);
    host = await startTempHost({ launcher: launch.launcher, capabilities });
    const old = killSidecar(host);
    await waitFor(() => !isAlive(old), 10_000, 'the old sidecar to exit');
    const request = host.client.request('POST', '/handshake');
    await expect(request).rejects.toMatchObject({ code: 'SIDECAR_RESPAWN_FAILED' });
    expect(launch.calls()).toBe(1 + SIDECAR_RESPAWN_MAX_ATTEMPTS);
    const failures = host.records.filter((record) => record.event === 'sidecar.spawn-failed');
    expect(failures.map((record) => record.fields.attempt)).toEqual(
      Array.from({ length: SIDECAR_RESPAWN_MAX_ATTEMPTS }, (_, index) => index + 1),
    );
    expect(failures[0]?.fields.code).toBe('TEST_LAUNCHER_FAILED');
    expect(host.records.some((record) => record.event === 'sidecar.respawn-gave-up')).toBe(true);
    // Later callers are told at once, and nothing keeps retrying.
    await expect(host.supervisor.whenReady()).rejects.toMatchObject({ code: 'SIDECAR_RESPAWN_FAILED' });
    expect(launch.calls()).toBe(1 + SIDECAR_RESPAWN_MAX_ATTEMPTS);
  });

  it('a launcher that fails twice, then works: the host recovers and serves again with a new password', async () => {
    const launch = failingLauncher(1);
    host = await startTempHost({ launcher: launch.launcher, capabilities });
    const first = host.supervisor.current;
    killSidecar(host);
    await waitFor(
      () => host?.records.filter((record) => record.event === 'sidecar.spawn-failed').length === 2,
      30_000,
      'two failed respawns',
    );
    launch.heal();
    const answered = await host.client.request('POST', '/handshake');
    expect(answered.status).toBe(200);
    expect(host.supervisor.current?.password).not.toBe(first?.password);
  });

  it('restart() (a workspace grant) with a failing launcher rejects with SIDECAR_RESPAWN_FAILED instead of hanging', async () => {
    const launch = failingLauncher(1);
    host = await startTempHost({ launcher: launch.launcher, capabilities });
    await expect(host.supervisor.restart('test')).rejects.toMatchObject({ code: 'SIDECAR_RESPAWN_FAILED' });
    expect(launch.calls()).toBe(1 + SIDECAR_RESPAWN_MAX_ATTEMPTS);
  });
});
