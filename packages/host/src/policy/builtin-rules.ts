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

const FORCE_FLAGS = ['--force', '-f', '--force-with-lease', '--force-with-lease=*', '--force-if-includes'];
const PROTECTED_BRANCHES = ['main', 'master'];
/** A protected branch named as a push destination: `main`, `HEAD:main`, `refs/heads/main`, `x:refs/heads/main`. */
const PROTECTED_DESTINATIONS = PROTECTED_BRANCHES.flatMap((branch) => [
  branch,
  `*:${branch}`,
  `refs/heads/${branch}`,
  `*:refs/heads/${branch}`,
]);
/** A refspec that force-updates (`+main`, `+x:main`) or deletes (`:main`) a protected branch. */
const PROTECTED_REWRITES = PROTECTED_BRANCHES.flatMap((branch) => [
  `+${branch}`,
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
    args_include: [['push'], ['--delete', '-d'], PROTECTED_DESTINATIONS],
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
