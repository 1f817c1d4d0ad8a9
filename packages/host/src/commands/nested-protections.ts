/**
 * SEC-004 (agent shell execution), issue 15 §3: the steering files below the workspace root. A
 * folder of the workspace can be opened as a project of its own (an editor reads its `.vscode`,
 * `.idea`, `.devcontainer`, `.mcp.json`; an agent started there reads its `.claude/commands`, `.claude/agents`,
 * AGENTS.md, CLAUDE.md and runs the hooks of its `.claude/settings.json`, and one started above
 * reads a nested AGENTS.md too), and direnv loads an
 * `.envrc` in whatever directory the user enters. command-profile.ts guards these at the root;
 * this guards them at every depth the workspace scan walks (git-write-protections.ts: everything
 * outside `.git` and package trees), at no extra walk: the scan that looks for repositories
 * before and after each command records the entries so named.
 *
 * - Each that exists at wrap time is write-denied (bound read-only), like the root's.
 * - After the command has ended (its sandbox is gone), the scan runs again for git anyway; each
 *   such path that is new — by inode, so a directory moved aside and made again counts, and one
 *   of the user's moved with its folder (`git mv`) does not — is moved to quarantine by the
 *   placeholder warden, and the result says so. For `.claude`, a
 *   new `.claude` is moved whole (as the root's missing one is guarded whole), and in an existing
 *   one a new `commands`, `agents` or settings file.
 *
 * What it does not catch: a nested one while the command still runs (it is moved only at the end,
 * so a tool outside the sandbox reading it meanwhile sees it; the root's are polled); one inside a
 * package tree (`node_modules`) or beyond the scan's bound (the result then says the check was
 * incomplete); one left by a command whose host was killed before the command ended (the crash
 * journal knows only the root's guarded paths).
 */
import { lstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { PROJECT_INSTRUCTION_FILES, STEERING_PATHS } from '../workspaces/steering-paths.js';
import type { GitRepositoryScan } from './git-write-protections.js';

/**
 * Relative to any directory below the workspace root, `/`-separated: what steers a tool opened or
 * started there (steering-paths.ts, the file tools' list too) and the project instructions.
 */
export const NESTED_WRITE_PROTECTED = [...STEERING_PATHS, ...PROJECT_INSTRUCTION_FILES] as const;

/** The names the scan records: each protected path's first segment. */
export const NESTED_PROTECTED_NAMES: ReadonlySet<string> = new Set(
  NESTED_WRITE_PROTECTED.map((relative) => relative.split('/')[0] ?? relative),
);

const CLAUDE_DIR = '.claude';

/** What is at `path` (not through a final symlink), by device and inode; undefined when nothing is. */
function identity(path: string): string | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats === undefined ? undefined : `${stats.dev}:${stats.ino}`;
}

/** The protected paths inside a `.claude` the scan recorded (its commands, agents and settings). */
function claudePaths(entry: string): string[] {
  return NESTED_WRITE_PROTECTED.filter((relative) => relative.startsWith(`${CLAUDE_DIR}/`)).map((relative) =>
    join(dirname(entry), relative),
  );
}

export interface NestedProtections {
  /** The nested protected paths that exist now: write-deny each. */
  denyWrite: string[];
  /** From the scan after the command: what it made at a nested protected path, to move to quarantine. */
  createdSince(after: GitRepositoryScan): string[];
}

/** From the wrap-time scan: what to deny now, and what it had, to compare with after the command. */
export function nestedProtections(scan: GitRepositoryScan): NestedProtections {
  const known = new Set<string>();
  const remember = (path: string) => {
    const id = identity(path);
    if (id !== undefined) known.add(id);
    return id !== undefined;
  };
  const denyWrite: string[] = [];
  for (const entry of scan.nestedProtected) {
    const exists = remember(entry);
    if (basename(entry) !== CLAUDE_DIR) {
      if (exists) denyWrite.push(entry);
      continue;
    }
    for (const path of claudePaths(entry)) if (remember(path)) denyWrite.push(path);
  }
  const isNew = (path: string) => {
    const id = identity(path);
    return id !== undefined && !known.has(id);
  };
  return {
    denyWrite,
    createdSince(after) {
      const created: string[] = [];
      for (const entry of after.nestedProtected) {
        if (isNew(entry)) created.push(entry);
        else if (basename(entry) === CLAUDE_DIR)
          for (const path of claudePaths(entry)) if (isNew(path)) created.push(path);
      }
      return created;
    },
  };
}
