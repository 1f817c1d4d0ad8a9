/**
 * Runs and the event log in sessions.db: each run of the agent (status, provider and model, how
 * it ended, its token usage) and the ordered stream of events a client reads and resumes from.
 * Events are group-committed (store-writer.ts): a client may see an event only after afterCommit
 * says it is durable. A finished run's deltas are folded into its messages' text (delta-fold.ts).
 */
import type { ModelMessage } from 'ai';
import {
  STORE_FOLD_RECLAIM_MIN_BYTES,
  type AgentEvent,
  type AgentStreamEvent,
  type RunStatus,
  type TokenUsage,
} from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import type { Approvals } from './approvals.js';
import {
  bytesThroughMarks,
  FoldedTextReader,
  foldRunDeltas,
  type DeltaBytes,
  type ReplayedEvent,
  type StoredEventRow,
} from './delta-fold.js';
import type { SqliteDatabase } from './database.js';
import { newId } from './ids.js';
import type { Page } from './page.js';
import type { StoreWriter } from './store-writer.js';
import type { PromptImage, Transcript } from './transcript.js';

export interface StartedRun {
  runId: string;
  messageId: string | null;
  event: AgentStreamEvent;
}

export type FinalRunStatus = Exclude<RunStatus, 'running'>;

export interface UsageColumns {
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  cost_usd: number | null;
}

export function toTokenUsage(row: UsageColumns): TokenUsage {
  return {
    input_tokens: row.input_tokens ?? 0,
    output_tokens: row.output_tokens ?? 0,
    cached_input_tokens: row.cached_input_tokens ?? 0,
    ...(row.cost_usd === null ? {} : { cost_usd: row.cost_usd }),
  };
}

/**
 * Remove a run's tool-output-delta events, which the UI needed only while their commands ran (each
 * tool-result holds the whole output); the bytes of stored JSON freed.
 */
function dropOutputDeltas(db: SqliteDatabase, runId: string): number {
  const where = `run_id = ? AND type = 'tool-output-delta'`;
  const { bytes } = db
    .prepare<[string], { bytes: number }>(
      `SELECT COALESCE(SUM(length(data)), 0) AS bytes FROM message_parts WHERE ${where}`,
    )
    .get(runId) ?? { bytes: 0 };
  if (bytes > 0) db.prepare(`DELETE FROM message_parts WHERE ${where}`).run(runId);
  return bytes;
}

export class RunLog {
  readonly #writer: StoreWriter;
  readonly #transcript: Transcript;
  readonly #approvals: Approvals;
  readonly #insertPart;

