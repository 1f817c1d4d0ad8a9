/**
 * SEC-004, issue 16 §4: nothing of this host's left in the system temp dir after a crash. srt
 * makes its sockets and directories in os.tmpdir() (`claude-http-*.sock`, `srt-mux-*.sock`,
 * `claude-empty-*`, …), and so do the sidecar's private temp dir and each command's; a host
 * killed with SIGKILL left them all behind. Every host therefore claims one directory
 * `<tmpdir>/bastion-<uid>/bastion-host-<16 hex>` (0700), named in its home's
 * `<userData>/host/temp-journal/` before it is created, and makes the sidecar's, the commands' and
 * the MCP servers' private temp dirs in it. A host that owns its process (the CLI) journals it as
 * `<pid>.json` and also points this process's TMPDIR at it, so what srt and Node make lands inside
 * too; an in-process host (tests, embedders: several can share a process) journals it as
 * `<pid>-<16 hex>.json` and leaves TMPDIR alone. Stop removes it (and gives TMPDIR back); the next
 * start on the same home removes the ones journaled by hosts of processes no longer running. The
 * journal is in the host's own directory, which the sidecar's sandbox cannot write; even so an
 * entry is never trusted to name anything but a directory of exactly that name form, directly in
 * the parent, owned by this user.
 *
 * Every root of this user's hosts lies in the one parent `bastion-<uid>` (0700, this user's, never
 * removed), so every sandbox (the sidecar's, a command's, an MCP server's) hides them all with one
 * read deny over a directory that always exists (bastion-temp-denies.ts): roots come and go with
 * every host, and a deny of each one failed a command whose sandbox mounted over a root removed a
 * moment before. A parent that is not a directory of this user's with no group or
 * other access is refused (HOST_TEMP_UNSAFE).
 * Programs the host opens for the user (the browser) get the user's own TMPDIR back
 * (userEnvironment()).
 *
 * What it does not catch: the directory of a host whose home is never started again (it stays
 * until then, or until the system clears its temp dir); what srt or a command makes outside
 * os.tmpdir() (`/dev/shm`: srt's bwrap argument file there is unnamed, O_TMPFILE, and dies with
 * its descriptors); what srt makes for an in-process host's process, in the process's own temp dir.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { HostError } from '../errors.js';
import { isProcessRunning } from '../process-tree.js';

/** The journal's directory in the host's own directory of userData. */
export const HOST_TEMP_JOURNAL_DIR = 'temp-journal';
/** A claimed root's name, directly in the parent. */
export const HOST_TEMP_ROOT_NAME = /^bastion-host-[0-9a-f]{16}$/;
/** The parent's name: `bastion-<uid>` (bastion-temp-denies.ts denies it whole). */
export const HOST_TEMP_PARENT_NAME = /^bastion-[0-9]+$/;

/** `<systemTemp>/bastion-<uid>`, where this user's hosts claim their roots. */
function parentOf(systemTemp: string): string {
  return join(systemTemp, `bastion-${process.getuid?.() ?? 0}`);
}

/**
 * `<systemTemp>/bastion-<uid>`, made 0700 when missing; refused unless it is a directory of this
 * user's with no group or other access. Also made beside a private temp dir made outside any root
 * (a command executor built without a host, in tests), whose sandbox read-denies it all the same
 * (bastion-temp-denies.ts).
 */
