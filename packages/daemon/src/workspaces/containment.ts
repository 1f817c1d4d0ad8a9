/**
 * Path containment for workspace file access (SEC-004; the spec's realpathNearest discipline).
 * A requested path is resolved against a granted root, then its nearest existing ancestor is
 * resolved with realpath, and the result must sit inside the root's real path. Containment is
 * decided on real paths, never by string prefix of what was asked. Opens use O_NOFOLLOW and are
 * verified again after the open through the descriptor itself (/proc/self/fd on Linux), so a
 * symlink swapped in between the check and the open is caught.
 *
 * What this does not catch: hard links to outside files created by someone else. Races on the
 * directories above the target are file-access.ts's (it opens beneath the root through
 * descriptors).
 */
import { fstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fromFsError, workspaceError } from './workspace-error.js';

export interface ContainedPath {
  /** The workspace root (a real path). */
  readonly root: string;
  /** Real path of the target: realpath of its nearest existing ancestor plus the missing tail. */
  readonly real: string;
  /** `real` relative to `root` ('' for the root itself). */
  readonly relative: string;
  /** The path as asked, normalised lexically against the root, relative to it. */
  readonly requested: string;
  /** Whether the target existed when it was resolved. */
  readonly exists: boolean;
}

export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const rel = relative(root, candidate);
  return rel.length > 0 && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** realpath of the nearest existing ancestor of `absolute`, with the missing tail re-attached. */
export function realpathNearest(absolute: string): { real: string; exists: boolean } {
  const tail: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return { real: tail.length === 0 ? real : join(real, ...tail), exists: tail.length === 0 };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fromFsError(error);
      const parent = dirname(current);
      if (parent === current) throw fromFsError(error);
      tail.unshift(basename(current));
      current = parent;
    }
  }
}

/**
 * Resolve `requested` (relative to `root`, or absolute) and refuse anything whose real path is
 * outside `root` with FS_OUTSIDE_WORKSPACE. `root` must already be a real path.
 */
export function resolveContained(root: string, requested: string): ContainedPath {
  if (requested.includes('\0')) throw workspaceError('FS_OUTSIDE_WORKSPACE');
  const lexical = resolve(root, requested);
  if (!isInside(root, lexical)) throw workspaceError('FS_OUTSIDE_WORKSPACE');
  const { real, exists } = realpathNearest(lexical);
  if (!isInside(root, real)) throw workspaceError('FS_OUTSIDE_WORKSPACE');
  return { root, real, relative: relative(root, real), requested: relative(root, lexical), exists };
}

/** Where the kernel says an open descriptor points, when the platform can tell (Linux). */
function descriptorPath(fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * After an open: the descriptor must still be the contained path. On Linux the kernel's own
 * record of the opened file is compared; elsewhere the real path is resolved again and its inode
 * compared with the descriptor's.
 */
export function assertDescriptorContained(fd: number, path: ContainedPath): void {
  const opened = descriptorPath(fd);
  if (opened !== undefined) {
    if (!isInside(path.root, opened)) throw workspaceError('FS_OUTSIDE_WORKSPACE');
    return;
  }
  try {
    const again = realpathSync.native(path.real);
    const byPath = statSync(again);
    const byDescriptor = fstatSync(fd);
    if (isInside(path.root, again) && byPath.dev === byDescriptor.dev && byPath.ino === byDescriptor.ino) return;
  } catch (error) {
    throw fromFsError(error);
  }
  throw workspaceError('FS_OUTSIDE_WORKSPACE');
}