  constructor(writer: StoreWriter, transcript: Transcript, approvals: Approvals) {
    this.#writer = writer;
    this.#transcript = transcript;
    this.#approvals = approvals;
    this.#insertPart = writer.db.prepare<[string, string, string, string, string]>(
      'INSERT INTO message_parts (session_id, run_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)',
    );
  }

  /**
   * Create a running run, its user message (if any) and the run-started event in one
   * transaction. Throws RUN_ACTIVE if the session already has a running run.
   */
  start(
    sessionId: string,
    input: {
      userContent?: ModelMessage[] | undefined;
      /** The images the prompt (the first of `userContent`) names. */
      images?: readonly PromptImage[];
      provider: string;
      model: string;
    },
  ): StartedRun {
    return this.#writer.write((): StartedRun => {
      const runId = newId('run');
      const now = this.#writer.now();
      try {
        this.#writer.db
          .prepare(
            `INSERT INTO runs (id, session_id, status, provider, model, started_at) VALUES (?, ?, 'running', ?, ?, ?)`,
          )
          .run(runId, sessionId, input.provider, input.model, now);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new DaemonError('RUN_ACTIVE', 'a run is already active for this session', { cause: error });
        }
        throw error;
      }
      const messageIds = this.#transcript.append(sessionId, runId, input.userContent ?? []);
      const messageId = messageIds[0] ?? null;
      if (messageId !== null && input.images !== undefined)
        this.#transcript.saveImages(sessionId, messageId, input.images);
      const event = this.appendEvent(sessionId, {
        type: 'run-started',
        run_id: runId,
        session_id: sessionId,
        message_id: messageId,
        provider: input.provider,
        model: input.model,
      });
      // A session with a run is someone's: never removed as untouched.
      this.#writer.db.prepare('UPDATE sessions SET updated_at = ?, provisional = 0 WHERE id = ?').run(now, sessionId);
      return { runId, messageId, event };
    });
  }

  /**
   * Persist one event; its id orders the session's stream. Outside another transaction it joins
   * the open group of appended events, committed within STORE_GROUP_COMMIT_MS or before any other
   * write or read of events. Use afterCommit() to act on an event only once it is durable: a
   * client must never see an id that a crash could take back and reuse.
   */
  appendEvent(sessionId: string, event: AgentEvent): AgentStreamEvent {
    return this.#writer.append(() => {
      const result = this.#insertPart.run(
        sessionId,
        event.run_id,
        event.type,
        JSON.stringify(event),
        this.#writer.now(),
      );
      return { id: Number(result.lastInsertRowid), event };
    });
  }

  /** Run `callback` once every event appended so far is committed (now, if it already is). */
  afterCommit(callback: () => void): void {
    this.#writer.afterCommit(callback);
  }

  /**
   * Call `listener` whenever a group of appended events fails to commit (a full or read-only disk,
   * a damaged page): the group was rolled back whole and none of its events was ever published.
   */
  onGroupLost(listener: (error: unknown) => void): void {
    this.#writer.onGroupLost(listener);
  }

  /** Commit the events appended so far now, rather than when their group's time is up. */
  commit(): void {
    this.#writer.commit();
  }

  /**
   * Give freed pages and the WAL's unused file space back to the disk, as far as the disk allows
   * (never throws); after a failed write the WAL may hold the space the failed transaction took.
   */
  releaseUnusedSpace(): void {
    this.#writer.commit();
    try {
      this.#reclaim();
    } catch {
      // A full disk may not take the checkpoint either; the file and the WAL then keep their size.
    }
  }

  /**
   * End a run and persist its final event together, folding the run's deltas into references to
   * its messages' text (delta-fold.ts). Aborting cancels the session's pending approvals.
   */
  finish(
    sessionId: string,
    runId: string,
    status: FinalRunStatus,
    final: Extract<AgentEvent, { type: 'run-finished' | 'run-error' }>,
  ): AgentStreamEvent {
    const db = this.#writer.db;
    const { event, freed } = this.#writer.write(() => {
      const now = this.#writer.now();
      db.prepare(
        `UPDATE runs SET status = ?, finish_reason = ?, error_code = ?, ended_at = ? WHERE id = ? AND status = 'running'`,
      ).run(
        status,
        final.type === 'run-finished' ? final.finish_reason : null,
        final.type === 'run-error' ? final.code : null,
        now,
        runId,
      );
      if (status === 'aborted') this.#approvals.cancelPending(sessionId);
      db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(now, sessionId);
      const freed = dropOutputDeltas(db, runId) + foldRunDeltas(db, runId);
      return { event: this.appendEvent(sessionId, final), freed };
    });
    // Best effort: the final event is committed, whether or not the disk takes the checkpoint.
    if (freed >= STORE_FOLD_RECLAIM_MIN_BYTES && !db.inTransaction) this.releaseUnusedSpace();
    return event;
  }

  /** Give the pages a fold freed back to the file system and cut the WAL file back. */
  #reclaim(): void {
    this.#writer.db.pragma('incremental_vacuum');
    this.#writer.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * At start-up: runs left `running` by a sidecar that died are marked `interrupted`, each with a
   * run-error event, so a reconnecting client sees how they ended.
   */
  interruptStale(): number {
    return this.#writer.write(() => {
      const stale = this.#writer.db
        .prepare<[], { id: string; session_id: string }>(`SELECT id, session_id FROM runs WHERE status = 'running'`)
        .all();
      for (const run of stale) {
        this.finish(run.session_id, run.id, 'interrupted', {
          type: 'run-error',
          run_id: run.id,
          code: 'RUN_INTERRUPTED',
          message: 'the agent stopped before the run finished',
        });
      }
      return stale.length;
    });
  }

  /**
   * Add one model call's usage to its run; `contextTokens` (a step's input plus output) replaces
   * the run's last context size. A summary call gives none and leaves it as it is.
   */
  recordStepUsage(
    runId: string,
    step: {
      input: number;
      output: number;
      cached: number;
      costUsd: number | undefined;
      contextTokens: number | undefined;
    },
  ): void {
    this.#writer.write(() =>
      this.#writer.db
        .prepare(
          `UPDATE runs SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
             cached_input_tokens = cached_input_tokens + ?,
             cost_usd = CASE WHEN ? IS NULL THEN cost_usd ELSE COALESCE(cost_usd, 0) + ? END,
             context_tokens = COALESCE(?, context_tokens)
           WHERE id = ?`,
        )
        .run(
          step.input,
          step.output,
          step.cached,
          step.costUsd ?? null,
          step.costUsd ?? null,
          step.contextTokens ?? null,
          runId,
        ),
    );
  }

  usage(runId: string): TokenUsage | undefined {
    const row = this.#writer.db
      .prepare<[string], UsageColumns>(
        'SELECT input_tokens, output_tokens, cached_input_tokens, cost_usd FROM runs WHERE id = ?',
      )
      .get(runId);
    return row ? toTokenUsage(row) : undefined;
  }

  /** The context size the run's last measured step ended with, if a step reported usage. */
  contextTokens(runId: string): number | undefined {
    const row = this.#writer.db
      .prepare<[string], { context_tokens: number | null }>('SELECT context_tokens FROM runs WHERE id = ?')
      .get(runId);
    return row?.context_tokens ?? undefined;
  }

  status(runId: string): RunStatus | undefined {
    const row = this.#writer.db
      .prepare<[string], { status: RunStatus }>('SELECT status FROM runs WHERE id = ?')
      .get(runId);
    return row?.status;
  }

  /**
   * The page of a session's events just before `beforeId` (the newest when undefined), oldest
   * first within it: a reader pages back from the end. When older events remain, the page is
   * trimmed to start at its oldest `run-started`, so a run is cut in two only when it alone is
   * longer than `limit`; `next` is then the id the page starts at.
   */
  eventsBefore(sessionId: string, beforeId: number | undefined, limit: number): Page<AgentStreamEvent> {
    return this.#writer.read(() => {
      const rows = this.#writer.db
        .prepare<[string, number, number], StoredEventRow & { type: string }>(
          `SELECT id, type, data, ref_message, ref_part, ref_start, ref_bytes, ref_run_offset FROM message_parts
           WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
        )
        .all(sessionId, beforeId ?? Number.MAX_SAFE_INTEGER, limit + 1);
      const older = rows.length > limit;
      let page = rows.slice(0, limit).reverse();
      const runStart = page.findIndex((row) => row.type === 'run-started');
      if (older && runStart > 0) page = page.slice(runStart);
      const first = page[0];
      const folded = new FoldedTextReader(this.#writer.db);
      return {
        // folded deltas come back whole, with their text (a page is read from its start, never resumed)
        items: page.map((row) => {
          const { id, event } = folded.entryOf(row);
          return { id, event };
        }),
        next: older && first ? String(first.id) : null,
      };
    });
  }

  /** Events of a session with id > `afterId`, oldest first; folded ones say where their text lies. */
  eventsAfter(sessionId: string, afterId: number, limit: number): ReplayedEvent[] {
    return this.#writer.read(() => {
      const folded = new FoldedTextReader(this.#writer.db);
      return this.#writer.db
        .prepare<[string, number, number], StoredEventRow>(
          `SELECT id, data, ref_message, ref_part, ref_start, ref_bytes, ref_run_offset FROM message_parts
           WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`,
        )
        .all(sessionId, afterId, limit)
        .map((row) => folded.entryOf(row));
    });
  }

  /**
   * The bytes of each kind of delta of event `id`'s run up to and including it: what a client
   * whose cursor is `id` has of that run. A delta folded since is found in the marks of the event
   * that stands for it (delta-fold.ts). Undefined when the session has no such event and no folded
   * event covers it (a tool-output delta dropped after its run, or a fold older than the marks).
   */
  deltaBytesThrough(sessionId: string, id: number): DeltaBytes | undefined {
    return this.#writer.read(() => {
      const db = this.#writer.db;
      const row = db
        .prepare<[string, number], { run_id: string }>(
          'SELECT run_id FROM message_parts WHERE session_id = ? AND id = ?',
        )
        .get(sessionId, id);
      let runId = row?.run_id;
      /** The covering folded event's kind, and the bytes of its deltas up to `id`. */
      let within: { type: string; bytes: number } | undefined;
      if (runId === undefined) {
        const next = db
          .prepare<[string, number], { run_id: string; type: string; ref_marks: string | null }>(
            'SELECT run_id, type, ref_marks FROM message_parts WHERE session_id = ? AND id > ? ORDER BY id LIMIT 1',
          )
          .get(sessionId, id);
        const bytes = next?.ref_marks == null ? undefined : bytesThroughMarks(next.ref_marks, id);
        if (next === undefined || bytes === undefined) return undefined;
        runId = next.run_id;
        within = { type: next.type, bytes };
      }
      const sums = db
        .prepare<[string, number], { type: string; bytes: number }>(
          `SELECT type, SUM(COALESCE(ref_bytes, length(CAST(json_extract(data, '$.text') AS BLOB)))) AS bytes
           FROM message_parts WHERE run_id = ? AND id <= ? AND type IN ('text-delta', 'reasoning-delta')
           GROUP BY type`,
        )
        .all(runId, id);
      const bytesOf = (type: string) =>
        (sums.find((sum) => sum.type === type)?.bytes ?? 0) + (within?.type === type ? within.bytes : 0);
      return { runId, text: bytesOf('text-delta'), reasoning: bytesOf('reasoning-delta') };
    });
  }
}
