/**
 * Reading, listing and (for undo) hashing inside a workspace (SEC-004), on paths already resolved
 * by resolveContained. Reads are capped. The daemon writes nothing here: its view of the
 * workspace is read-only, and every write, file removal and directory removal is a request the
 * host checks and performs (workspace-writer.ts; host workspaces/workspace-files.ts holds the
 * write half of this discipline).
 *
 * fs-race: the daemon can read userData, and a sandboxed command can swap any directory of the
 * workspace for a symlink at any moment (renameat2 RENAME_EXCHANGE in a loop). So after the
 * check nothing is resolved by path from the root again: on Linux every open goes through the
 * descriptor of a parent directory opened beneath the root segment by segment with O_NOFOLLOW
 * and verified through /proc/self/fd (ParentDirectory below); the opened file itself is verified
 * the same way.
 *
 * What this does not catch: on other platforms (no /proc/self/fd) a parent swapped between the
 * last re-check and the open.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  opendirSync,
  readSync,
  realpathSync,
} from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import {
  UNDO_HASH_CHUNK_BYTES,
  WORKSPACE_MAX_DIR_ENTRIES,
  WORKSPACE_MAX_READ_BYTES,
  type DirEntry,
} from '@bastion/protocol';
import { assertDescriptorContained, type ContainedPath } from './containment.js';
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
 * the kernel, whatever its path says now. Elsewhere, the real path is re-checked and entries are
 * joined to it.
 */
interface ParentDirectory {
  entry(name: string): string;
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

function openParentDirectory(path: ContainedPath): ParentDirectory {
  const segments = path.relative.split(sep).slice(0, -1);
  if (!BENEATH) {
    const parent = dirname(path.real);
    assertParentUnchanged(parent);
    return { entry: (name) => join(parent, name), close: () => undefined };
  }
  let fd = openDirectoryOnTheWay(path.root);
  try {
    assertDescriptorContained(fd, path);
    for (const segment of segments) {
      const next = openDirectoryOnTheWay(`/proc/self/fd/${fd}/${segment}`);
      closeSync(fd);
      fd = next;
    }
    assertDescriptorContained(fd, path);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const held = fd;
  return { entry: (name) => `/proc/self/fd/${held}/${name}`, close: () => closeSync(held) };
}

/** Open a contained path with O_NOFOLLOW, through its verified parent, and prove the descriptor is inside the root. */
function openContained(path: ContainedPath, flags: number): number {
  const parent = path.relative === '' ? undefined : openParentDirectory(path);
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

function assertParentUnchanged(parent: string): void {
  let real: string;
  try {
    real = realpathSync.native(parent);
  } catch (error) {
    throw fromFsError(error);
  }
  if (real !== parent) throw workspaceError('FS_OUTSIDE_WORKSPACE');
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
