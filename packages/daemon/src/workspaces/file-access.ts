/**
 * Reading, listing, writing and (for undo) hashing and removing inside a workspace (SEC-004), on
 * paths already resolved by resolveContained. Reads are capped; writes are atomic (a temp file in the same
 * directory, fsync, rename) and refuse protected paths, so a failed write leaves the old bytes;
 * each temp file is journaled first, so one a crash leaves is removed at the next start
 * (temp-file-journal.ts).
 *
 * fs-race: the daemon can read userData, and a sandboxed command can swap any directory of the
 * workspace for a symlink at any moment (renameat2 RENAME_EXCHANGE in a loop). So after the
 * check nothing is resolved by path from the root again: on Linux every open, mkdir, temp file,
 * rename and unlink goes through the descriptor of a parent directory opened beneath the root
 * segment by segment with O_NOFOLLOW and verified through /proc/self/fd (ParentDirectory below);
 * the opened file itself is verified the same way.
 *
 * What this does not catch: on other platforms (no /proc/self/fd) a parent swapped between the
 * last re-check and the open or rename; a directory the command moves out of the workspace (into
 * its own temp dir) after the final check, where a write would land in that moved directory —
 * never in userData, which no command can write.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
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
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import {
  UNDO_HASH_CHUNK_BYTES,
  WORKSPACE_MAX_DIR_ENTRIES,
  WORKSPACE_MAX_READ_BYTES,
  WORKSPACE_MAX_WRITE_BYTES,
  type DirEntry,
} from '@bastion/protocol';
import { assertDescriptorContained, type ContainedPath } from './containment.js';
import { isGitConfiguredPath } from './git-configured-paths.js';
import { isProtectedPath } from './protected-paths.js';
import { tempFileName, type TempFileJournal } from './temp-file-journal.js';
import { fromFsError, workspaceError, WorkspaceError } from './workspace-error.js';

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

/** Linux names an open directory `/proc/self/fd/<fd>`; a path through it resolves from that very directory. */
const BENEATH = process.platform === 'linux' && existsSync('/proc/self/fd');

/**
 * The directory holding a contained path, opened so that nothing swapped in meanwhile can move
 * what follows out of the root (SEC-004, fs-race). On Linux it is opened from the root one segment
 * at a time, each with O_NOFOLLOW through the descriptor of the one before, so a segment that is
 * (or has become) a symlink is refused rather than followed, and the result is verified through
 * /proc/self/fd to lie inside the root. `entry(name)` then names `name` inside THAT directory for
 * the kernel, whatever its path says now. `create` makes missing segments, each inside the
 * verified one before it. Elsewhere, the real path is re-checked and entries are joined to it.
 */
interface ParentDirectory {
  entry(name: string): string;
  /** Throws FS_OUTSIDE_WORKSPACE unless the directory is still inside the root. */
  assertInside(): void;
  close(): void;
}

