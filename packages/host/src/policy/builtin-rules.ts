/**
 * The watchdog's built-in rules, shipped with Bastion and evaluated after the project's and the
 * user's own rules. They are data like any other rule; a user rule can override a `deny` or `ask`
 * here for one project or globally, never the `hard-deny`.
 *
 * What they do not catch: the same act spelled another way — through an interpreter or shell
 * (`sh -c 'git push -f origin main'`), git options before the subcommand (`git -C dir push …`),
 * an alias, or a computed path. They are a tripwire for the common spelling, not a sandbox.
 */
import type { PolicyRule } from '@bastion/protocol';

/**
 * The short options `git push` takes (-q -v -d -n -f -u -4 -6, and -o, whose value is the rest of
 * its word): git reads a bundle such as `-uf` letter by letter, and refuses a word whose first
 * letter is none of these, so a bundle is `-` and one of them, then anything. `-o…` is left out:
 * all after the `o` is its value (`-of` is the push option "f", not a force).
 */
const PUSH_SHORT_OPTIONS = ['q', 'v', 'd', 'n', 'f', 'u', '4', '6'];

/** `-<letter>` alone or in a bundle of push's short options (`-f`, `-uf`, `-vnf`): never `--…`. */
function shortOptionTokens(letter: string): string[] {
  return [
    `-${letter}*`,
    ...PUSH_SHORT_OPTIONS.filter((first) => first !== letter).map((first) => `-${first}*${letter}*`),
  ];
}

/**
 * A force: `-f` in a bundle, and every long spelling git's parse-options takes for --force,
 * --force-with-lease (with or without `=…`) and --force-if-includes — an unambiguous prefix
 * such as `--force-w` or `--force-i`, and `--fo`/`--for`/`--forc` too, which git refuses as
 * ambiguous today (one less option and it would not be). `--f` and `--follow-tags` are not a force.
 */
const FORCE_FLAGS = ['--fo', '--for', '--forc*', ...shortOptionTokens('f')];
/** A delete: `-d` in a bundle, or --delete and its prefixes (`--de…`: `--d` is --dry-run's too). */
const DELETE_FLAGS = ['--de*', ...shortOptionTokens('d')];
const PROTECTED_BRANCHES = ['main', 'master'];
/** A protected branch named as a push destination: `main`, `HEAD:main`, `refs/heads/main`, `x:refs/heads/main`. */
const PROTECTED_DESTINATIONS = PROTECTED_BRANCHES.flatMap((branch) => [
  branch,
  `*:${branch}`,
  `refs/heads/${branch}`,
  `*:refs/heads/${branch}`,
]);
/**
 * A refspec that force-updates (`+main`, `+refs/heads/main`, `+x:main`) or deletes (`:main`) a
 * protected branch.
 */
const PROTECTED_REWRITES = PROTECTED_BRANCHES.flatMap((branch) => [
  `+${branch}`,
  `+refs/heads/${branch}`,
  `+*:${branch}`,
  `+*:refs/heads/${branch}`,
  `:${branch}`,
  `:refs/heads/${branch}`,
]);

export const BUILTIN_RULES: readonly PolicyRule[] = Object.freeze([
  {
    id: 'builtin.git-force-push-protected',
    decision: 'deny',
    tools: ['run_command'],
    command: 'git',
    args_include: [['push'], FORCE_FLAGS, PROTECTED_DESTINATIONS],
    reason: 'force-pushing a protected branch (main, master) rewrites shared history',
  },
  {
    id: 'builtin.git-rewrite-protected-refspec',
    decision: 'deny',
    tools: ['run_command'],
    command: 'git',
    args_include: [['push'], PROTECTED_REWRITES],
    reason: 'a +refspec or :refspec to a protected branch (main, master) rewrites or deletes it',
  },
  {
    id: 'builtin.git-delete-protected',
    decision: 'deny',
    tools: ['run_command'],
    command: 'git',
    args_include: [['push'], DELETE_FLAGS, PROTECTED_DESTINATIONS],
    reason: 'deleting a protected branch (main, master) on a remote',
  },
  {
    id: 'builtin.git-force-push',
    decision: 'ask',
    tools: ['run_command'],
    command: 'git',
    args_include: [['push'], FORCE_FLAGS],
    reason: 'a force push overwrites the remote branch',
  },
  {
    id: 'builtin.rm-recursive-workspace-root',
    decision: 'hard-deny',
    tools: ['run_command'],
    command: 'rm',
    args_include: [['-r', '-R', '--recursive', '-*r*', '-*R*']],
    targets_workspace_root: true,
    reason: 'recursively removing the workspace root (or a folder above it)',
  },
  {
    id: 'builtin.ci-workflows-write',
    decision: 'ask',
    tools: ['write_file', 'edit_file'],
    paths: ['.github/workflows/**'],
    reason: 'CI workflows run with the repository’s secrets; a change there needs your approval',
  },
] satisfies PolicyRule[]);
