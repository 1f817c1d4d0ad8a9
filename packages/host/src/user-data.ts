/**
 * SEC-004: userData (`--home`, BASTION_HOME or ~/.bastion) is the host's own secret dir (auth.json,
 * sessions.db and its WAL/SHM, endpoints.json, logs, scratch dirs). Everything Bastion keeps there is
 * private to its user: directories 0700, files 0600. Each start checks the tree and repairs any
 * entry with group or other bits (an older Bastion, a restored backup, a loose umask) by clearing
 * those bits only (the owner's stay: a script keeps its x), reporting each one; doctor reports the
 * same entries without changing them. A start adopts only a folder that is missing, empty or
 * already a Bastion home (HOME_NOT_BASTION otherwise, and always for the user's HOME), so a
 * mistaken `--home` never reaches the repair; an empty `--home` or a file is refused before.
 *
 * What it does not catch: the contents of a session's scratch dir (the agent's own working files,
 * whose modes commands may rely on: the 0700 scratch dirs above them keep them private); symlinks
 * (never followed or changed here; auth.json refuses to be one); another user with root.
 */
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { SCRATCH_DIR_NAME, SESSIONS_DB_FILE } from '@bastion/protocol';
import { HostError } from './errors.js';

/**
 * userData's absolute path: `--home` (`explicit`), else BASTION_HOME, else ~/.bastion. Every
 * command takes its home from here, so the home's path is checked here once for all of them: an
 * empty `--home` is refused (HOME_EMPTY: resolve('') would be the current folder), an empty
 * BASTION_HOME counts as unset, and a path that is, or lies below, a file is refused with
 * HOME_NOT_A_DIRECTORY naming it (instead of ENOTDIR/EEXIST from whichever use came first).
 */
export function resolveUserDataPath(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit === '') {
    throw new HostError('HOME_EMPTY', '--home was given an empty path: name a folder, or leave --home out');
  }
  const fromEnv = env.BASTION_HOME === '' ? undefined : env.BASTION_HOME;
  const chosen = explicit ?? fromEnv ?? join(homedir(), '.bastion');
  const path = isAbsolute(chosen) ? chosen : resolve(chosen);
  assertNoFileOnPath(path);
  return path;
}

/** HOME_NOT_A_DIRECTORY when `path`, or the nearest of its ancestors that exists, is not a directory. */
function assertNoFileOnPath(path: string): void {
  for (let at = path; ; at = dirname(at)) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(at).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Missing (made later) or below a file (found on the way up); anything else is the storage check's.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || at === dirname(at)) return;
      continue;
    }
    if (isDirectory) return;
    throw new HostError(
      'HOME_NOT_A_DIRECTORY',
      at === path
        ? `${path} is a file, not a folder: give --home (or BASTION_HOME) a folder or a new path`
        : `${path} cannot be a folder: ${at} is a file; give --home (or BASTION_HOME) a folder or a new path`,
    );
  }
}

export const USER_DATA_DIR_MODE = 0o700;
export const USER_DATA_FILE_MODE = 0o600;

/** An entry of userData readable or writable by group or others. */
export interface LooseUserDataEntry {
  /** Relative to userData; '.' is userData itself. */
  entry: string;
  kind: 'directory' | 'file';
  /** Its permission bits as found. */
  mode: number;
}

/**
 * Every directory and file under userData with group/other bits, without changing anything.
 * Scratch dirs are checked, not their contents; symlinks are not followed.
 */
export function findLooseUserDataEntries(path: string): LooseUserDataEntry[] {
  const loose: LooseUserDataEntry[] = [];
  /** `all`: check and descend; `children`: check the entries below, do not descend further; `self`: check only. */
  const visit = (relative: string, reach: 'all' | 'children' | 'self') => {
    // An entry removed between its directory's listing and this look (a SQLite -shm or -wal
    // another process closed, a temp file renamed into place) has nothing left to check.
    const stat = lstatSync(join(path, relative), { throwIfNoEntry: false });
    if (stat === undefined) return;
    const mode = stat.mode & 0o777;
    if (stat.isFile() && (mode & 0o077) !== 0) loose.push({ entry: relative, kind: 'file', mode });
    if (!stat.isDirectory()) return;
    if ((mode & 0o077) !== 0) loose.push({ entry: relative, kind: 'directory', mode });
    if (reach === 'self') return;
    for (const name of readdirSync(join(path, relative))) {
      // scratch/ and scratch/<session>/ are Bastion's; below them are the agent's working files.
      // host/mcp-data/ and host/mcp-data/<server>/ likewise; below them, each MCP server's own.
      const bastionsOnly =
        (relative === '.' && name === SCRATCH_DIR_NAME) ||
        (relative === HOST_ONLY_DIR_NAME && name === MCP_DATA_DIR_NAME);
      const below = reach === 'children' ? 'self' : bastionsOnly ? 'children' : 'all';
      visit(relative === '.' ? name : `${relative}/${name}`, below);
    }
  };
  visit('.', 'all');
  return loose;
}

