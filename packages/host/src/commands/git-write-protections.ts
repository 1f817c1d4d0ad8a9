/**
 * SEC-004 (agent shell execution, git-escape): the paths inside a workspace a command must not
 * write because the user's own git, run later outside the sandbox, reads code or directions from
 * them. Found at wrap time for the workspace's repository, the one enclosing it, and every
 * repository, submodule and linked worktree below it, at any depth (in package trees, those of
 * the packages themselves: PACKAGE_TREE below): the scan reads at most
 * GIT_REPOSITORY_SCAN_MAX_ENTRIES directory entries and, beyond that, says it is incomplete, and
 * the command then runs with the whole workspace write-denied (fail closed).
 *
 * A git directory stays writable for what ordinary work writes (gitrepository-layout(5): objects,
 * refs, logs, packed-refs, index, HEAD, ORIG_HEAD, FETCH_HEAD, MERGE_*, CHERRY_PICK_HEAD,
 * COMMIT_EDITMSG, AUTO_MERGE, rebase-merge/, rebase-apply/, sequencer/, rr-cache/, shallow, lock
 * files), and so do `modules/` and `worktrees/`, so `git add`/`commit`/`checkout`/`stash` work inside
 * a submodule or a linked worktree. Write-denied, whether or not they exist yet, are the entries
 * that hold configuration, hooks, another repository's location or another object store: in a
 * repository's own (common) git directory `config`, `config.worktree`, `hooks`, `info`
 * (attributes, sparse-checkout), `commondir`, the legacy `branches` and `remotes`, and
 * `objects/info/alternates` / `http-alternates` (they make git read objects from elsewhere); in a
 * linked worktree's (`worktrees/<name>`) its `commondir`, `gitdir` and `config.worktree`. Every git
 * directory under `modules/` (a submodule's, checked out or not, nested ones too) and under
 * `worktrees/` is found and protected the same way. So is every directory of the workspace, the
 * root included, that git would take for a git directory of its own whatever its name (a bare
 * repository: `HEAD` and `objects` or `commondir`, over-approximating git, which also wants `refs`
 * and a valid `HEAD`): git looks for one in each directory before it walks up to the parent's
 * `.git`, and runs its config's `core.fsmonitor` (with `core.worktree = ..`) on `git status` there.
 * Also denied: every `.git` file (a `gitdir:`
 * pointer), every configured `core.hooksPath` inside the workspace (husky's too) and every config
 * file an `include.path` / `includeIf.*.path` names inside it.
 *
 * The scan reads every directory of the workspace outside package trees; with a
 * DirectoryListingCache (the executor's) a directory provably unchanged since the previous scan is
 * not read again (directory-listing-cache.ts).
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
 * What it does not catch: a repository or git directory the command creates itself (`git init`,
 * `git init --bare`, a clone, a hand-made `.git` or bare git directory, a new `modules/<name>` or
 * `worktrees/<name>`), whose config and hooks are unprotected during that command — neutralised
 * after it by git-created-repositories.ts, which also flags planted rebase `exec` lines; in a
 * package tree (`node_modules`, looked into by
 * its packages only: `node_modules` itself, each scope, each package and its own `node_modules`),
 * a repository deeper inside a package than its own directory (`node_modules/x/lib/.git`: git
 * finds it only when run there, or through a gitlink staged at that path, which the top
 * repository's `git status` enters); the hooks path of a submodule that is not checked out (its
 * config is protected, its worktree unknown); the hooks path and include targets a bare git
 * directory's config names outside it (its config itself is denied); a bare git directory deeper
 * in a package than the package's own directory.
 */
import { lstatSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  gitRepositoryLayout,
  globalGitConfigFiles,
  GIT_CONFIG_MAX_FILE_CHARS,
  GIT_REPOSITORY_SCAN_MAX_ENTRIES,
  type GitRepositoryAccess,
  type GitRepositoryLayout,
} from '@bastion/protocol';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';
import { NESTED_PROTECTED_NAMES } from './nested-protections.js';
import type { DirectoryListingCache, ListingReader } from './directory-listing-cache.js';

