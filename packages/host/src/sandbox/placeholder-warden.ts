/**
 * SEC-004 (outer sandbox), issue 15 §3: nothing of Bastion's in the user's workspace. To deny
 * writing a path that does not exist yet, srt mounts a read-only placeholder on it, and bwrap must
 * first create that placeholder on the host: the user's `git status` lists `.vscode`, `.mcp.json`,
 * `.bashrc`… while a sandbox runs, `mkdir .vscode` fails, and a host killed with SIGKILL leaves them
 * behind. A bind mount needs a host-side mount point in a directory the host shares live, so the
 * placeholder cannot simply move elsewhere; the warden replaces it instead:
 *
 * - Inside a `.git` directory (hooks, config and the rest git-write-protections.ts denies) the
 *   placeholder stays: git never lists its own directory, and the deny stays strict (the write
 *   fails inside the sandbox). Each one is written to this host's journal first.
 * - Everywhere else srt makes no placeholder (`skipPlaceholder`, Bastion's patch to srt). For a
 *   run_command sandbox the warden guards the path, and the absent protected paths srt's list does
 *   not name (a new `.envrc`, AGENTS.md, CLAUDE.md: command-profile.ts), which the profile leaves
 *   undenied because every deny costs srt's wrap: a poll every WARDEN_POLL_INTERVAL_MS moves anything that
 *   appears there to `<userData>/host/quarantine/<batch>/<its absolute path>`, and after the command has
 *   ended (its PID namespace is then gone: nothing inside can recreate it) every guarded path is
 *   checked again. Moved, never deleted, and said so (the command's output, the host's log).
 *   The sidecar's sandbox lives as long as the session, while the user works in the same folder:
 *   moving whatever appears at `.vscode` or `.idea` then would take the user's own editor folders,
 *   so of its absent paths only those its launcher names are guarded, for its lifetime (a
 *   configured hooks directory, an included config file: srt-sidecar-launcher.ts); the rest are
 *   refused by its file tools (FS_PROTECTED).
 * - On start the warden reads the journals of hosts that are no longer running: their empty
 *   placeholders are removed (only an empty file or an empty directory: one that holds anything is
 *   someone's and stays), and their guarded paths are checked as above.
 *
 * What it does not catch: a compromised sidecar creating an absent `.vscode`, `.idea`, `.envrc`,
 * AGENTS.md or the like while it runs (srt's placeholder used to stop it, at the price above); a
 * process outside the
 * sandbox that reads a guarded path in the moment
 * between its creation inside and the poll moving it (at most WARDEN_POLL_INTERVAL_MS; a command's own
 * check at its end is the backstop, not a barrier); a file the user creates at a guarded path
 * while a command runs is moved too (the notice says where it went); a guarded directory swapped
 * for a symlink by a still-running sandbox is left alone (its parent no longer resolves to where
 * it was, so nothing is moved through the link).
 */
import {
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { z } from 'zod';
import { WARDEN_POLL_INTERVAL_MS, type Logger } from '@bastion/protocol';
import { isProcessRunning } from '../process-tree.js';
import { hostOnlyDir, quarantineDir } from '../user-data.js';

export interface QuarantineMove {
  from: string;
  to: string;
}

export interface AbsentPathGuard {
  /** srt's `skipPlaceholder`: true (and guarded) unless the path lies inside a `.git` directory. */
  skip(path: string): boolean;
  /** Guard an absent path the profile does not deny (so srt pays nothing for it); call before arm(). */
  add(path: string): void;
  /** Start polling every guarded path; call once the wrap is done. */
  arm(): void;
  /**
   * Move whatever is now at a guarded path to quarantine, and each of `created` (found after the
   * command: nested-protections.ts) whose directory holds no symlink on its way; returns the moves
   * (this one's and the poll's since the last call).
   */
  sweep(created?: readonly string[]): QuarantineMove[];
  close(): void;
}

export interface PlaceholderWarden {
  /** A guard for one command's sandbox. */
  guard(commandId: string): AbsentPathGuard;
  /** srt's `skipPlaceholder` for the sidecar's sandbox: placeholders inside `.git` only, nothing guarded. */
  sidecarSkip(path: string): boolean;
  /** The host stops: its sandboxes are gone, so is its journal. */
  close(): void;
}

/** A host's journal as it writes it: absolute paths only (a relative one would mean the reader's cwd). */
const journalSchema = z.strictObject({
  placeholders: z.array(z.string().refine(isAbsolute)),
  guarded: z.array(z.string().refine(isAbsolute)),
});
type Journal = z.infer<typeof journalSchema>;

/** A dead host's journal, checked: JSON of another shape is no journal and is never acted on. */
function readDeadHostJournal(
  file: string,
): { ok: true; journal: Journal } | { ok: false; reason: 'unreadable' | 'not-json' | 'wrong-shape' } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { ok: false, reason: 'unreadable' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not-json' };
  }
  const checked = journalSchema.safeParse(value);
  return checked.success ? { ok: true, journal: checked.data } : { ok: false, reason: 'wrong-shape' };
}

/** Inside `host/`: a journal the sidecar could write would make the next start move or remove any path it names. */
const JOURNAL_DIR = 'sandbox-journal';
const QUARANTINE_DIR = 'quarantine';

