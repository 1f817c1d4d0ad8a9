/**
 * Reading, listing and writing inside a workspace (SEC-004), on paths already resolved by
 * resolveContained. Reads are capped; writes are atomic (a temp file in the same
 * directory, fsync, rename) and refuse protected paths, so a failed write leaves the old bytes.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  opendirSync,
  readSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  WORKSPACE_MAX_DIR_ENTRIES,
  WORKSPACE_MAX_READ_BYTES,
  WORKSPACE_MAX_WRITE_BYTES,
  type DirEntry,
} from '@bastion/protocol';
import { assertDescriptorContained, type ContainedPath } from './containment.js';
import { isGitConfiguredPath } from './git-configured-paths.js';
import { isProtectedPath } from './protected-paths.js';
import { fromFsError, workspaceError } from './workspace-error.js';

/** Test seam: runs between the containment check and the open, where a race would strike. */
export interface AccessHooks {
  afterCheck?: () => void;
}

function isSymlinkNow(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Open with O_NOFOLLOW, then prove the descriptor is still inside the root. When `created` is set
 * the open made a new file, which is removed again if the proof fails.
 */
function openChecked(path: ContainedPath, flags: number, options: { mode?: number; created?: boolean } = {}): number {
  let fd: number;
  try {
    fd = openSync(path.real, flags | constants.O_NOFOLLOW, options.mode);
  } catch (error) {
    // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR: report what really happened.
    if (isSymlinkNow(path.real)) throw workspaceError('FS_SYMLINK', error);
    throw fromFsError(error);
  }
  try {
    assertDescriptorContained(fd, path);
  } catch (error) {
    closeSync(fd);
    if (options.created) unlinkQuietly(path.real);
    throw error;
  }
  return fd;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

export interface FileRead {
  content: Buffer;
  size: number;
  truncated: boolean;
}

export function readContainedFile(
  path: ContainedPath,
  maxBytes = WORKSPACE_MAX_READ_BYTES,
  hooks: AccessHooks = {},
): FileRead {
  if (!path.exists) throw workspaceError('FS_NOT_FOUND');
  hooks.afterCheck?.();
  // O_NONBLOCK: opening a FIFO planted in the workspace must not hang the daemon.
  const fd = openChecked(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw workspaceError('FS_NOT_A_FILE');
    const want = Math.min(stats.size, maxBytes);
    const buffer = Buffer.alloc(want);
    let filled = 0;
    while (filled < want) {
      const read = readSync(fd, buffer, filled, want - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { content: buffer.subarray(0, filled), size: stats.size, truncated: stats.size > filled };
  } catch (error) {
    throw fromFsError(error);
  } finally {
    closeSync(fd);
  }
}

function entryKind(entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): DirEntry['kind'] {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

export function listContainedDir(
  path: ContainedPath,
  maxEntries = WORKSPACE_MAX_DIR_ENTRIES,
  hooks: AccessHooks = {},
): { entries: DirEntry[]; truncated: boolean } {
  if (!path.exists) throw workspaceError('FS_NOT_FOUND');
  hooks.afterCheck?.();
  const fd = openChecked(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    // On Linux, list the directory the descriptor holds, not whatever the name points to now.
    let dir;
    try {
      dir = opendirSync(`/proc/self/fd/${fd}`);
    } catch {
      dir = opendirSync(path.real);
    }
    const entries: DirEntry[] = [];
    let truncated = false;
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        if (entries.length === maxEntries) {
          truncated = true;
          break;
        }
        entries.push({ name: entry.name, kind: entryKind(entry) });
      }
    } finally {
      dir.closeSync();
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries, truncated };
  } catch (error) {
    throw fromFsError(error);
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuse a write to a protected path, judged on the path as asked and on its real path: a
 * no-clobber name, or a place git configuration runs or reads (hooks path, include target).
 */
export function assertWritable(path: ContainedPath): void {
  if (isProtectedPath(path.requested) || isProtectedPath(path.relative)) throw workspaceError('FS_PROTECTED');
  if (isGitConfiguredPath(path.root, join(path.root, path.requested), path.real)) throw workspaceError('FS_PROTECTED');
  if (path.relative === '') throw workspaceError('FS_NOT_A_FILE');
}

function assertParentUnchanged(parent: string): void {
  let real: string;
  try {
    real = realpathSync.native(parent);
  } catch (error) {
    throw fromFsError(error);
  }
  if (real !== parent) throw workspaceError('FS_OUTSIDE_WORKSPACE');
}

export function writeContainedFile(
  path: ContainedPath,
  content: Buffer,
  hooks: AccessHooks = {},
): { bytes: number; created: boolean } {
  assertWritable(path);
  if (content.length > WORKSPACE_MAX_WRITE_BYTES) throw workspaceError('FS_TOO_LARGE');
  const parent = dirname(path.real);
  try {
    mkdirSync(parent, { recursive: true, mode: 0o755 });
  } catch (error) {
    throw fromFsError(error);
  }
  assertParentUnchanged(parent);

  let mode = 0o644;
  let created = true;
  try {
    const stats = lstatSync(path.real);
    if (stats.isSymbolicLink()) throw workspaceError('FS_SYMLINK');
    if (!stats.isFile()) throw workspaceError('FS_NOT_A_FILE');
    mode = stats.mode & 0o777;
    created = false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fromFsError(error);
  }
  hooks.afterCheck?.();

  const temp: ContainedPath = {
    ...path,
    real: join(parent, `.${basename(path.real)}.${randomBytes(6).toString('hex')}.bastion-tmp`),
  };
  const fd = openChecked(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, { mode, created: true });
  let renamed = false;
  try {
    try {
      let written = 0;
      while (written < content.length) written += writeSync(fd, content, written, content.length - written);
      fchmodSync(fd, mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    assertParentUnchanged(parent);
    renameSync(temp.real, path.real);
    renamed = true;
  } catch (error) {
    throw fromFsError(error);
  } finally {
    if (!renamed) unlinkQuietly(temp.real);
  }
  return { bytes: content.length, created };
}