/** Entries of a repository's own (common) git directory that hold configuration, hooks or another repository's or object store's location. */
export const GIT_DIR_WRITE_PROTECTED = [
  'config',
  'config.worktree',
  'hooks',
  'info',
  'commondir',
  'branches',
  'remotes',
  join('objects', 'info', 'alternates'),
  join('objects', 'info', 'http-alternates'),
] as const;

/** Entries of a linked worktree's git directory (`worktrees/<name>`) that send git elsewhere or configure it. */
export const LINKED_GIT_DIR_WRITE_PROTECTED = ['commondir', 'gitdir', 'config.worktree'] as const;

/**
 * Package trees are large: a `node_modules` is not walked whole but by its packages (scopes
 * included, nested `node_modules` in turn), each looked at for a `.git` of its own. That is where
 * git runs in one (a package's install script, `npm rebuild`, an editor opening it), and what
 * discovery from there climbs through.
 */
const PACKAGE_TREE = 'node_modules';

/** One git directory and the common directory its `commondir` sends git to (itself without one). */
export interface GitDirectory {
  gitDir: string;
  commonDir: string;
}

export interface GitRepositoryScan {
  /** The repositories found by their worktrees, as they were at the scan. */
  repositories: GitRepositoryLayout[];
  /**
   * Every git directory found: the repositories' own and common ones, every directory that looks
   * like a git directory of its own (a bare repository, whatever its name), and every one under a
   * found common directory's `modules/` (submodules, checked out or not) and `worktrees/`,
   * recursively.
   */
  gitDirectories: GitDirectory[];
  /**
   * Entries below the root (not in a package tree) named like the first segment of a path
   * nested-protections.ts protects at depth (`sub/AGENTS.md`, `sub/.claude`…), as they were.
   */
  nestedProtected: string[];
  /** False when the scan stopped at GIT_REPOSITORY_SCAN_MAX_ENTRIES: what lies beyond is unknown. */
  complete: boolean;
}

export interface GitWriteProtections {
  /** Absolute paths to write-deny (some may not exist yet); the workspace root itself when the scan was incomplete. */
  denyWrite: string[];
  /** Git directories inside the workspace whose `commondir` the executor pins while the command runs. */
  gitDirs: string[];
  /** The scan the protections were built from. */
  scan: GitRepositoryScan;
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

/** Reads a directory afresh each time: a scan without a DirectoryListingCache. */
const uncachedReader: ListingReader = {
  read(dir) {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
  },
  end: () => undefined,
};

/** The directory entries one scan may still read; `exhausted` once a read went past the bound. */
class EntryBudget {
  #left = GIT_REPOSITORY_SCAN_MAX_ENTRIES;
  readonly #reader: ListingReader;
  exhausted = false;

  constructor(reader: ListingReader) {
    this.#reader = reader;
  }

  /** `dir`'s entries (none when unreadable or once the bound is reached). */
  read(dir: string): Dirent[] {
    if (this.exhausted) return [];
    const entries = this.#reader.read(dir);
    if (entries === undefined) return [];
    this.#left -= entries.length;
    if (this.#left < 0) {
      this.exhausted = true;
      return [];
    }
    return entries;
  }

