/**
 * SEC-004 (workspace file access, fs-race): the host's half of the file tools. Every write,
 * file removal and empty-directory removal in a granted workspace happens here, on the sidecar's
 * behalf: the sidecar's own view of the workspace is read-only (sidecar-sandbox-policy.ts), so
 * what it cannot do through these checks it cannot do at all. Containment is decided on real
 * paths (the nearest existing ancestor realpath'd, inside the root's real path), protected paths
 * are refused (protected-paths.ts, bare-git-directories.ts, git-configured-paths.ts) on the path
 * as asked and on its real path, and so is what a protected name links to
 * (protected-link-targets.ts), and writes are atomic: a temp file beside the target (O_EXCL,
 * fsync, rename), named in the journal first (temp-file-journal.ts), so a failure leaves the old
 * bytes and a crash nothing. The folders a write made for its file are removed again when it fails
 * (deepest first, each only while empty and still the one it made).
 *
 * The host is not sandboxed: it can write HOME and userData. A sandboxed command can swap any
 * directory of the workspace for a symlink at any moment, so after the check nothing is resolved
 * by path from the root again: on Linux the parent is opened beneath the root one segment at a
 * time, each O_NOFOLLOW through the descriptor of the one before (`/proc/self/fd/<fd>/<name>`),
 * missing segments made inside the verified one, and the result verified through /proc/self/fd;
 * the temp file, the rename and any unlink or rmdir go through that descriptor.
 *
 * What this does not catch: on other platforms (no /proc/self/fd) a parent swapped between the
 * last re-check and the open or rename (the host would follow it); a directory a command moves
 * out of the workspace after the walk verified it (the write lands in that moved directory); hard
 * links to outside files made by someone else; the empty folders a write made when the host died
 * in it (the journal names temp files only).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import {
  WORKSPACE_MAX_READ_BYTES,
  WORKSPACE_MAX_WRITE_BYTES,
  isDiskFullError,
  workspaceCodeOfFsError,
  type WorkspaceWriteErrorCode,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';
import { readRegularFile } from '../regular-file.js';
import { landsInGitDirectory } from './bare-git-directories.js';
import { isGitConfiguredPath } from './git-configured-paths.js';
import { protectedLinkTargetOf, protectedLinkTargets, type ProtectedLinkIndex } from './protected-link-targets.js';
import { isProtectedPath } from './protected-paths.js';
import { tempFileName, type TempFileJournal } from './temp-file-journal.js';

/**
 * Why an FS_PROTECTED refusal was not the path's own name: it is what the protected name
 * `linkedFrom` (relative to the root) links to, or the workspace was too large to look for such
 * links (protected-link-targets.ts).
 */
export type ProtectedDetail = { linkedFrom: string } | { scanIncomplete: true };

/** A refused or failed workspace write; the message is fixed: never a path, never content. */
export class WorkspaceWriteError extends HostError {
  override readonly name = 'WorkspaceWriteError';
  constructor(
    override readonly code: WorkspaceWriteErrorCode,
    options?: { cause?: unknown; detail?: ProtectedDetail },
  ) {
    super(code, 'the workspace write was refused or failed', options);
    this.detail = options?.detail;
  }

  /** For FS_PROTECTED: the link it was refused for, told to the sidecar in `workspace.error`. */
  readonly detail: ProtectedDetail | undefined;
}

const refused = (code: WorkspaceWriteErrorCode, cause?: unknown) =>
  new WorkspaceWriteError(code, cause === undefined ? undefined : { cause });

/** Map a node fs error to the closest workspace code (never exposing the errno's path). */
function fromFsError(error: unknown): WorkspaceWriteError {
  return error instanceof WorkspaceWriteError ? error : refused(workspaceCodeOfFsError(error), error);
}

/** A path inside a granted root, resolved for a write. */
export interface WritablePath {
  /** The workspace root (a real path). */
  readonly root: string;
  /** Real path of the target: realpath of its nearest existing ancestor plus the missing tail. */
  readonly real: string;
  /** `real` relative to `root` ('' for the root itself). */
  readonly relative: string;
  /** The path as asked, normalised lexically against the root, relative to it. */
  readonly requested: string;
  /** The host's protected link targets (protected-link-targets.ts); a fresh scan without one. */
  readonly links?: ProtectedLinkIndex | undefined;
}

