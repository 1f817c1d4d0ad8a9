/**
 * The real host (srt posture) keeps its own paths out of the real sidecar's reach: the daemon's
 * process sees userData's `host/` mounted read-only from its first start, and a rule that denies a
 * workspace path to file tools respawns the sidecar under a profile that mounts that path
 * read-only too; removing the rule respawns it again without. A rule change that moves no such deny
 * leaves the running sidecar alone. (What the mounts stop is proved by the misbehaving-sidecar
 * fixture in packages/host/test/sandbox/sidecar-host-denies.test.ts.)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTree } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';

let host: TempHost;

/** The mount points the process sees read-only (from its /proc mountinfo). */
function readOnlyMounts(pid: number): string[] {
  return readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[5]?.split(',').includes('ro'))
    .map((fields) => fields[4] as string);
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

describe('file-tool rules held by the real sidecar sandbox', () => {
  it("the daemon sees userData's host/ read-only from its first start", async () => {
    expect(readOnlyMounts(daemonInside(await sidecarPid()))).toContain(join(host.userData, 'host'));
  });

  it('a rule change that moves no file-tool deny (an allow for `ls`) keeps the running sidecar', async () => {
    const before = await sidecarPid();
    host.policy.add({ kind: 'global' }, { decision: 'allow', command: 'ls' });
    await host.policyChanged();
    expect(await sidecarPid()).toBe(before);
  });

  it('a hard-deny of deploy/** respawns the sidecar with deploy/ read-only; removing it respawns it writable', async () => {
    const deploy = join(host.workspace, 'deploy');
    const first = await sidecarPid();
    expect(readOnlyMounts(daemonInside(first))).not.toContain(deploy);
    const project = { kind: 'project', root: host.workspace } as const;
    const rule = host.policy.add(project, { decision: 'hard-deny', paths: ['deploy/**'] });
    await host.policyChanged();
    const second = await sidecarPid();
    expect(second).not.toBe(first);
    expect(readOnlyMounts(daemonInside(second))).toContain(deploy);
    expect(host.records.some((record) => record.event === 'policy.sandbox-changed')).toBe(true);
    host.policy.remove(project, rule.id);
    await host.policyChanged();
    const third = await sidecarPid();
    expect(third).not.toBe(second);
    expect(readOnlyMounts(daemonInside(third))).not.toContain(deploy);
  });
});
