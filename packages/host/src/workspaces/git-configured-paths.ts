/**
 * SEC-004 (workspace file access, git-escape): paths that git configuration turns into code or
 * configuration, refused by the host's workspace writes (the file tools, undo, the write route)
 * with FS_PROTECTED like `.git/` itself: every configured `core.hooksPath` (e.g. `.husky/`, and
 * husky 9's `.husky/` behind `.husky/_`) and every config file an `include.path` /
 * `includeIf.*.path` names, for the repository at or above the workspace root and every
 * repository between the root and the written file. Read from the repositories' config at each
 * write, so a hooks path set a moment ago counts.
 *
 * What this does not catch: configuration given by environment (`GIT_CONFIG_*`); a repository
 * elsewhere in the workspace whose hooks path points across into a sibling directory.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import {
  gitRepositoryLayout,
  globalGitConfigFiles,
  GIT_CONFIG_MAX_FILE_CHARS,
  type GitRepositoryAccess,
  type GitRepositoryLayout,
} from '@bastion/protocol';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';
import { realpathOfNearest } from './workspace-files.js';

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

const access: GitRepositoryAccess = {
  readText(path) {
    const stats = lstatOrUndefined(path);
    if (!stats?.isFile() || stats.size > GIT_CONFIG_MAX_FILE_CHARS) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  kind(path) {
    const stats = lstatOrUndefined(path);
    if (stats === undefined) return undefined;
    return stats.isDirectory() ? 'directory' : stats.isFile() ? 'file' : 'other';
  },
  resolve: (base, relative) => resolve(base, relative),
  dirname,
  basename,
  home: homedir(),
};

/** The repositories whose worktree holds `target`: each between it and `root`, and the one at or above `root`. */
function repositoriesHolding(root: string, target: string): GitRepositoryLayout[] {
  const globals = globalGitConfigFiles(homedir(), process.env.XDG_CONFIG_HOME);
  const found: GitRepositoryLayout[] = [];
  for (let dir = dirname(target); ; dir = dirname(dir)) {
    const layout = gitRepositoryLayout(dir, globals, access);
    if (layout !== undefined) {
      found.push(layout);
      if (!isAtOrUnder(dir, root) || dir === root) return found;
    }
    if (dirname(dir) === dir) return found;
  }
}

/**
 * Whether writing `lexical` (the path as asked, absolute) whose real path is `real` would land in
 * a configured hooks directory or an included config file. Both spellings are judged, against the
 * configured paths as written and as really resolved, so a symlink launders neither.
 */
export function isGitConfiguredPath(root: string, lexical: string, real: string): boolean {
  for (const repository of [...repositoriesHolding(root, lexical), ...repositoriesHolding(root, real)]) {
    for (const configured of [...repository.hooksDirs, ...repository.configFiles]) {
      const places = [configured, realpathOfNearest(configured)];
      if (places.some((place) => isAtOrUnder(lexical, place) || isAtOrUnder(real, place))) return true;
    }
  }
  return false;
}