/** realpath of the nearest existing ancestor of `absolute`, with the missing tail re-attached. */
export function realpathOfNearest(absolute: string): string {
  const tail: string[] = [];
  for (let current = absolute; ; current = dirname(current)) {
    try {
      const real = realpathSync.native(current);
      return tail.length === 0 ? real : join(real, ...tail);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(current) === current) throw fromFsError(error);
      tail.unshift(basename(current));
    }
  }
}

/**
 * Resolve `requested` (relative to `root`, a real path) and refuse anything whose lexical or real
 * path is outside `root` with FS_OUTSIDE_WORKSPACE.
 */
export function resolveWritable(
  root: string,
  requested: string,
  options: { links?: ProtectedLinkIndex } = {},
): WritablePath {
  if (requested.includes('\0')) throw refused('FS_OUTSIDE_WORKSPACE');
  const lexical = resolve(root, requested);
  if (!isAtOrUnder(lexical, root)) throw refused('FS_OUTSIDE_WORKSPACE');
  const real = realpathOfNearest(lexical);
  if (!isAtOrUnder(real, root)) throw refused('FS_OUTSIDE_WORKSPACE');
  return { root, real, relative: relative(root, real), requested: relative(root, lexical), links: options.links };
}

/**
 * A protected path, judged on the path as asked and on its real path: a no-clobber name, a place
 * in (or making) a git directory of another name (a bare repository), or a place git
 * configuration runs or reads (hooks path, include target).
 */
function isProtected(path: WritablePath): boolean {
  if (isProtectedPath(path.requested) || isProtectedPath(path.relative)) return true;
  if (landsInGitDirectory(path.root, path.requested) || landsInGitDirectory(path.root, path.relative)) return true;
  return isGitConfiguredPath(path.root, join(path.root, path.requested), path.real);
}

/**
 * Why a write or removal at `path` is refused as what a protected name links to, or the scan for
 * those links was incomplete (fail closed); undefined when it is neither.
 */
function linkedProtection(path: WritablePath): ProtectedDetail | undefined {
  const links = path.links?.of(path.root) ?? protectedLinkTargets(path.root);
  if (!links.complete) return { scanIncomplete: true };
  const target = protectedLinkTargetOf(links.targets, path.real);
  return target === undefined ? undefined : { linkedFrom: target.name };
}

/** Refuse a write or removal at a protected path (isProtected(), linkedProtection()): FS_PROTECTED. */
function assertWritable(path: WritablePath): void {
  if (isProtected(path)) throw refused('FS_PROTECTED');
  const detail = linkedProtection(path);
  if (detail !== undefined) throw new WorkspaceWriteError('FS_PROTECTED', { detail });
  if (path.relative === '') throw refused('FS_NOT_A_FILE');
}

/** Linux names an open directory `/proc/self/fd/<fd>`; a path through it resolves from that very directory. */
const BENEATH = process.platform === 'linux' && existsSync('/proc/self/fd');

/** After an open on Linux: the kernel's own record of what `fd` is must lie inside `root`. */
function assertDescriptorInside(fd: number, root: string): void {
  let opened: string;
  try {
    opened = readlinkSync(`/proc/self/fd/${fd}`);
  } catch (error) {
    throw fromFsError(error);
  }
  if (!isAtOrUnder(opened, root)) throw refused('FS_OUTSIDE_WORKSPACE');
}

