/**
 * SEC-004 (outer sandbox), `home-read`: HOME is unreadable to the sidecar and to run_command
 * children, except the workspace and userData (their write roots, which srt binds back), what
 * Bastion itself runs from, and this allowlist of toolchains and package caches. The list is
 * data: `bastion doctor` prints it, the policy builders turn the entries that exist into srt
 * `allowRead` paths, and checkSandboxPolicy refuses any entry that is HOME itself or holds or lies
 * in a HOME secret. A user extends it with `BASTION_HOME_READ_ALLOW` in the host's environment
 * (never a file the sandbox could write), a `:`-separated list of paths relative to HOME.
 *
 * Entries are bound read-only: a sandboxed command can use a cached package or a toolchain, not
 * plant code in one for the user's next unsandboxed build. Everything else under HOME reads as an
 * empty, writable scratch tmpfs that vanishes with the sandbox.
 *
 * What it does not catch: a secret the user keeps inside an allowlisted directory (a token file in
 * ~/.local/bin), or in a file a toolchain itself reads from an allowed directory.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { homeReadProblem, isAtOrUnder } from './sandbox-policy-check.js';

/** Relative to HOME, read-only in every sandbox where they exist. */
export const HOME_READ_ALLOWLIST = [
  // Toolchains and version managers (their binaries are on the user's PATH).
  '.cargo/bin',
  '.rustup',
  '.nvm',
  '.volta',
  '.local/share/fnm',
  '.pyenv',
  '.local/bin',
  '.local/lib',
  'go/bin',
  // Caches that tools read from and tolerate read-only (pip turns its cache off; Go's module
  // cache is read-only by design). npm's is not here: npm refuses to run on a read-only cache, and
  // a writable one would let a sandboxed command poison what the user's next unsandboxed install
  // unpacks, so inside the sandbox npm gets an empty throwaway cache in the HOME tmpfs.
  '.cache/pip',
  'go/pkg/mod',
] as const;

export const HOME_READ_ALLOW_ENV = 'BASTION_HOME_READ_ALLOW';

export type HomeReadSource = 'default' | typeof HOME_READ_ALLOW_ENV | 'bastion';

export interface HomeReadEntry {
  path: string;
  source: HomeReadSource;
  exists: boolean;
  /** Why the entry is not used (it is HOME, holds or lies in a HOME secret…); undefined when it is. */
  refused?: string;
}

/**
 * What Bastion itself runs from, when it lies under HOME: the Node installation running the host
 * (a version manager's, say) and the install root holding Bastion's packages and node_modules.
 */
export function bastionOwnReads(home: string, daemonEntry: string | undefined): string[] {
  const own: string[] = [];
  const node = dirname(dirname(realpathSync(process.execPath)));
  own.push(node);
  if (daemonEntry !== undefined) {
    // The highest directory above the daemon's entry that holds a node_modules, below HOME.
    let root: string | undefined;
    for (let dir = dirname(realpathSync(daemonEntry)); dir !== dirname(dir); dir = dirname(dir)) {
      if (isAtOrUnder(home, dir)) break;
      if (existsSync(join(dir, 'node_modules'))) root = dir;
    }
    if (root !== undefined) own.push(root);
  }
  return own.filter((path) => isAtOrUnder(path, home) && path !== home);
}

/** The user's extra entries from `BASTION_HOME_READ_ALLOW`, as absolute paths under HOME. */
function extraEntries(home: string, value: string | undefined): string[] {
  return (value ?? '')
    .split(':')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => normalize(isAbsolute(entry) ? entry : join(home, entry)).replace(/(.)\/+$/, '$1'));
}

/**
 * Every allowlist entry with where it came from, whether it exists and, for one that may not be
 * used (HOME itself, holding or lying in a HOME secret: checkSandboxPolicy's own rule), why; for
 * doctor and the policy builders.
 */
export function listHomeReads(options: {
  home: string;
  env?: NodeJS.ProcessEnv;
  daemonEntry?: string;
}): HomeReadEntry[] {
  const { home } = options;
  const entries: { path: string; source: HomeReadSource }[] = [
    ...HOME_READ_ALLOWLIST.map((relative) => ({ path: join(home, relative), source: 'default' as const })),
    ...extraEntries(home, (options.env ?? process.env)[HOME_READ_ALLOW_ENV]).map(
      (path): { path: string; source: HomeReadSource } => ({ path, source: HOME_READ_ALLOW_ENV }),
    ),
    ...bastionOwnReads(home, options.daemonEntry).map((path) => ({ path, source: 'bastion' as const })),
  ];
  const seen = new Set<string>();
  return entries
    .filter((entry) => !seen.has(entry.path) && seen.add(entry.path))
    .map((entry) => {
      const problem = homeReadProblem(entry.path, home);
      return { ...entry, exists: existsSync(entry.path), ...(problem && { refused: problem.reason }) };
    });
}

/** The allowlisted paths that exist and may be used: the policies' `allowRead` under HOME. */
export function homeReadPaths(options: Parameters<typeof listHomeReads>[0]): string[] {
  return listHomeReads(options)
    .filter((entry) => entry.exists && entry.refused === undefined)
    .map((entry) => entry.path);
}

/** Directories on `path` (a PATH value) under HOME that no usable allowlist entry covers: unreadable in the sandbox. */
export function hiddenPathEntries(home: string, path: string, entries: readonly HomeReadEntry[]): string[] {
  const usable = entries.filter((entry) => entry.refused === undefined).map((entry) => entry.path);
  return [
    ...new Set(
      path
        .split(':')
        .filter((dir) => isAbsolute(dir) && isAtOrUnder(dir, home))
        .filter((dir) => !usable.some((root) => isAtOrUnder(dir, root))),
    ),
  ];
}