/** Does `path` lie inside a `.git` directory (not the `.git` entry itself)? */
export function insideGitDirectory(path: string): boolean {
  return dirname(path).split(sep).includes('.git');
}

function realDirectory(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Remove `path` only when it is still an empty regular file or an empty directory. */
function removeIfEmptyPlaceholder(path: string): void {
  try {
    const stats = lstatSync(path);
    if (stats.isFile() && stats.size === 0) unlinkSync(path);
    else if (stats.isDirectory() && readdirSync(path).length === 0) rmdirSync(path);
  } catch {
    // Gone already, or not ours to judge.
  }
}

export function createPlaceholderWarden(options: { userData: string; log: Logger }): PlaceholderWarden {
  const journals = join(hostOnlyDir(options.userData), JOURNAL_DIR);
  const quarantine = quarantineDir(options.userData);
  mkdirSync(journals, { recursive: true, mode: 0o700 });
  const ownJournal = join(journals, `${process.pid}.json`);
  const journal: Journal = { placeholders: [], guarded: [] };
  const record = (kind: keyof Journal, path: string) => {
    if (journal[kind].includes(path)) return;
    journal[kind].push(path);
    writeFileSync(ownJournal, JSON.stringify(journal), { mode: 0o600 });
  };

  /** Move `path` (whose directory must still be `parent`, really) into a fresh quarantine batch. */
  const move = (path: string, parent: string): QuarantineMove | undefined => {
    try {
      lstatSync(path);
    } catch {
      return undefined;
    }
    if (realDirectory(dirname(path)) !== parent) return undefined;
    const batch = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}`;
    const to = join(quarantine, batch, path);
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    try {
      renameSync(path, to);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      cpSync(path, to, { recursive: true, verbatimSymlinks: true });
      rmSync(path, { recursive: true, force: true });
    }
    return { from: path, to };
  };

  // The journals of hosts that died without stopping: their sandboxes died with them.
  for (const name of readdirSync(journals)) {
    const pid = Number(name.replace(/\.json$/, ''));
    if (!Number.isInteger(pid) || pid === process.pid || isProcessRunning(pid)) continue;
    const file = join(journals, name);
    const left = readDeadHostJournal(file);
    if (!left.ok) {
      // Cut short by the crash, or not a journal at all: nothing to sweep; it goes (below), unread.
      options.log.warn('sandbox.journal-skipped', { entry: `${JOURNAL_DIR}/${name}`, reason: left.reason });
    }
    const { placeholders, guarded } = left.ok ? left.journal : { placeholders: [], guarded: [] };
    for (const path of [...placeholders].sort((a, b) => b.length - a.length)) removeIfEmptyPlaceholder(path);
    let moved = 0;
    for (const path of guarded) {
      const parent = realDirectory(dirname(path));
      if (parent !== undefined && move(path, parent)) moved += 1;
    }
    if (moved > 0)
      options.log.warn('workspace.quarantined', { count: moved, reason: 'crashed-host', entry: QUARANTINE_DIR });
    try {
      rmSync(file, { force: true });
    } catch {
      // Not a file (a directory in its place): left, never followed; the next start says so again.
      options.log.warn('sandbox.journal-not-removed', { entry: `${JOURNAL_DIR}/${name}` });
    }
  }

  return {
    sidecarSkip(path) {
      if (!insideGitDirectory(path)) return true;
      record('placeholders', path);
      return false;
    },
    guard(commandId) {
      const guarded = new Map<string, string | undefined>();
      const timers: NodeJS.Timeout[] = [];
      const moves: QuarantineMove[] = [];
      const sweepOne = (path: string) => {
        const parent = guarded.get(path);
        if (parent === undefined) return;
        try {
          const moved = move(path, parent);
          if (moved) moves.push(moved);
        } catch {
          options.log.warn('workspace.quarantine-failed', { command_id: commandId });
        }
      };
      const add = (path: string) => {
        record('guarded', path);
        guarded.set(path, realDirectory(dirname(path)));
      };
      return {
        skip(path) {
          if (insideGitDirectory(path)) {
            record('placeholders', path);
            return false;
          }
          add(path);
          return true;
        },
        add,
        arm() {
          // Polled, not watched: a command renaming in a guarded directory in a tight loop would
          // otherwise flood the host's event loop with one watch callback per rename.
          const guardedPaths = [...guarded.keys()];
          const timer = setInterval(() => {
            for (const path of guardedPaths) sweepOne(path);
          }, WARDEN_POLL_INTERVAL_MS);
          timer.unref();
          timers.push(timer);
          // Whatever appeared between the wrap and the first poll.
          for (const path of guardedPaths) sweepOne(path);
        },
        sweep(created = []) {
          for (const path of guarded.keys()) sweepOne(path);
          for (const path of created) {
            // The workspace root is a real path: a directory that resolves to itself has no link on its way.
            if (!guarded.has(path)) guarded.set(path, dirname(path));
            sweepOne(path);
          }
          const done = moves.splice(0);
          if (done.length > 0)
            options.log.warn('workspace.quarantined', {
              count: done.length,
              command_id: commandId,
              entry: QUARANTINE_DIR,
            });
          return done;
        },
        close() {
          for (const timer of timers.splice(0)) clearInterval(timer);
        },
      };
    },
    close() {
      rmSync(ownJournal, { force: true });
    },
  };
}
