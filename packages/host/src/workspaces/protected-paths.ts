/**
 * No-clobber paths (SEC-004, spec "Agent shell execution": the fs-edit tools refuse no-clobber
 * paths). A write that lands on version-control internals, environment and credential files,
 * shell start-up files, package-manager configuration, lockfiles or agent/editor configuration is
 * refused with FS_PROTECTED, wherever it sits in the workspace.
 *
 * Matching is case-insensitive on every file system: on a case-sensitive one that refuses a few
 * more names (`.ENV`) than strictly needed, which is the safe side. The caller checks both the
 * path as asked and its real path, so a symlink cannot launder either name.
 *
 * What this does not catch: reads (these are write protections), and writes by `run_command`
 * children (issue 5's per-command profile owns those).
 */
import { sep } from 'node:path';

/** Directories whose contents are never written (any depth). */
const PROTECTED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', '.hg', '.svn']);

/** Exact base names (lower case) refused at any depth. */
const PROTECTED_BASENAMES: ReadonlySet<string> = new Set([
  // version control configuration
  '.gitconfig',
  '.gitmodules',
  '.gitattributes',
  // environment
  '.env',
  '.envrc',
  // shell start-up files
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.cshrc',
  '.tcshrc',
  '.kshrc',
  '.mkshrc',
  '.inputrc',
  // package managers
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'package-lock.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  // agent configuration
  '.mcp.json',
  '.claude.json',
]);

/**
 * Trailing segment sequences (lower case) refused at any depth. A git directory's
 * `objects/info/alternates` and `http-alternates` make git read objects from another store: refused
 * wherever the git directory is (one behind a `gitdir:` pointer or a bare one need not be `.git`).
 */
const PROTECTED_SUFFIXES: readonly (readonly string[])[] = [
  // What an editor or agent opened in that folder runs by itself: VS Code's settings and its
  // `runOn: folderOpen` tasks, the hooks of Claude Code's project settings.
  ['.vscode', 'settings.json'],
  ['.vscode', 'tasks.json'],
  ['.claude', 'settings.json'],
  ['.claude', 'settings.local.json'],
  ['objects', 'info', 'alternates'],
  ['objects', 'info', 'http-alternates'],
];

/** `relativePath` is relative to a workspace root (either separator style is split). */
export function isProtectedPath(relativePath: string): boolean {
  const segments = relativePath
    .split(sep === '/' ? '/' : /[\\/]/)
    .filter((segment) => segment.length > 0 && segment !== '.')
    .map((segment) => segment.toLowerCase());
  if (segments.some((segment) => PROTECTED_DIRECTORIES.has(segment))) return true;
  const base = segments.at(-1);
  if (base === undefined) return false;
  if (PROTECTED_BASENAMES.has(base) || base.startsWith('.env.')) return true;
  return PROTECTED_SUFFIXES.some(
    (suffix) =>
      segments.length >= suffix.length &&
      suffix.every((part, index) => segments[segments.length - suffix.length + index] === part),
  );
}
