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
  READ_FILE_SCAN_CHUNK_BYTES,
  UNDO_HASH_CHUNK_BYTES,
  WORKSPACE_MAX_DIR_ENTRIES,
  WORKSPACE_MAX_READ_BYTES,
  WORKSPACE_MAX_SCAN_BYTES,
  type DirEntry,
} from '@bastion/protocol';
import { DaemonError, isDaemonError } from '../errors.js';
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

/**
 * Run `read` on a contained regular file, opened for reading, with its size. O_NONBLOCK: opening
 * a FIFO planted in the workspace must not hang the daemon.
 */
function withContainedFile<T>(path: ContainedPath, hooks: AccessHooks, read: (fd: number, size: number) => T): T {
  if (!path.exists) throw workspaceError('FS_NOT_FOUND');
  hooks.afterCheck?.();
  const fd = openContained(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw workspaceError('FS_NOT_A_FILE');
    return read(fd, stats.size);
  } catch (error) {
    throw isDaemonError(error) ? error : fromFsError(error);
  } finally {
    closeSync(fd);
  }
}

/** Up to `length` bytes of `fd` from `position`. */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, buffer, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

export function readContainedFile(
  path: ContainedPath,
  maxBytes = WORKSPACE_MAX_READ_BYTES,
  hooks: AccessHooks = {},
): FileRead {
  return withContainedFile(path, hooks, (fd, size) => {
    const content = readAt(fd, 0, Math.min(size, maxBytes));
    return { content, size, truncated: size > content.byteLength };
  });
}

export interface LinesRead {
  /** Lines `start`..`end` (from 1, both included), whole: a line is never cut, unless it alone is over `maxBytes`. */
  content: Buffer;
  size: number;
  start: number;
  end: number;
  /** The file's lines, or undefined when it is longer than the scan reaches (they were not all counted). */
  totalLines: number | undefined;
  /** Fewer lines than asked for: `maxBytes`, or the scan's reach, came first. */
  truncated: boolean;
}

/**
 * Lines `start`..`end` (`end` undefined: to the last) of a contained file, from anywhere in its
 * first `scanBytes`: one pass finds where the lines begin and end and counts them, a second reads
 * at most `maxBytes` of them. A final newline ends the last line; it does not start another. A
 * start past the last line is refused with READ_RANGE_PAST_END and the count.
 */
export function readContainedLines(
  path: ContainedPath,
  range: { start: number; end: number | undefined },
  bounds: { maxBytes: number; scanBytes?: number; chunkBytes?: number },
  hooks: AccessHooks = {},
): LinesRead {
  const { start, end } = range;
  const { maxBytes, scanBytes = WORKSPACE_MAX_SCAN_BYTES, chunkBytes = READ_FILE_SCAN_CHUNK_BYTES } = bounds;
  return withContainedFile(path, hooks, (fd, size) => {
    const reach = Math.min(size, scanBytes);
    // Offsets where line `start` begins and just past the newline that ends line `end`.
    let from = start === 1 ? 0 : undefined;
    let to: number | undefined;
    let newlines = 0;
    let scanned = 0;
    let last = -1;
    const chunk = Buffer.alloc(Math.min(chunkBytes, Math.max(reach, 1)));
    while (scanned < reach) {
      const read = readSync(fd, chunk, 0, Math.min(chunk.byteLength, reach - scanned), scanned);
      if (read === 0) break;
      const view = chunk.subarray(0, read);
      for (let at = view.indexOf(10); at !== -1; at = view.indexOf(10, at + 1)) {
        newlines += 1;
        if (newlines === start - 1) from = scanned + at + 1;
        if (newlines === end) to = scanned + at + 1;
      }
      last = view[read - 1] as number;
      scanned += read;
    }
    const whole = scanned === size;
    const counted = newlines + (scanned > 0 && last !== 10 ? 1 : 0);
    if (from === undefined || start > counted) {
      throw new DaemonError(
        'READ_RANGE_PAST_END',
        whole
          ? `start_line ${start} is past the end: the file has ${counted} lines`
          : `start_line ${start} is past the first ${scanBytes / (1024 * 1024)} MiB of the file, as far as read_file reaches (${counted} lines there)`,
      );
    }
    const until = to ?? scanned;
    let content = readAt(fd, from, Math.min(until - from, maxBytes));
    const cut = content.byteLength < until - from;
    if (cut) {
      // Up to the last whole line, when there is one.
      const lastNewline = content.lastIndexOf(10);
      if (lastNewline !== -1) content = content.subarray(0, lastNewline + 1);
    }
    const unfinished = content.byteLength > 0 && content[content.byteLength - 1] !== 10 ? 1 : 0;
    return {
      content,
      size,
      start,
      end: start - 1 + countNewlines(content) + unfinished,
      totalLines: whole ? counted : undefined,
      truncated: cut || (to === undefined && !whole),
    };
  });
}

function countNewlines(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) count += 1;
  return count;
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