/** Open a directory on the way to a target; one that is a symlink now is an escape attempt. */
function openDirectoryOnTheWay(at: string): number {
  try {
    return openSync(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    if (isSymlinkNow(at)) throw workspaceError('FS_OUTSIDE_WORKSPACE', error);
    throw fromFsError(error);
  }
}

function openParentDirectory(path: ContainedPath, options: { create: boolean }): ParentDirectory {
  const segments = path.relative.split(sep).slice(0, -1);
  if (!BENEATH) {
    const parent = dirname(path.real);
    if (options.create) {
      try {
        mkdirSync(parent, { recursive: true, mode: 0o755 });
      } catch (error) {
        throw fromFsError(error);
      }
    }
    const assertInside = () => assertParentUnchanged(parent);
    assertInside();
    return { entry: (name) => join(parent, name), assertInside, close: () => undefined };
  }
  let fd = openDirectoryOnTheWay(path.root);
  try {
    assertDescriptorContained(fd, path);
    for (const segment of segments) {
      const at = `/proc/self/fd/${fd}/${segment}`;
      if (options.create) {
        try {
          mkdirSync(at, { mode: 0o755 });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw fromFsError(error);
        }
      }
      const next = openDirectoryOnTheWay(at);
      closeSync(fd);
      fd = next;
    }
    assertDescriptorContained(fd, path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const held = fd;
  return {
    entry: (name) => `/proc/self/fd/${held}/${name}`,
    assertInside: () => assertDescriptorContained(held, path),
    close: () => closeSync(held),
  };
}

/** Open a contained path with O_NOFOLLOW, through its verified parent, and prove the descriptor is inside the root. */
function openContained(path: ContainedPath, flags: number): number {
  const parent = path.relative === '' ? undefined : openParentDirectory(path, { create: false });
  const at = parent === undefined ? path.root : parent.entry(basename(path.real));
  try {
    let fd: number;
    try {
      fd = openSync(at, flags | constants.O_NOFOLLOW);
    } catch (error) {
      // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR: report what really happened.
      if (isSymlinkNow(at)) throw workspaceError('FS_SYMLINK', error);
      throw fromFsError(error);
    }
    try {
      assertDescriptorContained(fd, path);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return fd;
  } finally {
    parent?.close();
  }
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
  const fd = openContained(path, constants.O_RDONLY | constants.O_NONBLOCK);
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
  const fd = openContained(path, constants.O_RDONLY | constants.O_DIRECTORY);
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
  options: AccessHooks & { journal?: TempFileJournal } = {},
): { bytes: number; created: boolean } {
  assertWritable(path);
  if (content.length > WORKSPACE_MAX_WRITE_BYTES) throw workspaceError('FS_TOO_LARGE');
  options.afterCheck?.();
  const parent = openParentDirectory(path, { create: true });
  try {
    const name = basename(path.real);
    let mode = 0o644;
    let created = true;
    try {
      const stats = lstatSync(parent.entry(name));
      if (stats.isSymbolicLink()) throw workspaceError('FS_SYMLINK');
      if (!stats.isFile()) throw workspaceError('FS_NOT_A_FILE');
      mode = stats.mode & 0o777;
      created = false;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fromFsError(error);
    }

    const token = randomBytes(6).toString('hex');
    const tempName = tempFileName(name, token);
    const temp = parent.entry(tempName);
    // Named in the journal before it exists, so a crash from here on leaves nothing unaccounted for.
    let forget: (() => void) | undefined;
    let fd: number;
    try {
      forget = options.journal?.record(path.root, join(dirname(path.relative), tempName), token);
      fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    } catch (error) {
      forget?.();
      throw fromFsError(error);
    }
    let renamed = false;
    try {
      try {
        assertDescriptorContained(fd, path);
        let written = 0;
        while (written < content.length) written += writeSync(fd, content, written, content.length - written);
        fchmodSync(fd, mode);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      parent.assertInside();
      renameSync(temp, parent.entry(name));
      renamed = true;
    } catch (error) {
      throw fromFsError(error);
    } finally {
      if (!renamed) unlinkQuietly(temp);
      forget?.();
    }
    return { bytes: content.length, created };
  } finally {
    parent.close();
  }
}

/** What a file holds, as undo compares it: its size and SHA-256 (null beyond the hashing bound). */
export interface FileFingerprint {
  size: number;
  sha256: string | null;
}

export function fingerprintOf(content: Buffer): { size: number; sha256: string } {
  return { size: content.length, sha256: createHash('sha256').update(content).digest('hex') };
}

/**
 * What a contained file holds now, read through the same descriptor walk as every other access
 * (a file swapped for a symlink or moved out of the root is refused, never followed); 'absent'
 * when nothing is there. A file over `maxHashBytes` is sized but not hashed.
 */
export function fingerprintContainedFile(path: ContainedPath, maxHashBytes: number): FileFingerprint | 'absent' {
  let fd: number;
  try {
    fd = openContained(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'FS_NOT_FOUND') return 'absent';
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw workspaceError('FS_NOT_A_FILE');
    if (stats.size > maxHashBytes) return { size: stats.size, sha256: null };
    const hash = createHash('sha256');
    const chunk = Buffer.alloc(UNDO_HASH_CHUNK_BYTES);
    let size = 0;
    for (
      let read = readSync(fd, chunk, 0, chunk.length, size);
      read > 0;
      read = readSync(fd, chunk, 0, chunk.length, size)
    ) {
      hash.update(chunk.subarray(0, read));
      size += read;
    }
    return { size, sha256: hash.digest('hex') };
  } catch (error) {
    throw fromFsError(error);
  } finally {
    closeSync(fd);
  }
}

/**
 * Remove a regular file (undo of a file a run created), through its verified parent directory's
 * descriptor: a parent swapped for a symlink is refused, and the name is unlinked in the directory
 * that was checked, whatever its path says now. Protected paths are refused as for a write.
 */
export function removeContainedFile(path: ContainedPath): void {
  assertWritable(path);
  const parent = openParentDirectory(path, { create: false });
  try {
    const entry = parent.entry(basename(path.real));
    const stats = lstatSync(entry);
    if (stats.isSymbolicLink()) throw workspaceError('FS_SYMLINK');
    if (!stats.isFile()) throw workspaceError('FS_NOT_A_FILE');
    parent.assertInside();
    unlinkSync(entry);
  } catch (error) {
    throw fromFsError(error);
  } finally {
    parent.close();
  }
}

/**
 * The directories on the way to a file that do not exist yet, relative to the root, outermost
 * first: what a write of it would create (undo keeps the list so it can remove them again).
 */
export function missingDirectories(path: ContainedPath): string[] {
  const segments = path.relative.split(sep).slice(0, -1);
  const missing: string[] = [];
  for (let i = 1; i <= segments.length; i += 1) {
    const relative = segments.slice(0, i).join(sep);
    if (missing.length > 0 || !existsSync(join(path.root, relative))) missing.push(relative);
  }
  return missing;
}

/**
 * Remove a directory (undo of one a run created) if it is still an empty directory, through its
 * verified parent's descriptor: a symlink or a swapped parent is never followed, and a directory
 * holding anything stays (rmdir refuses it). False when it was not removed, for whatever reason.
 */
export function removeEmptyContainedDirectory(path: ContainedPath): boolean {
  if (path.relative === '') return false;
  let parent: ParentDirectory;
  try {
    parent = openParentDirectory(path, { create: false });
  } catch {
    return false;
  }
  try {
    const entry = parent.entry(basename(path.real));
    if (!lstatSync(entry).isDirectory()) return false;
    parent.assertInside();
    rmdirSync(entry);
    return true;
  } catch {
    return false;
  } finally {
    parent.close();
  }
}
