/**
 * SEC (agent shell execution): the `accept-edits` classifier. A command that this function calls
 * read-only runs without asking; everything else pauses for an Allow/Deny approval. It judges argv
 * only (there is no shell: `shell: false`), so it is deliberately narrow: a bare program name from
 * a short list, and for `find`, `rg` and `git` no flag that executes a program or writes a file.
 *
 * What it does not catch: a program on PATH that shadows one of these names, or repository
 * configuration that makes `git` run a helper (fsmonitor, diff drivers). The per-command kernel
 * profile in the host bounds both; `.git/` is also protected from the agent's file tools.
 */

/** Programs that only print what they are given or read. */
const ALWAYS_READ_ONLY = new Set(['ls', 'pwd', 'echo', 'cat', 'head', 'tail', 'wc', 'grep']);

/** `find` primaries that run a program, delete, or write a file. `-fprint` also covers -fprint0 and -fprintf. */
const FIND_REFUSED_EXACT = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fls']);
const FIND_REFUSED_PREFIX = '-fprint';

/** `rg` flags that run a program per file or to find the host name. */
const RG_REFUSED = ['--pre', '--hostname-bin'];

const GIT_READ_ONLY_SUBCOMMANDS = new Set(['status', 'log', 'diff', 'show', 'ls-files', 'rev-parse', 'blame']);
/** `git` options that set configuration, point git at other programs or repositories, or write a file. */
const GIT_REFUSED_LONG = ['--exec-path', '--git-dir', '--work-tree', '--upload-pack', '--receive-pack', '--output'];
const GIT_REFUSED_SHORT = ['-c', '-o'];

/** A long option, alone or in its `--name=value` form. */
function isLongOption(arg: string, name: string): boolean {
  return arg === name || arg.startsWith(`${name}=`);
}

/** A short option, alone or with its value attached (`-cfoo=bar`, `-ofile`). */
function isShortOption(arg: string, name: string): boolean {
  return arg.startsWith(name) && !arg.startsWith('--');
}

function isReadOnlyFind(args: readonly string[]): boolean {
  return !args.some((arg) => FIND_REFUSED_EXACT.has(arg) || arg.startsWith(FIND_REFUSED_PREFIX));
}

function isReadOnlyRipgrep(args: readonly string[]): boolean {
  return !args.some((arg) => RG_REFUSED.some((name) => isLongOption(arg, name)));
}

function isReadOnlyGit(args: readonly string[]): boolean {
  // The subcommand must come first: global options before it (`-c`, `--git-dir`, `-C`) are where
  // configuration and other repositories come in.
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || !GIT_READ_ONLY_SUBCOMMANDS.has(subcommand)) return false;
  return !rest.some(
    (arg) =>
      GIT_REFUSED_LONG.some((name) => isLongOption(arg, name)) ||
      GIT_REFUSED_SHORT.some((name) => isShortOption(arg, name)),
  );
}

/**
 * True when `command args` only inspects. Path-shaped names (`./ls`, `/bin/ls`) are never
 * read-only: the name must be the bare program name, found on the sandbox's PATH.
 */
export function isReadOnlyCommand(command: string, args: readonly string[]): boolean {
  if (command.includes('/')) return false;
  if (ALWAYS_READ_ONLY.has(command)) return true;
  switch (command) {
    case 'find':
      return isReadOnlyFind(args);
    case 'rg':
      return isReadOnlyRipgrep(args);
    case 'git':
      return isReadOnlyGit(args);
    default:
      return false;
  }
}
