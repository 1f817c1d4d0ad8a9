/**
 * No-clobber paths (SEC-004, spec "Agent shell execution": the fs-edit tools refuse no-clobber
 * paths). A write that lands on version-control internals, environment and credential files,
 * shell start-up files, package-manager configuration, lockfiles or agent/editor configuration is
 * refused with FS_PROTECTED, wherever it sits in the workspace. The editor and agent configuration
 * is steering-paths.ts's list, the one run_command's profile write-denies too; every path that
 * profile denies is refused here as well (protected-paths.test.ts checks both lists).
 *
 * Matching is case-insensitive on every file system: on a case-sensitive one that refuses a few
 * more names (`.ENV`) than strictly needed, which is the safe side. The caller checks both the
 * path as asked and its real path, so a symlink cannot launder either name.
 *
 * What this does not catch: reads (these are write protections), and writes by `run_command`
 * children (issue 5's per-command profile owns those).
 */
import { sep } from 'node:path';
import { STEERING_PATHS } from './steering-paths.js';

/** Directories whose contents are never written (any depth). */
const PROTECTED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', '.hg', '.svn']);

/** Exact base names (lower case) refused at any depth. */
const PROTECTED_BASENAMES: ReadonlySet<string> = new Set([
  // version control configuration
  '.gitconfig',
  '.gitmodules',
  '.gitattributes',
  // environment (`.envrc` is a steering path)
  '.env',
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
  '.ripgreprc',
  // package managers
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'package-lock.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  // agent configuration (the rest are steering paths)
  '.claude.json',
]);

/**
 * Trailing segment sequences (lower case) refused at any depth. A git directory's
 * `objects/info/alternates` and `http-alternates` make git read objects from another store: refused
 * wherever the git directory is (one behind a `gitdir:` pointer or a bare one need not be `.git`).
 */
const PROTECTED_SUFFIXES: readonly (readonly string[])[] = [
  ['objects', 'info', 'alternates'],
  ['objects', 'info', 'http-alternates'],
];

/** Segment sequences (lower case) refused wherever they occur: the path is one, or lies inside one. */
const PROTECTED_RUNS: readonly (readonly string[])[] = STEERING_PATHS.map((path) => path.toLowerCase().split('/'));

/** Does `segments` hold `run` at `at`? */
const holdsAt = (segments: readonly string[], run: readonly string[], at: number) =>
  run.every((part, index) => segments[at + index] === part);

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
  if (PROTECTED_RUNS.some((run) => segments.some((_, at) => holdsAt(segments, run, at)))) return true;
  return PROTECTED_SUFFIXES.some(
    (suffix) => segments.length >= suffix.length && holdsAt(segments, suffix, segments.length - suffix.length),
  );
}