  /** Is anything at `path` (not following a final symlink)? One entry's worth of the bound. */
  has(path: string): boolean {
    if (this.exhausted) return false;
    this.#left -= 1;
    if (this.#left < 0) {
      this.exhausted = true;
      return false;
    }
    try {
      return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
    } catch {
      return false;
    }
  }
}

/**
 * The directories of a package tree holding a `.git` (into `found`) or looking like a bare git
 * directory (into `bare`): the `node_modules` directory itself, each scope in it, each package (a
 * directory, not a symlink: a linked workspace package is walked where it lies) and, in turn, each
 * package's own `node_modules`.
 */
function packageTreeWorktrees(nodeModules: string, budget: EntryBudget, found: string[], bare: string[]): void {
  const trees = [nodeModules];
  for (let tree = trees.pop(); tree !== undefined; tree = trees.pop()) {
    const packages: string[] = [];
    const visit = (dir: string) => {
      if (budget.has(join(dir, '.git'))) found.push(dir);
      // A package directory git would take for a bare git directory: HEAD first (rarely there).
      if (budget.has(join(dir, 'HEAD')) && (budget.has(join(dir, 'objects')) || budget.has(join(dir, 'commondir'))))
        bare.push(dir);
    };
    visit(tree);
    for (const entry of budget.read(tree)) {
      if (!entry.isDirectory()) continue;
      const path = join(tree, entry.name);
      if (!entry.name.startsWith('@')) {
        packages.push(path);
        continue;
      }
      visit(path);
      for (const scoped of budget.read(path)) if (scoped.isDirectory()) packages.push(join(path, scoped.name));
    }
    for (const dir of packages) {
      visit(dir);
      if (budget.has(join(dir, PACKAGE_TREE))) trees.push(join(dir, PACKAGE_TREE));
    }
  }
}

/**
 * Worktrees below `root` (not `root` itself) holding a `.git`, at any depth (package trees by
 * their packages); every directory, `root` included, that git would take for a git directory of
 * its own (a bare repository: looksLikeGitDir()); and the entries named like a nested protected
 * path's first segment, within the budget.
 *
 * A bare git directory is walked on like any directory: git finds a `.git` (or another bare one)
 * inside it first when run there, so skipping it would let a planted `HEAD` and `objects` hide
 * the repositories below from the scan. Its size counts against the bound (fail closed).
 */
function walkWorkspace(
  root: string,
  budget: EntryBudget,
): { worktrees: string[]; bareGitDirs: string[]; nestedProtected: string[] } {
  const worktrees: string[] = [];
  const bareGitDirs: string[] = [];
  const nestedProtected: string[] = [];
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const entries = budget.read(dir);
    if (looksLikeGitDir(entries)) bareGitDirs.push(dir);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (dir !== root) {
        if (entry.name === '.git') worktrees.push(dir);
        if (NESTED_PROTECTED_NAMES.has(entry.name)) nestedProtected.push(path);
      }
      if (!entry.isDirectory() || entry.name === '.git') continue;
      if (entry.name === PACKAGE_TREE) packageTreeWorktrees(path, budget, worktrees, bareGitDirs);
      else pending.push(path);
    }
  }
  return { worktrees, bareGitDirs, nestedProtected };
}

/** The common directory `gitDir`'s `commondir` names, or `gitDir` itself. */
function commonDirOf(gitDir: string): string {
  const text = hostAccess.readText(join(gitDir, 'commondir'))?.trim();
  return text === undefined || text.length === 0 ? gitDir : resolve(gitDir, text);
}

/** A directory git would take for a git directory: a `HEAD` and objects of its own or through `commondir`. */
function looksLikeGitDir(entries: readonly Dirent[]): boolean {
  const names = new Set(entries.map((entry) => entry.name));
  return names.has('HEAD') && (names.has('objects') || names.has('commondir'));
}

/** Is `entry` of `dir` a directory, or (git follows it) a symlink to one? */
function isDirectoryEntry(dir: string, entry: Dirent): boolean {
  if (entry.isDirectory()) return true;
  return entry.isSymbolicLink() && hostAccess.kind(join(dir, entry.name)) === 'directory';
}

/**
 * The git directories under `commonDir`'s `worktrees/` (one a name) and `modules/` (a submodule's
 * name may hold slashes, so every level is looked at), and theirs in turn, added to `found`. A
 * symlink counts where git would follow it: as a worktree's directory, or as a submodule's when
 * it leads to a git directory (no walk goes on through one).
 */
