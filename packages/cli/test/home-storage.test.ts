/**
 * `bastion start` on a home that cannot take writes, as real CLI processes: on a real tmpfs filled
 * to ENOSPC or remounted read-only, or a folder the user cannot write. Each start exits 1 with one
 * line naming the home and the problem: no stack trace, no fs error from deeper down, nothing written.
 * Mounting needs root; elsewhere the suite is skipped, saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { canMount, fillDisk, mountTmpfs, type Tmpfs } from '../../../test/support/tmpfs.js';
import { makeTempDir } from '@bastion/test-support';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const children: ChildProcess[] = [];

/** `bastion start` on `home`; `as: 'nobody'` runs it as that user (through setpriv, as root can). */
function start(home: string, as?: 'nobody'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const workspace = makeTempDir();
  chmodSync(workspace, 0o755);
  const argv = [process.execPath, CLI, 'start', '--no-open', '--home', home, '--workspace', workspace];
  const command = as ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...argv] : argv;
  const child = spawn(command[0] ?? '', command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(!canMount)(
  'start on a full or read-only home (skipped unless root: mounting a tmpfs needs root)',
  () => {
    let disk: Tmpfs | undefined;
    afterEach(() => {
      // A start that did not refuse is still running: end it (only the ones this file started).
      for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
      disk?.unmount();
      disk = undefined;
    });

    it('a new home on a full disk: exit 1, one line "STORAGE_FULL: <home>: the disk is full", no stack trace', async () => {
      disk = mountTmpfs('1m');
      fillDisk(join(disk.path, 'filler'));
      const home = join(disk.path, 'home');
      const started = await start(home);
      expect(started.code).toBe(1);
      expect(started.stderr.trim().split('\n')).toEqual([
        `bastion: STORAGE_FULL: ${home}: the disk is full (0 KiB free, Bastion needs 4.0 MiB): free some space, or start with --home on another disk`,
      ]);
      expect(started.stdout).toBe('');
      // Only the home directory itself was made: no lock, no log.
      expect(readdirSync(home)).toEqual([]);
    });

    it('an existing home on a disk with too little room left: exit 1 with the same one line', async () => {
      disk = mountTmpfs('3m');
      const home = join(disk.path, 'home');
      mkdirSync(home, { mode: 0o700 });
      writeFileSync(join(home, 'endpoints.json'), '{"endpoints":[]}', { mode: 0o600 });
      const started = await start(home);
      expect(started.code).toBe(1);
      expect(started.stderr).toMatch(
        new RegExp(
          `^bastion: STORAGE_FULL: ${home}: the disk is full \\([\\d.]+ [KM]iB free, Bastion needs 4\\.0 MiB\\)`,
        ),
      );
      expect(started.stderr.trim().split('\n')).toHaveLength(1);
      expect(readdirSync(home)).toEqual(['endpoints.json']);
    });

    it('a home on a read-only file system: exit 1, one line "STORAGE_READ_ONLY: <home> is on a read-only file system (EROFS)"', async () => {
      disk = mountTmpfs('16m');
      const home = join(disk.path, 'home');
      mkdirSync(home, { mode: 0o700 });
      disk.remount({ ro: true });
      const started = await start(home);
      expect(started.code).toBe(1);
      expect(started.stderr.trim().split('\n')).toEqual([
        `bastion: STORAGE_READ_ONLY: ${home} is on a read-only file system (EROFS): remount it read-write, or start with --home on a writable disk`,
      ]);
      expect(readdirSync(home)).toEqual([]);
    });

    it('a missing home under a read-only file system: exit 1 with STORAGE_READ_ONLY, not ENOENT', async () => {
      disk = mountTmpfs('16m');
      disk.remount({ ro: true });
      const home = join(disk.path, 'home');
      const started = await start(home);
      expect(started.code).toBe(1);
      expect(started.stderr.trim().split('\n')).toEqual([
        `bastion: STORAGE_READ_ONLY: ${home} is on a read-only file system (EROFS): remount it read-write, or start with --home on a writable disk`,
      ]);
    });

    it('a home this user cannot write (another user\'s 0755 folder): exit 1, one line "STORAGE_NOT_WRITABLE: <home> is not writable by this user (EACCES)"', async () => {
      const base = makeTempDir();
      chmodSync(base, 0o755);
      const home = join(base, 'home');
      mkdirSync(home, { mode: 0o755 });
      const started = await start(home, 'nobody');
      expect(started.code).toBe(1);
      expect(started.stderr.trim().split('\n')).toEqual([
        `bastion: STORAGE_NOT_WRITABLE: ${home} is not writable by this user (EACCES): fix its owner or permissions, or start with --home elsewhere`,
      ]);
      expect(readdirSync(home)).toEqual([]);
    });
  },
);
