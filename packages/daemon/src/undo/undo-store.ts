/**
 * Undo's records in sessions.db (`undo_files`, `runs.undone_at`): for each file a run wrote with
 * write_file/edit_file, what it held before the run's first change and what the run left. Kept
 * bytes are bounded per file (UNDO_MAX_FILE_BYTES) and per session (UNDO_MAX_SESSION_BYTES): a
 * copy that would go beyond the session's budget prunes the oldest runs' copies first, whole runs
 * at a time, and a copy that does not fit even then is not kept (its file is then not undoable).
 * Each change is one transaction, committed before the file itself is written.
 */
import { UNDO_MAX_FILE_BYTES, UNDO_MAX_SESSION_BYTES, type RunStatus } from '@bastion/protocol';
import type { SqliteDatabase } from '../storage/database.js';
import type { StoreWriter } from '../storage/store-writer.js';
import type { FileFingerprint } from '../workspaces/file-access.js';

/** What a file held before its run's first change, as kept. */
export type PriorState = 'file' | 'absent' | 'too-large' | 'pruned';

export interface KeptFile {
  root: string;
  /** Real path relative to `root`. */
  path: string;
  prior: PriorState;
  priorBytes: Buffer | null;
  priorSha256: string | null;
  /** Directories the run's first write of it created on the way (relative to `root`, outermost first). */
  createdDirs: string[];
  /** What the run left; null when it is not known (the write's record or the end-of-run check did not happen). */
  after: FileFingerprint | null;
}

export interface UndoLimits {
  maxFileBytes: number;
  maxSessionBytes: number;
}

export interface RunRecord {
  sessionId: string;
  status: RunStatus;
  undoneAt: string | null;
}

interface KeptRow {
  root: string;
  path: string;
  prior: PriorState;
  prior_bytes: Buffer | null;
  prior_sha256: string | null;
  after_size: number | null;
  after_sha256: string | null;
  created_dirs: string | null;
}

export class UndoStore {
  readonly #db: SqliteDatabase;
  /** The sessions store's writer: each write commits its open group of events first. */
  readonly #writer: StoreWriter;
  readonly #limits: UndoLimits;