function gitDirectoriesBelow(commonDir: string, budget: EntryBudget, found: Map<string, GitDirectory>): void {
  const worktrees = join(commonDir, 'worktrees');
  for (const entry of budget.read(worktrees)) {
    const gitDir = join(worktrees, entry.name);
    if (isDirectoryEntry(worktrees, entry) && !found.has(gitDir))
      found.set(gitDir, { gitDir, commonDir: commonDirOf(gitDir) });
  }
  const modules = join(commonDir, 'modules');
  const pending: [dir: string, entries: Dirent[]][] = [[modules, budget.read(modules)]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [dir, entries] = next;
    for (const entry of entries) {
      if (!isDirectoryEntry(dir, entry)) continue;
      const path = join(dir, entry.name);
      const inner = budget.read(path);
      if (!looksLikeGitDir(inner)) {
        if (entry.isDirectory()) pending.push([path, inner]);
        continue;
      }
      if (found.has(path)) continue;
      const submodule = { gitDir: path, commonDir: commonDirOf(path) };
      found.set(path, submodule);
      gitDirectoriesBelow(submodule.commonDir, budget, found);
    }
  }
}

/** The repository at `root` or, when `root` is no worktree, the one enclosing it. */
function enclosingRepository(root: string, globals: readonly string[], access: GitRepositoryAccess) {
  for (let dir = root; ; dir = dirname(dir)) {
    const layout = gitRepositoryLayout(dir, globals, access);
    if (layout !== undefined) return layout;
    if (dirname(dir) === dir) return undefined;
  }
}

export interface GitScanOptions {
  home: string;
  /** Listings kept from the previous scans of the same root, served while provably unchanged. */
  listings?: DirectoryListingCache;
}

/** The repository at or enclosing `root`, every one below it, and all their git directories, within the entry bound. */
export function scanGitRepositories(root: string, options: GitScanOptions): GitRepositoryScan {
  const access = { ...hostAccess, home: options.home };
  const globals = globalGitConfigFiles(options.home, process.env.XDG_CONFIG_HOME);
  const reader = options.listings?.begin(root) ?? uncachedReader;
  const budget = new EntryBudget(reader);
  const repositories: GitRepositoryLayout[] = [];
  const top = enclosingRepository(root, globals, access);
  if (top !== undefined) repositories.push(top);
  const walked = walkWorkspace(root, budget);
  for (const worktree of walked.worktrees) {
    const layout = gitRepositoryLayout(worktree, globals, access);
    if (layout !== undefined) repositories.push(layout);
  }
  const found = new Map<string, GitDirectory>();
  const add = (gitDir: string, commonDir: string) => {
    if (!found.has(gitDir)) found.set(gitDir, { gitDir, commonDir });
    if (!found.has(commonDir)) found.set(commonDir, { gitDir: commonDir, commonDir });
  };
  for (const repository of repositories) add(repository.gitDir, repository.commonDir);
  for (const gitDir of walked.bareGitDirs) add(gitDir, commonDirOf(gitDir));
  for (const directory of [...found.values()])
    if (directory.gitDir === directory.commonDir) gitDirectoriesBelow(directory.commonDir, budget, found);
  reader.end();
  return {
    repositories,
    gitDirectories: [...found.values()],
    nestedProtected: walked.nestedProtected,
    complete: !budget.exhausted,
  };
}

export function gitWriteProtections(root: string, options: GitScanOptions): GitWriteProtections {
  const scan = scanGitRepositories(root, options);
  const inside = (path: string) => isAtOrUnder(path, root);
  const deny = new Set<string>();
  for (const repository of scan.repositories) {
    if (repository.dotGitIsFile && inside(repository.dotGit)) deny.add(repository.dotGit);
    for (const path of [...repository.configFiles, ...repository.hooksDirs]) if (inside(path)) deny.add(path);
  }
  const gitDirs: string[] = [];
  for (const { gitDir, commonDir } of scan.gitDirectories) {
    if (!inside(gitDir)) continue;
    const own = gitDir === commonDir;
    if (own) gitDirs.push(gitDir);
    for (const entry of own ? GIT_DIR_WRITE_PROTECTED : LINKED_GIT_DIR_WRITE_PROTECTED) deny.add(join(gitDir, entry));
  }
  if (!scan.complete) deny.add(root);
  return { denyWrite: [...deny], gitDirs, scan };
}
