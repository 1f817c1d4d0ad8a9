/**
 * SEC-004, issue 16 §4: no debris of Bastion's in the user's workspace after a crash. A write goes
 * to a temp file beside its target (`.<name>.<hex>.bastion-tmp`, so the rename is atomic), and a
 * writer killed inside the write would leave it there for good. Each temp file is named in a
 * journal in userData's host-only directory (`host/pending-writes/<hex>.json`: its root and its
 * path in that root) before it is created, and forgotten once it is renamed or removed. The host
 * performs every workspace write (workspace-writes.ts), so the journal is the host's: the sidecar
 * cannot write `host/`, so it cannot forge an entry that would make the host remove a file. At
 * start the host removes the files its journal names: by that exact name, only a regular file,
 * only where the name resolves to itself (no symlink followed), through the same contained
 * resolution as every write. A file that merely looks like a temp file is the user's and stays.
 *
 * What it does not catch: the temp files of a root not granted in this start (their entries wait
 * for a start that grants it); an OS crash that loses a journal entry but keeps its temp file (the
 * entry is not fsynced: a killed process loses nothing the kernel already has).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, normalize } from 'node:path';
import { z } from 'zod';
import { removeWorkspaceFile, resolveWritable } from './workspace-files.js';

const JOURNAL_DIR = 'pending-writes';
const ENTRY_NAME = /^([0-9a-f]{12})\.json$/;
const entrySchema = z.strictObject({ root: z.string(), path: z.string() });

/** The temp file name of a write to `name`; `token` is its random part (12 hex digits). */
export function tempFileName(name: string, token: string): string {
  return `.${name}.${token}.bastion-tmp`;
}

export class TempFileJournal {
  readonly #dir: string;

  /** `hostDir` is userData's host-only directory (user-data.ts `hostOnlyDir`). */
  constructor(hostDir: string) {
    this.#dir = join(hostDir, JOURNAL_DIR);
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
  }

  /** Name a temp file (`path` relative to `root`) before it is created; returns how to forget it. */
  record(root: string, path: string, token: string): () => void {
    const entry = join(this.#dir, `${token}.json`);
    try {
      writeFileSync(entry, JSON.stringify({ root, path }), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // A full disk can refuse the bytes after the file was made: no half entry is left behind.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(entry, { force: true });
      throw error;
    }
    return () => rmSync(entry, { force: true });
  }

  /** Remove every temp file a dead writer left in a root granted now (real paths); returns how many were removed. */
  sweep(roots: readonly string[]): number {
    let removed = 0;
    for (const name of readdirSync(this.#dir)) {
      const token = ENTRY_NAME.exec(name)?.[1];
      const entry = join(this.#dir, name);
      const parsed = token === undefined ? undefined : readEntry(entry);
      if (token === undefined || parsed === undefined) {
        rmSync(entry, { force: true });
        continue;
      }
      if (!roots.includes(parsed.root)) continue;
      const path = normalize(parsed.path);
      // Only a name of our own making, for this very entry.
      if (!basename(path).endsWith(`.${token}.bastion-tmp`) || !basename(path).startsWith('.')) {
        rmSync(entry, { force: true });
        continue;
      }
      try {
        const target = resolveWritable(parsed.root, path);
        // A name that resolves elsewhere went through a symlink: not the file we made.
        if (target.relative === path && existsSync(target.real)) {
          removeWorkspaceFile(target);
          removed += 1;
        }
      } catch {
        // Outside the root, gone with its directory, or no longer a regular file: nothing of ours to remove.
      }
      rmSync(entry, { force: true });
    }
    return removed;
  }
}

function readEntry(file: string): z.infer<typeof entrySchema> | undefined {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Cut short by the crash: there was no temp file yet.
    return undefined;
  }
}