  constructor(writer: StoreWriter, options: { limits?: Partial<UndoLimits> } = {}) {
    this.#db = writer.db;
    this.#writer = writer;
    this.#limits = {
      maxFileBytes: options.limits?.maxFileBytes ?? UNDO_MAX_FILE_BYTES,
      maxSessionBytes: options.limits?.maxSessionBytes ?? UNDO_MAX_SESSION_BYTES,
    };
  }

  get limits(): UndoLimits {
    return this.#limits;
  }

  /** Whether the run already keeps the file's earlier state (only its first change is kept). */
  has(runId: string, root: string, path: string): boolean {
    return (
      this.#db
        .prepare<[string, string, string], { one: number }>(
          'SELECT 1 AS one FROM undo_files WHERE run_id = ? AND root = ? AND path = ?',
        )
        .get(runId, root, path) !== undefined
    );
  }

  /**
   * Keep what a file held before its run's first change: its bytes, or that there was none, or
   * that it was too large. Bytes beyond the session's budget prune older runs' copies first.
   */
  keep(
    input: { sessionId: string; runId: string; root: string; path: string; createdDirs?: readonly string[] },
    prior: { kind: 'file'; bytes: Buffer; sha256: string } | { kind: 'absent' } | { kind: 'too-large' },
  ): void {
    this.#writer.write(() => {
      let state: PriorState = prior.kind;
      if (prior.kind === 'file' && !this.#makeRoom(input.sessionId, input.runId, prior.bytes.length)) {
        state = 'too-large';
      }
      const bytes = state === 'file' && prior.kind === 'file' ? prior.bytes : null;
      this.#db
        .prepare(
          `INSERT INTO undo_files (session_id, run_id, root, path, prior, prior_bytes, prior_sha256, created_dirs, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          input.sessionId,
          input.runId,
          input.root,
          input.path,
          state,
          bytes,
          bytes === null || prior.kind !== 'file' ? null : prior.sha256,
          input.createdDirs?.length ? JSON.stringify(input.createdDirs) : null,
          this.#writer.now(),
        );
    });
  }

  /**
   * Whether `size` more bytes fit the session's budget, pruning the oldest other runs' copies
   * (whole runs, oldest first) until they do. False when even that is not enough: nothing of the
   * current run is ever pruned for its own later files.
   */
  #makeRoom(sessionId: string, runId: string, size: number): boolean {
    if (size > this.#limits.maxFileBytes) return false;
    if (this.keptBytes(sessionId, runId) + size > this.#limits.maxSessionBytes) return false;
    while (this.keptBytes(sessionId) + size > this.#limits.maxSessionBytes) {
      const oldest = this.#db
        .prepare<[string, string], { run_id: string }>(
          `SELECT u.run_id FROM undo_files u JOIN runs r ON r.id = u.run_id
           WHERE u.session_id = ? AND u.run_id != ? AND u.prior_bytes IS NOT NULL
           ORDER BY r.n LIMIT 1`,
        )
        .get(sessionId, runId);
      if (!oldest) return false;
      this.#db
        .prepare(`UPDATE undo_files SET prior = 'pruned', prior_bytes = NULL, prior_sha256 = NULL WHERE run_id = ?`)
        .run(oldest.run_id);
    }
    return true;
  }

  /** What the run left in a file it wrote (after each write, and again when the run ends). */
  recordAfter(runId: string, root: string, path: string, after: FileFingerprint | null): void {
    this.#writer.write(() =>
      this.#db
        .prepare('UPDATE undo_files SET after_size = ?, after_sha256 = ? WHERE run_id = ? AND root = ? AND path = ?')
        .run(after?.size ?? null, after?.sha256 ?? null, runId, root, path),
    );
  }

  /** A write that failed left the old bytes: the copy kept for it alone goes. */
  forget(runId: string, root: string, path: string): void {
    this.#writer.write(() =>
      this.#db.prepare('DELETE FROM undo_files WHERE run_id = ? AND root = ? AND path = ?').run(runId, root, path),
    );
  }

  /** The run's files in the order it first wrote them. */
  files(runId: string): KeptFile[] {
    return this.#db
      .prepare<[string], KeptRow>(
        `SELECT root, path, prior, prior_bytes, prior_sha256, after_size, after_sha256, created_dirs
         FROM undo_files WHERE run_id = ? ORDER BY id`,
      )
      .all(runId)
      .map((row) => ({
        root: row.root,
        path: row.path,
        prior: row.prior,
        priorBytes: row.prior_bytes,
        priorSha256: row.prior_sha256,
        createdDirs: row.created_dirs === null ? [] : (JSON.parse(row.created_dirs) as string[]),
        after: row.after_size === null ? null : { size: row.after_size, sha256: row.after_sha256 },
      }));
  }

  run(runId: string): RunRecord | undefined {
    const row = this.#db
      .prepare<[string], { session_id: string; status: RunStatus; undone_at: string | null }>(
        'SELECT session_id, status, undone_at FROM runs WHERE id = ?',
      )
      .get(runId);
    return row ? { sessionId: row.session_id, status: row.status, undoneAt: row.undone_at } : undefined;
  }

  /** The ids of `runId` and the session's later runs, newest first, with whether each was undone. */
  runsFrom(sessionId: string, runId: string): { id: string; undone: boolean }[] {
    return this.#writer.read(() =>
      this.#db
        .prepare<[string, string], { id: string; undone_at: string | null }>(
          `SELECT id, undone_at FROM runs
           WHERE session_id = ? AND n >= (SELECT n FROM runs WHERE id = ?) ORDER BY n DESC`,
        )
        .all(sessionId, runId)
        .map((row) => ({ id: row.id, undone: row.undone_at !== null })),
    );
  }

  /** Commands the run ran (its run_command calls the watchdog's audit log saw run or fail while running). */
  commandsRun(runId: string): number {
    return this.#writer.read(
      () =>
        this.#db
          .prepare<[string], { count: number }>(
            `SELECT COUNT(*) AS count FROM tool_audit
             WHERE run_id = ? AND tool_name = 'run_command' AND outcome IN ('ran', 'failed')`,
          )
          .get(runId)?.count ?? 0,
    );
  }

  /**
   * For each file the session's runs wrote, what it held before the first of them (that run's kept
   * record), in the order they first wrote it: runs undone do not count, except for a file whose
   * earlier version they did not keep, which their undo could not put back.
   */
  sessionFiles(sessionId: string): Pick<KeptFile, 'root' | 'path' | 'prior' | 'priorBytes'>[] {
    return this.#writer.read(() =>
      this.#db
        .prepare<[string], Pick<KeptRow, 'root' | 'path' | 'prior' | 'prior_bytes'>>(
          `SELECT u.root, u.path, u.prior, u.prior_bytes FROM undo_files u
           WHERE u.id IN (SELECT MIN(v.id) FROM undo_files v JOIN runs w ON w.id = v.run_id
                          WHERE v.session_id = ? AND (w.undone_at IS NULL OR v.prior IN ('too-large', 'pruned'))
                          GROUP BY v.root, v.path)
           ORDER BY u.id`,
        )
        .all(sessionId)
        .map((row) => ({ root: row.root, path: row.path, prior: row.prior, priorBytes: row.prior_bytes })),
    );
  }

  /** Commands the session's runs not undone ran, as commandsRun counts them. */
  sessionCommands(sessionId: string): number {
    return this.#writer.read(
      () =>
        this.#db
          .prepare<[string], { count: number }>(
            `SELECT COUNT(*) AS count FROM tool_audit a JOIN runs r ON r.id = a.run_id
             WHERE r.session_id = ? AND r.undone_at IS NULL
               AND a.tool_name = 'run_command' AND a.outcome IN ('ran', 'failed')`,
          )
          .get(sessionId)?.count ?? 0,
    );
  }

  /** Bytes the session keeps now, or only those of one of its runs. */
  keptBytes(sessionId: string, runId?: string): number {
    const row =
      runId === undefined
        ? this.#db
            .prepare<[string], { used: number }>(
              'SELECT COALESCE(SUM(LENGTH(prior_bytes)), 0) AS used FROM undo_files WHERE session_id = ?',
            )
            .get(sessionId)
        : this.#db
            .prepare<[string, string], { used: number }>(
              'SELECT COALESCE(SUM(LENGTH(prior_bytes)), 0) AS used FROM undo_files WHERE session_id = ? AND run_id = ?',
            )
            .get(sessionId, runId);
    return row?.used ?? 0;
  }

  /**
   * Mark the run undone and drop its copies (freeing the session's budget; the records of files it
   * kept no copy of stay, holding no bytes), together with
   * `alsoInTransaction` (the transcript's record of the undo), in one transaction.
   */
  markUndone(runId: string, alsoInTransaction: () => void): void {
    this.#writer.write(() => {
      this.#db.prepare('UPDATE runs SET undone_at = ? WHERE id = ?').run(this.#writer.now(), runId);
      // A file whose earlier version was not kept still holds what the run left: its record stays
      // (it holds no bytes) so that the session's changes still list it (sessionFiles).
      this.#db.prepare(`DELETE FROM undo_files WHERE run_id = ? AND prior NOT IN ('too-large', 'pruned')`).run(runId);
      alsoInTransaction();
    });
  }
}