export function ensureHostTempParent(systemTemp: string): string {
  const parent = parentOf(systemTemp);
  try {
    mkdirSync(parent, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stats = lstatSync(parent);
  if (!stats.isDirectory() || stats.uid !== process.getuid?.() || (stats.mode & 0o077) !== 0) {
    throw new HostError(
      'HOST_TEMP_UNSAFE',
      `${parent} is not a private directory of this user's (mode 0700): remove it, and start again`,
    );
  }
  return parent;
}

/**
 * A journal entry's `path`, when the text is exactly `{"path": <string>}` (what claimHostTempRoot
 * writes). Checked by hand rather than with zod: the CLI's entry claims the root before it loads
 * the rest (host-start-prelude.ts), and zod would be most of what it loads first.
 */
function journaledPath(text: string): string | undefined {
  const entry: unknown = JSON.parse(text);
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const keys = Object.keys(entry);
  const path = (entry as { path?: unknown }).path;
  return keys.length === 1 && keys[0] === 'path' && typeof path === 'string' ? path : undefined;
}

export interface HostTempRoot {
  readonly path: string;
  /** How many temp roots of dead hosts of this home the claim removed (the host logs it). */
  readonly swept: number;
  /** Remove the directory and everything in it, forget its journal entry, give TMPDIR back. */
  release(): void;
}

/** TMPDIR as this process had it before a host claimed its own (undefined: none claimed). */
let userTmpdir: { value: string | undefined } | undefined;

/** The environment for programs started on the user's behalf: with the user's own TMPDIR. */
export function userEnvironment(): NodeJS.ProcessEnv {
  if (!userTmpdir) return process.env;
  const env = { ...process.env };
  if (userTmpdir.value === undefined) delete env.TMPDIR;
  else env.TMPDIR = userTmpdir.value;
  return env;
}

/** A journal entry's name: `<pid>.json` (a process's host), or `<pid>-<16 hex>.json` (an in-process host's). */
const JOURNAL_NAME = /^([0-9]+)(?:-[0-9a-f]{16})?\.json$/;

/** Remove the temp roots journaled by hosts of this home that are no longer running; returns how many. */
function sweepDeadHosts(journals: string, parent: string): number {
  let removed = 0;
  for (const name of readdirSync(journals)) {
    const pid = Number(JOURNAL_NAME.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isProcessRunning(pid)) continue;
    const file = join(journals, name);
    let path: string | undefined;
    try {
      path = journaledPath(readFileSync(file, 'utf8'));
    } catch {
      // Cut short by the crash: the directory was not made yet.
    }
    if (path !== undefined && dirname(path) === parent && HOST_TEMP_ROOT_NAME.test(basename(path))) {
      try {
        const stats = lstatSync(path);
        if (stats.isDirectory() && stats.uid === process.getuid?.()) {
          rmSync(path, { recursive: true, force: true });
          removed += 1;
        }
      } catch {
        // Already gone (the system cleared its temp dir).
      }
    }
    rmSync(file, { force: true });
  }
  return removed;
}

/**
 * Remove what dead hosts of the home whose host directory is `hostDir` left in the system temp dir,
 * as the next host start there would; returns how many. For a home about to be deleted (a test's).
 */
export function sweepDeadHostTempRoots(hostDir: string): number {
  const journals = join(hostDir, HOST_TEMP_JOURNAL_DIR);
  return existsSync(journals) ? sweepDeadHosts(journals, parentOf(tmpdir())) : 0;
}

/**
 * Sweep what dead hosts of this home left in the system temp dir (their journal is in `hostDir`,
 * the host's own directory in userData), then claim this host's own temp root. With `ownsProcess`
 * TMPDIR is pointed at it (one such claim a process); without, the host makes its temp dirs there
 * itself and the process's TMPDIR is left as it is.
 */
export function claimHostTempRoot(hostDir: string, options: { ownsProcess: boolean }): HostTempRoot {
  if (options.ownsProcess && userTmpdir) {
    throw new HostError('HOST_TEMP_CLAIMED', 'this process already has a host temp root');
  }
  const parent = ensureHostTempParent(tmpdir());
  const journals = join(hostDir, HOST_TEMP_JOURNAL_DIR);
  mkdirSync(journals, { recursive: true, mode: 0o700 });
  const swept = sweepDeadHosts(journals, parent);
  const hex = randomBytes(8).toString('hex');
  const path = join(parent, `bastion-host-${hex}`);
  const journal = join(journals, options.ownsProcess ? `${process.pid}.json` : `${process.pid}-${hex}.json`);
  writeFileSync(journal, JSON.stringify({ path }), { mode: 0o600 });
  try {
    // Exclusive: a name someone else made first fails here instead of being shared.
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    rmSync(journal, { force: true });
    throw error;
  }
  if (options.ownsProcess) {
    userTmpdir = { value: process.env.TMPDIR };
    process.env.TMPDIR = path;
  }
  let released = false;
  return {
    path,
    swept,
    release() {
      if (released) return;
      released = true;
      if (options.ownsProcess) {
        if (userTmpdir?.value === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = userTmpdir.value;
        userTmpdir = undefined;
      }
      rmSync(path, { recursive: true, force: true });
      rmSync(journal, { force: true });
    },
  };
}