/**
 * Clear an entry's group and other bits (the owner's are kept: 0755 becomes 0700, 0644 0600)
 * through a descriptor opened without following a symlink, and only if it is still the kind of
 * entry that was found (an entry swapped meanwhile is left alone).
 */
function tighten(target: string, kind: LooseUserDataEntry['kind']): void {
  const fd = openSync(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (kind === 'directory' ? stat.isDirectory() : stat.isFile()) {
      fchmodSync(fd, stat.mode & 0o700);
    }
  } finally {
    closeSync(fd);
  }
}

/** Create userData (0700) if needed and tighten every loose entry in it; returns its real path and what was repaired. */
/**
 * The host's own directory in userData (`host/`: policy.json): the sidecar's sandbox denies every
 * write beneath it, so what the host keeps there is the host's word even if the sidecar, which
 * owns the rest of userData, is compromised. It must exist before a sidecar starts (srt binds
 * what exists).
 */
export const HOST_ONLY_DIR_NAME = 'host';
/** The folder in `host/` that holds each MCP server's data folder (mcp-hub.ts). */
export const MCP_DATA_DIR_NAME = 'mcp-data';

export function hostOnlyDir(userData: string): string {
  return join(userData, HOST_ONLY_DIR_NAME);
}

/**
 * Where the host moves what it takes out of a workspace (placeholder-warden.ts,
 * git-created-repositories.ts): inside `host/`, which the sidecar cannot write, so a compromised
 * sidecar can neither plant a symlink there that the host would move files through nor read what
 * was moved.
 */
export function quarantineDir(userData: string): string {
  return join(hostOnlyDir(userData), 'quarantine');
}

const LEGACY_POLICY_FILE = 'policy.json';

/**
 * Make `host/` (0700) if it is missing. An older Bastion kept policy.json in userData itself: it
 * moves in once, when the directory is made, and never later (a file the sidecar could have
 * written there since is not taken for the host's). A `host` that is not a directory of this
 * user's (a symlink the sidecar planted before this version, say) is refused, not followed.
 */
function ensureHostOnlyDir(userData: string): void {
  const dir = hostOnlyDir(userData);
  try {
    mkdirSync(dir, { mode: USER_DATA_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const stat = lstatSync(dir);
    const ours = typeof process.getuid !== 'function' || stat.uid === process.getuid();
    if (!stat.isDirectory() || !ours) {
      throw new HostError(
        'USERDATA_HOST_DIR_INVALID',
        `${dir} is not a directory of this user's (a symbolic link or a file); remove it and start again`,
      );
    }
    return;
  }
  try {
    renameSync(join(userData, LEGACY_POLICY_FILE), join(dir, LEGACY_POLICY_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
/**
 * What every Bastion home holds from its first start on (`host/`, made by ensureUserData; before
 * it, policy.json and the rest), any of which marks a folder as one: a home from any earlier
 * version holds at least one of them.
 */
const BASTION_HOME_ENTRIES: ReadonlySet<string> = new Set([
  HOST_ONLY_DIR_NAME,
  LEGACY_POLICY_FILE,
  SESSIONS_DB_FILE,
  `${SESSIONS_DB_FILE}-wal`,
  `${SESSIONS_DB_FILE}-shm`,
  'host.lock',
  'host.sock',
  'logs',
  'auth.json',
  'endpoints.json',
  'preferences.json',
  'storage-reserve',
  SCRATCH_DIR_NAME,
  // The user's saved prompts (daemon/src/prompts/prompt-folder.ts), which a user may make first.
  'prompts',
]);

/**
 * HOME_NOT_BASTION unless `path` is missing, empty or already a Bastion home, and never the user's
 * HOME itself: a start tightens every mode under its home and writes its files there, which must
 * never happen to a project or to HOME given as `--home` by mistake.
 */
export function assertAdoptableUserData(path: string): void {
  let names: string[];
  try {
    names = readdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const notBastion = (why: string) =>
    new HostError(
      'HOME_NOT_BASTION',
      `${path} is not a Bastion data folder (${why}); pass an empty or new folder to --home (or BASTION_HOME)`,
    );
  if (sameDirectory(path, homedir())) throw notBastion('it is your home folder');
  if (names.length > 0 && !names.some((name) => BASTION_HOME_ENTRIES.has(name))) {
    throw notBastion('it holds other files');
  }
}

function sameDirectory(a: string, b: string): boolean {
  try {
    const [first, second] = [statSync(a), statSync(b)];
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false;
  }
}

export function ensureUserData(path: string): { path: string; repaired: LooseUserDataEntry[] } {
  assertAdoptableUserData(path);
  mkdirSync(path, { recursive: true, mode: USER_DATA_DIR_MODE });
  ensureHostOnlyDir(path);
  const repaired = findLooseUserDataEntries(path);
  for (const { entry, kind } of repaired) tighten(join(path, entry), kind);
  return { path: realpathSync(path), repaired };
}