function isSymlinkNow(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The directory holding a writable path, opened so that nothing swapped in meanwhile can move
 * what follows out of the root. `entry(name)` names `name` inside THAT directory for the kernel,
 * whatever its path says now. Elsewhere than Linux, the real path is re-checked and entries are
 * joined to it.
 */
interface ParentDirectory {
  entry(name: string): string;
  /** Throws FS_OUTSIDE_WORKSPACE unless the directory is still inside the root. */
  assertInside(): void;
  /**
   * Remove the directories this open made (a write that failed leaves none behind), deepest first,
   * each only while it is empty and still the one made: never one that was there before.
   */
  removeMade(): void;
  close(): void;
}

function openSegment(at: string): number {
  try {
    return openSync(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    if (isSymlinkNow(at)) throw refused('FS_OUTSIDE_WORKSPACE', error);
    throw fromFsError(error);
  }
}

function openParent(path: WritablePath, options: { create: boolean }): ParentDirectory {
  if (!BENEATH) {
    const parent = dirname(path.real);
    /** The directories mkdir made, deepest first. */
    const made: string[] = [];
    if (options.create) {
      try {
        const first = mkdirSync(parent, { recursive: true, mode: 0o755 });
        for (let dir = parent; first !== undefined; dir = dirname(dir)) {
          made.push(dir);
          if (dir === first || dirname(dir) === dir) break;
        }
      } catch (error) {
        throw fromFsError(error);
      }
    }
    const assertInside = () => {
      let real: string;
      try {
        real = realpathSync.native(parent);
      } catch (error) {
        throw fromFsError(error);
      }
      if (real !== parent || !isAtOrUnder(real, path.root)) throw refused('FS_OUTSIDE_WORKSPACE');
    };
    const removeMade = () => {
      for (const dir of made) {
        try {
          // By path here: a directory whose path now leads through a link is left.
          if (realpathSync.native(dir) === dir) rmdirSync(dir);
        } catch {
          // It holds something now, or is gone: left as it is.
        }
      }
    };
    try {
      assertInside();
    } catch (error) {
      removeMade();
      throw error;
    }
    return { entry: (name) => join(parent, name), assertInside, removeMade, close: () => undefined };
  }
  let fd = openSegment(path.root);
  /** Each directory the walk made: the descriptor it was made in (open until close), its name and identity. */
  const made: { in: number; name: string; dev: number; ino: number }[] = [];
  const removeMade = () => {
    for (const dir of made.toReversed()) {
      const entry = `/proc/self/fd/${dir.in}/${dir.name}`;
      try {
        const now = lstatSync(entry);
        // rmdir refuses a directory that holds anything, so what was put there meanwhile stays.
        if (now.isDirectory() && now.dev === dir.dev && now.ino === dir.ino) rmdirSync(entry);
      } catch {
        // It holds something now, or is gone: left as it is.
      }
    }
  };
  const closeAll = () => {
    for (const held of new Set([...made.map((dir) => dir.in), fd])) closeSync(held);
  };
  try {
    assertDescriptorInside(fd, path.root);
    for (const segment of path.relative.split(sep).slice(0, -1)) {
      const at = `/proc/self/fd/${fd}/${segment}`;
      let created = false;
      if (options.create) {
        try {
          mkdirSync(at, { mode: 0o755 });
          created = true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw fromFsError(error);
        }
      }
      if (created) {
        // The directory it was made in stays open, to remove it through should the write fail.
        const { dev, ino } = lstatSync(at);
        made.push({ in: fd, name: segment, dev, ino });
      }
      const next = openSegment(at);
      if (!created) closeSync(fd);
      fd = next;
    }
    assertDescriptorInside(fd, path.root);
  } catch (error) {
    removeMade();
    closeAll();
    throw error;
  }
  const held = fd;
  return {
    entry: (name) => `/proc/self/fd/${held}/${name}`,
    assertInside: () => assertDescriptorInside(held, path.root),
    removeMade,
    close: closeAll,
  };
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Refuse unless the file at `entry` is the one the person was shown: `shown` its bytes' sha256,
 * null for no file. Read as the host reads what a command can change (regular-file.ts): a link or
 * a FIFO put in its place, or a file larger than a diff shows, is not it.
 */
function assertAsShown(entry: string, shown: string | null): void {
  const bytes = readRegularFile(entry, WORKSPACE_MAX_READ_BYTES);
  const now =
    bytes !== undefined
      ? createHash('sha256').update(bytes).digest('hex')
      : lstatSync(entry, { throwIfNoEntry: false }) === undefined
        ? null
        : undefined;
  if (now !== shown) throw refused('FS_CHANGED_SINCE_SHOWN');
}

/** Write `content` to `path` atomically; the old bytes stay on any failure. */
export function writeWorkspaceFile(
  path: WritablePath,
  content: Uint8Array,
  options: {
    journal?: TempFileJournal;
    /**
     * The file as the person was shown it when asked about this write (sha256 of its bytes, null
     * for no file): checked just before the rename, so a file changed since is left as it is.
     */
    shownSha256?: string | null;
    /** Test seam: runs between the checks and the walk, where a race would strike. */
    afterCheck?: () => void;
    /** Test seam: runs once the walk has made the missing folders, before the file is written. */
    afterWalk?: () => void;
  } = {},
): { bytes: number; created: boolean } {
  assertWritable(path);
  if (content.byteLength > WORKSPACE_MAX_WRITE_BYTES) throw refused('FS_TOO_LARGE');
  options.afterCheck?.();
  const parent = openParent(path, { create: true });
  try {
    options.afterWalk?.();
    const name = basename(path.real);
    let mode = 0o644;
    let created = true;
    try {
      const stats = lstatSync(parent.entry(name));
      if (stats.isSymbolicLink()) throw refused('FS_SYMLINK');
      if (!stats.isFile()) throw refused('FS_NOT_A_FILE');
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
    try {
      forget = options.journal?.record(path.root, join(dirname(path.relative), tempName), token);
    } catch (error) {
      // The journal is in userData, maybe on another disk than the workspace: say which one is full.
      throw isDiskFullError(error) ? refused('STORAGE_FULL', error) : fromFsError(error);
    }
    let fd: number;
    try {
      fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    } catch (error) {
      forget?.();
      throw fromFsError(error);
    }
    let renamed = false;
    try {
      try {
        if (BENEATH) assertDescriptorInside(fd, path.root);
        let written = 0;
        while (written < content.byteLength) written += writeSync(fd, content, written, content.byteLength - written);
        fchmodSync(fd, mode);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (options.shownSha256 !== undefined) assertAsShown(parent.entry(name), options.shownSha256);
      parent.assertInside();
      renameSync(temp, parent.entry(name));
      renamed = true;
    } catch (error) {
      throw fromFsError(error);
    } finally {
      if (!renamed) unlinkQuietly(temp);
      forget?.();
    }
    return { bytes: content.byteLength, created };
  } catch (error) {
    // The temp file is gone by now: the folders made for this write are left empty, unless
    // something else put a file in one meanwhile.
    parent.removeMade();
    throw error;
  } finally {
    parent.close();
  }
}

/**
 * Remove a regular file (undo of a file a run created, a temp file a crash left), through its
 * verified parent's descriptor: a parent swapped for a symlink is refused, and the name is
 * unlinked in the directory that was checked. Protected paths are refused as for a write.
 */
export function removeWorkspaceFile(path: WritablePath, options: { shownSha256?: string } = {}): void {
  assertWritable(path);
  const parent = openParent(path, { create: false });
  try {
    const entry = parent.entry(basename(path.real));
    const stats = lstatSync(entry);
    if (stats.isSymbolicLink()) throw refused('FS_SYMLINK');
    if (!stats.isFile()) throw refused('FS_NOT_A_FILE');
    if (options.shownSha256 !== undefined) assertAsShown(entry, options.shownSha256);
    parent.assertInside();
    unlinkSync(entry);
  } catch (error) {
    throw fromFsError(error);
  } finally {
    parent.close();
  }
}

/**
 * Remove a directory (undo of one a run's write created) if it is still an empty directory,
 * through its verified parent's descriptor: a symlink or a swapped parent is never followed, a
 * directory holding anything stays (rmdir refuses it), and a protected one (`.git`, one in a bare
 * repository, a hooks path) is refused.
 * False when it was not removed, for whatever reason.
 */
export function removeEmptyWorkspaceDirectory(path: WritablePath): boolean {
  if (path.relative === '' || isProtected(path) || linkedProtection(path) !== undefined) return false;
  let parent: ParentDirectory;
  try {
    parent = openParent(path, { create: false });
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
