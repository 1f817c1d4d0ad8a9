/**
 * SEC-004 (agent shell execution, git-escape): the paths inside a workspace a command must not
 * write because the user's own git, run later outside the sandbox, reads code or directions from
 * them. Found at wrap time for the workspace's repository, the one enclosing it, and every
 * repository, submodule checkout and linked worktree below it (GIT_REPOSITORY_SCAN_MAX_DEPTH).
 *
 * A git directory stays writable for what ordinary work writes (gitrepository-layout(5): objects,
 * refs, logs, packed-refs, index, HEAD, ORIG_HEAD, FETCH_HEAD, MERGE_*, CHERRY_PICK_HEAD,
 * COMMIT_EDITMSG, AUTO_MERGE, rebase-merge/, rebase-apply/, sequencer/, rr-cache/, shallow, lock
 * files); write-denied, whether or not they exist yet, are the entries that hold configuration,
 * hooks or another repository's location: `config`, `config.worktree`, `hooks`, `info`
 * (attributes, sparse-checkout), `commondir`, `modules` (submodules' own git directories, each with
 * config and hooks), `worktrees` (linked worktrees' HEAD, `gitdir`, `commondir`,
 * `config.worktree`), and the legacy `branches` and `remotes`. Also denied: every `.git` file
 * (a `gitdir:` pointer), every configured `core.hooksPath` inside the workspace (husky's too) and
 * every config file an `include.path` / `includeIf.*.path` names inside it.
 *
 * Not needed for code, checked with git 2.39: `.gitattributes` stays writable (a `filter=`,
 * `diff=` or `merge=` attribute only names a driver, whose command lives in config, denied here:
 * an unknown driver runs nothing); a new `.gitmodules` runs nothing either (git refuses
 * `update = !command` from it; an existing one is write-denied by command-profile.ts anyway).
 *
 * `commondir` cannot be denied while absent the usual way: srt's placeholder is an empty file,
 * and git dies on an empty `commondir` (the host's git too, while the command runs). The executor
 * pins one holding `.` instead (git reads it as "this directory"), for the command's lifetime.
 *
 * What it does not catch: a repository the command creates itself (`git init`, a clone, a
 * hand-made `.git`), whose config and hooks are unprotected during that command — neutralised
 * after it by git-created-repositories.ts, which also flags planted rebase `exec` lines;
 * repositories deeper than the scan or beyond its directory bound; `objects/info/alternates`
 * (other object stores: data, not code).
 */
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  gitRepositoryLayout,
  globalGitConfigFiles,
  GIT_CONFIG_MAX_FILE_CHARS,
  GIT_REPOSITORY_SCAN_MAX_DEPTH,
  GIT_REPOSITORY_SCAN_MAX_DIRS,
  type GitRepositoryAccess,
  type GitRepositoryLayout,
} from '@bastion/protocol';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';

/** Entries of a git directory that hold configuration, hooks or another repository's location. */
export const GIT_DIR_WRITE_PROTECTED = [
  'config',
  'config.worktree',
  'hooks',
  'info',
  'commondir',
  'modules',
  'worktrees',
  'branches',
  'remotes',
] as const;

/** Not walked for nested repositories: package trees are large and their `.git` dirs are no one's worktree. */
const SCAN_SKIPPED = new Set(['.git', 'node_modules']);

export interface GitWriteProtections {
  /** Absolute paths to write-deny (some may not exist yet). */
  denyWrite: string[];
  /** Git directories inside the workspace whose `commondir` the executor pins while the command runs. */
  gitDirs: string[];
  /** The repositories found, as they were at wrap time. */
  repositories: GitRepositoryLayout[];
}

const hostAccess: GitRepositoryAccess = {
  readText(path) {
    try {
      const stats = lstatSync(path);
      if (!stats.isFile() || stats.size > GIT_CONFIG_MAX_FILE_CHARS) return undefined;
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  kind(path) {
    try {
      const stats = lstatSync(path);
      // Git follows a symlinked `.git` to the directory it names; so does the scan.
      if (stats.isSymbolicLink()) return statSync(path).isDirectory() ? 'directory' : 'other';
      return stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
    } catch {
      return undefined;
    }
  },
  resolve: (base, relative) => resolve(base, relative),
  dirname,
  basename,
  home: undefined,
};

/** Worktrees below `root` (not `root` itself) holding a `.git`, breadth first, within the scan bounds. */
function nestedWorktrees(root: string): string[] {
  const found: string[] = [];
  let level = [root];
  let visited = 0;
  for (let depth = 0; depth < GIT_REPOSITORY_SCAN_MAX_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = [];
    for (const dir of level) {
      if (visited >= GIT_REPOSITORY_SCAN_MAX_DIRS) return found;
      visited += 1;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.name === '.git' && dir !== root) found.push(dir);
        if (entry.isDirectory() && !SCAN_SKIPPED.has(entry.name)) next.push(join(dir, entry.name));
      }
    }
    level = next;
  }
  return found;
}

/** The repository at `root` or, when `root` is no worktree, the one enclosing it. */
function enclosingRepository(root: string, globals: readonly string[], access: GitRepositoryAccess) {
  for (let dir = root; ; dir = dirname(dir)) {
    const layout = gitRepositoryLayout(dir, globals, access);
    if (layout !== undefined) return layout;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The repository at or enclosing `root` and every one below it, within the scan bounds. */
export function findGitRepositories(root: string, options: { home: string }): GitRepositoryLayout[] {
  const access = { ...hostAccess, home: options.home };
  const globals = globalGitConfigFiles(options.home, process.env.XDG_CONFIG_HOME);
  const repositories: GitRepositoryLayout[] = [];
  const top = enclosingRepository(root, globals, access);
  if (top !== undefined) repositories.push(top);
  for (const worktree of nestedWorktrees(root)) {
    const layout = gitRepositoryLayout(worktree, globals, access);
    if (layout !== undefined) repositories.push(layout);
  }
  return repositories;
}

export function gitWriteProtections(root: string, options: { home: string }): GitWriteProtections {
  const repositories = findGitRepositories(root, options);

  const inside = (path: string) => isAtOrUnder(path, root);
  const deny = new Set<string>();
  const candidates = new Set<string>();
  for (const repository of repositories) {
    if (repository.dotGitIsFile && inside(repository.dotGit)) deny.add(repository.dotGit);
    for (const gitDir of [repository.gitDir, repository.commonDir]) if (inside(gitDir)) candidates.add(gitDir);
    for (const path of [...repository.configFiles, ...repository.hooksDirs]) if (inside(path)) deny.add(path);
  }
  // A submodule's or linked worktree's git directory under another's `modules/` or `worktrees/`
  // is read-only as part of it: nothing of its own to deny, no `commondir` to pin there.
  const wholesale = [...candidates].flatMap((gitDir) => [join(gitDir, 'modules'), join(gitDir, 'worktrees')]);
  const gitDirs = [...candidates].filter((gitDir) => !wholesale.some((dir) => isAtOrUnder(gitDir, dir)));
  for (const gitDir of gitDirs) for (const entry of GIT_DIR_WRITE_PROTECTED) deny.add(join(gitDir, entry));
  return {
    denyWrite: [...deny].filter((path) => !wholesale.some((dir) => path !== dir && isAtOrUnder(path, dir))),
    gitDirs,
    repositories,
  };
}
