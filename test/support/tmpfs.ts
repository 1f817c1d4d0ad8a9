/**
 * Test support: a real tmpfs mounted on a fresh temporary directory, to make a disk that really
 * fills (ENOSPC) or turns read-only (EROFS). Mounting needs root: suites use `canMount` with
 * describe.skipIf and say so in their title. Call unmount() in afterEach/afterAll. Without root,
 * run vitest inside `unshare -Urm` (a user and mount namespace, where it is uid 0 and may mount
 * a tmpfs that no other process sees).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { makeTempDir } from '@bastion/test-support';

export const canMount = process.getuid?.() === 0;

export interface Tmpfs {
  readonly path: string;
  /** Remount read-only (`ro: true`) or read-write again. */
  remount(options: { ro: boolean }): void;
  unmount(): void;
}

/**
 * Mount a tmpfs of `size` (as mount(8) takes it: `256k`, `16m`) on a new temporary directory;
 * `inodes`: how many files and folders it holds, its root included (more is ENOSPC).
 */
export function mountTmpfs(size: string, options: { inodes?: number } = {}): Tmpfs {
  const path = makeTempDir('bastion-tmpfs-');
  const inodes = options.inodes === undefined ? '' : `,nr_inodes=${options.inodes}`;
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700${inodes}`, 'tmpfs', path]);
  let mounted = true;
  return {
    path,
    remount({ ro }) {
      execFileSync('mount', ['-o', `remount,${ro ? 'ro' : 'rw'}`, path]);
    },
    unmount() {
      if (!mounted) return;
      mounted = false;
      // Lazy: a process the test killed may still hold a file open there for a moment.
      execFileSync('umount', ['-l', path]);
    },
  };
}

/** Append to `path` until the disk refuses even one more byte (ENOSPC). */
export function fillDisk(path: string, flags: 'w' | 'a' = 'w'): void {
  const fd = openSync(path, flags);
  try {
    for (const size of [64 * 1024, 4096, 1]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size, 0x2e));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}
