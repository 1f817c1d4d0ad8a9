/**
 * SEC-004 (workspace file access, git-escape): git takes any directory holding a valid `HEAD`,
 * `objects/` and `refs/` (or a `commondir` naming where they are) for a git directory of its own
 * before it looks for the parent's `.git`, and, with `safe.bareRepository` at its default, runs
 * what that directory's `config` says (`core.fsmonitor`, hooks, with `core.worktree` reaching back
 * into the workspace) on the user's next `git status` there, outside the sandbox. The file tools
 * must not be able to build one, nor write inside one, whatever it is named: so the host refuses
 * (FS_PROTECTED, like `.git/`) a write or removal whose target lies in a directory of the
 * workspace, the root included, that holds, or would hold after the write, `HEAD` together with
 * `objects`, `refs` or `commondir`. Any pair is refused, so neither order of planting completes
 * the three; and every path inside an existing bare repository is refused.
 *
 * Over-approximates git on purpose: any kind of entry counts, whatever `HEAD` holds; the name the
 * write adds is compared case-insensitively (the existing entries as the file system finds them).
 *
 * What this does not catch: a git directory above the workspace root; one a run_command child
 * builds (git-write-protections.ts and git-created-repositories.ts deal with those).
 */
import { lstatSync } from 'node:fs';
import { join, sep } from 'node:path';

/** With `HEAD`, any of these makes a directory look like a git directory. */
const GIT_DIRECTORY_SIGNS = ['objects', 'refs', 'commondir'] as const;

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Would writing `relativePath` (relative to `root`, normalised, no `..`) land in a directory that
 * holds, or then holds, `HEAD` and `objects`, `refs` or `commondir`? Each ancestor from `root`
 * down is judged with the entry the write makes or passes through in it.
 */
export function landsInGitDirectory(root: string, relativePath: string): boolean {
  const segments = relativePath.split(sep).filter((segment) => segment.length > 0 && segment !== '.');
  let dir = root;
  for (const segment of segments) {
    const added = segment.toLowerCase();
    const holds = (name: string) => added === name.toLowerCase() || exists(join(dir, name));
    if (holds('HEAD') && GIT_DIRECTORY_SIGNS.some(holds)) return true;
    dir = join(dir, segment);
  }
  return false;
}
