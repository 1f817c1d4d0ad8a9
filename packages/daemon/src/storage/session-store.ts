/**
 * The sessions store over sessions.db: sessions, runs, the model transcript, the event log and
 * approvals. Every change that must not be seen half-done is one transaction; the store is the
 * only writer of the file (one sidecar at a time).
 */
import type { ModelMessage } from 'ai';
import {
  DEFAULT_PERMISSION_MODE,
  PAGE_DEFAULT_LIMIT,
  STORE_FOLD_RECLAIM_MIN_BYTES,
  STORE_GROUP_COMMIT_MS,
  permissionModeSchema,
  type AgentEvent,
  type AgentStreamEvent,
  type Message,
  type MessagePart,
  type PermissionMode,
  type RunStatus,
  type Session,
  type TokenUsage,
} from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import type { SqliteDatabase } from './database.js';
import {
  FoldedTextReader,
  foldRunDeltas,
  type DeltaBytes,
  type ReplayedEvent,
  type StoredEventRow,
} from './delta-fold.js';
import { newId } from './ids.js';

interface SessionRow extends UsageColumns {
  n: number;
  id: string;
  title: string;
  mode: string;
  provider: string;
  model: string;
  workspace: string | null;
  auto_consent_by: string | null;
  auto_consent_at: string | null;
  ask_before_writes: number;
  created_at: string;
  updated_at: string;
  last_run_id: string | null;
  last_run_status: string | null;
}

interface ApprovalRow {
  id: string;
  session_id: string;
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  status: 'pending' | 'approved' | 'denied' | 'cancelled';
}

export interface NewSession {
  title?: string;
  mode?: PermissionMode;
  provider: string;
  model: string;
  workspace: string | null;
  askBeforeWrites?: boolean;
  consentBy?: string;
}

export interface SessionPatch {
  title?: string;
  mode?: PermissionMode;
  provider?: string;
  model?: string;
  askBeforeWrites?: boolean;
  consentBy?: string;
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface StartedRun {
  runId: string;
  messageId: string | null;
  event: AgentStreamEvent;
}

/** What `modelContext` read: see there. */
export interface ModelContextRead {
  summary: string | undefined;
  messages: ModelMessage[];
  ids: string[];
  cut: boolean;
}

export type FinalRunStatus = Exclude<RunStatus, 'running'>;

/** Why an approval answer was refused; each maps to its own wire code. */
export type ApprovalAnswerRefusal =
  'unknown-approval' | 'other-session' | 'tool-call-mismatch' | 'already-answered' | 'cancelled';

export interface ApprovalAnswerInput {
  sessionId: string;
  approvalId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

const SESSION_COLUMNS = `
  s.n, s.id, s.title, s.mode, s.provider, s.model, s.workspace, s.auto_consent_by, s.auto_consent_at, s.ask_before_writes,
  s.created_at, s.updated_at,
  (SELECT r.id FROM runs r WHERE r.session_id = s.id ORDER BY r.n DESC LIMIT 1) AS last_run_id,
  (SELECT r.status FROM runs r WHERE r.session_id = s.id ORDER BY r.n DESC LIMIT 1) AS last_run_status,
  ${['input_tokens', 'output_tokens', 'cached_input_tokens', 'cost_usd']
    .map((column) => `(SELECT SUM(r.${column}) FROM runs r WHERE r.session_id = s.id) AS ${column}`)
    .join(', ')}`;

interface UsageColumns {
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  cost_usd: number | null;
}

function toTokenUsage(row: UsageColumns): TokenUsage {
  return {
    input_tokens: row.input_tokens ?? 0,
    output_tokens: row.output_tokens ?? 0,
    cached_input_tokens: row.cached_input_tokens ?? 0,
    ...(row.cost_usd === null ? {} : { cost_usd: row.cost_usd }),
  };
}

function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    title: row.title,
    mode: permissionModeSchema.parse(row.mode),
    provider: row.provider,
    model: row.model,
    workspace: row.workspace,
    created_at: row.created_at,
    updated_at: row.updated_at,
    auto_consent:
      row.auto_consent_by !== null && row.auto_consent_at !== null
        ? { by: row.auto_consent_by, at: row.auto_consent_at }
        : null,
    ask_before_writes: row.ask_before_writes === 1,
    last_run:
      row.last_run_id !== null && row.last_run_status !== null
        ? { id: row.last_run_id, status: row.last_run_status as RunStatus }
        : null,
    usage: toTokenUsage(row),
  };
}

interface MessageRow {
  id: string;
  seq: number;
  role: Message['role'];
  run_id: string | null;
  content: string;
  created_at: string;
}

const MESSAGE_COLUMNS = 'id, seq, role, run_id, content, created_at';

function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    role: row.role,
    run_id: row.run_id,
    created_at: row.created_at,
    parts: toMessageParts(JSON.parse(row.content) as ModelMessage['content']),
  };
}

/** Stored model content → the wire shape of a message's parts (reasoning and files are not shown). */
export function toMessageParts(content: ModelMessage['content']): MessagePart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: MessagePart[] = [];
  for (const part of content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', text: part.text });
        break;
      case 'tool-call':
        parts.push({ type: 'tool-call', tool_call_id: part.toolCallId, tool_name: part.toolName, input: part.input });
        break;
      case 'tool-result':
        parts.push({
          type: 'tool-result',
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
          output: part.output,
        });
        break;
      case 'tool-approval-request':
        parts.push({ type: 'tool-approval-request', approval_id: part.approvalId, tool_call_id: part.toolCallId });
        break;
      case 'tool-approval-response':
        parts.push({
          type: 'tool-approval-response',
          approval_id: part.approvalId,
          approved: part.approved,
          ...(part.reason === undefined ? {} : { reason: part.reason }),
        });
        break;
      case 'file':
      case 'image':
      case 'reasoning':
        // not part of the wire transcript
        break;
    }
  }
  return parts;
}

export class SessionStore {
  readonly #db: SqliteDatabase;
  readonly #now: () => string;
  readonly #insertPart;
  readonly #insertMessage;
  readonly #nextSeq;
  /** Group commit of events: an open transaction collecting appends until the next turn. */
  #batchOpen = false;
  #afterCommit: (() => void)[] = [];
  /** Told when a group of appended events could not be committed and was rolled back. */
  readonly #batchLostListeners: ((error: unknown) => void)[] = [];

  constructor(db: SqliteDatabase, now: () => Date = () => new Date()) {
    this.#db = db;
    this.#now = () => now().toISOString();
    this.#insertPart = db.prepare<[string, string, string, string, string]>(
      'INSERT INTO message_parts (session_id, run_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.#insertMessage = db.prepare<[string, string, string | null, number, string, string, string]>(
      'INSERT INTO messages (id, session_id, run_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.#nextSeq = db.prepare<[string], { seq: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM messages WHERE session_id = ?',
    );
  }

  // ── sessions ───────────────────────────────────────────────────────────────

  createSession(input: NewSession): Session {
    this.flush();
    const id = newId('ses');
    const now = this.#now();
    const mode = input.mode ?? DEFAULT_PERMISSION_MODE;
    this.#db
      .prepare(
        `INSERT INTO sessions (id, title, mode, provider, model, workspace, auto_consent_by, auto_consent_at, ask_before_writes, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.title ?? '',
        mode,
        input.provider,
        input.model,
        input.workspace,
        mode === 'auto' ? (input.consentBy ?? 'client') : null,
        mode === 'auto' ? now : null,
        input.askBeforeWrites === true ? 1 : 0,
        now,
        now,
      );
    return this.getSession(id) as Session;
  }

  getSession(id: string): Session | undefined {
    const row = this.#db
      .prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`)
      .get(id);
    return row ? toSession(row) : undefined;
  }

  /** Newest first; `cursor` is the previous page's `next`. */
  listSessions(options: { limit?: number; cursor?: string } = {}): Page<Session> {
    const limit = options.limit ?? PAGE_DEFAULT_LIMIT;
    const before = options.cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(options.cursor);
    if (!Number.isSafeInteger(before)) throw new DaemonError('BAD_CURSOR', 'cursor is not valid');
    const rows = this.#db
      .prepare<[number, number], SessionRow>(
        `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.n < ? ORDER BY s.n DESC LIMIT ?`,
      )
      .all(before, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(toSession), next: rows.length > limit && last ? String(last.n) : null };
  }

  /** Apply a patch; switching to `auto` records who consented and when. */
  updateSession(id: string, patch: SessionPatch): Session | undefined {
    this.flush();
    const update = this.#db.transaction(() => {
      const current = this.getSession(id);
      if (!current) return undefined;
      const now = this.#now();
      const mode = patch.mode ?? current.mode;
      const enteringAuto = mode === 'auto' && current.mode !== 'auto';
      this.#db
        .prepare(
          `UPDATE sessions SET title = ?, mode = ?, provider = ?, model = ?, ask_before_writes = ?, updated_at = ?,
             auto_consent_by = CASE WHEN ? THEN ? ELSE auto_consent_by END,
             auto_consent_at = CASE WHEN ? THEN ? ELSE auto_consent_at END
           WHERE id = ?`,
        )
        .run(
          patch.title ?? current.title,
          mode,
          patch.provider ?? current.provider,
          patch.model ?? current.model,
          (patch.askBeforeWrites ?? current.ask_before_writes) ? 1 : 0,
          now,
          enteringAuto ? 1 : 0,
          patch.consentBy ?? 'client',
          enteringAuto ? 1 : 0,
          now,
          id,
        );
      return this.getSession(id);
    });
    return update.immediate();
  }

  deleteSession(id: string): boolean {
    this.flush();
    return this.#db.prepare('DELETE FROM sessions WHERE id = ?').run(id).changes === 1;
  }

  /** Whether the session asks before each file write, as stored now (false for a gone session). */
  asksBeforeWrites(id: string): boolean {
    const row = this.#db
      .prepare<[string], { ask_before_writes: number }>('SELECT ask_before_writes FROM sessions WHERE id = ?')
      .get(id);
    return row?.ask_before_writes === 1;
  }

  /** The session's mode as stored now (tools re-read it on every write). */
  currentMode(id: string): PermissionMode | undefined {
    const row = this.#db.prepare<[string], { mode: string }>('SELECT mode FROM sessions WHERE id = ?').get(id);
    return row ? permissionModeSchema.parse(row.mode) : undefined;
  }

  // ── runs and events ────────────────────────────────────────────────────────

  /**
   * Create a running run, its user message (if any) and the run-started event in one
   * transaction. Throws RUN_ACTIVE if the session already has a running run.
   */
  startRun(
    sessionId: string,
    input: { userContent?: ModelMessage[] | undefined; provider: string; model: string },
  ): StartedRun {
    this.flush();
    const start = this.#db.transaction((): StartedRun => {
      const runId = newId('run');
      const now = this.#now();
      try {
        this.#db
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
      const messageIds = this.appendMessages(sessionId, runId, input.userContent ?? []);
      const messageId = messageIds[0] ?? null;
      const event = this.appendEvent(sessionId, {
        type: 'run-started',
        run_id: runId,
        session_id: sessionId,
        message_id: messageId,
        provider: input.provider,
        model: input.model,
      });
      this.#db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(now, sessionId);
      return { runId, messageId, event };
    });
    return start.immediate();
  }

  /**
   * Persist one event; its id orders the session's stream. Outside another transaction, appends
   * are group-committed: the first opens a transaction that commits after STORE_GROUP_COMMIT_MS
   * (or before any other write or read of events), so a burst of deltas costs one commit. Use
   * afterCommit() to act on an event only once it is durable: a client must never see an id that
   * a crash could take back and reuse.
   */
  appendEvent(sessionId: string, event: AgentEvent): AgentStreamEvent {
    if (!this.#db.inTransaction) {
      this.#db.exec('BEGIN IMMEDIATE');
      this.#batchOpen = true;
      setTimeout(() => {
        try {
          this.flush();
        } catch {
          // Nobody waits on this commit: the batch-lost listeners have been told.
        }
      }, STORE_GROUP_COMMIT_MS).unref();
    }
    try {
      const result = this.#insertPart.run(sessionId, event.run_id, event.type, JSON.stringify(event), this.#now());
      return { id: Number(result.lastInsertRowid), event };
    } catch (error) {
      if (this.#batchOpen) this.#abandonBatch(error);
      throw error;
    }
  }

  /**
   * Call `listener` whenever a group of appended events fails to commit (a full or read-only disk,
   * a damaged page): the group was rolled back whole and none of its events was ever published.
   */
  onBatchLost(listener: (error: unknown) => void): void {
    this.#batchLostListeners.push(listener);
  }

  /**
   * Roll the open group back and drop its afterCommit callbacks: its events were never published,
   * and their ids will be used again, so no client may ever see them.
   */
  #abandonBatch(error: unknown): void {
    if (this.#db.inTransaction) {
      try {
        this.#db.exec('ROLLBACK');
      } catch {
        // SQLite already rolled it back (it may, after SQLITE_FULL or an I/O error).
      }
    }
    this.#batchOpen = false;
    this.#afterCommit = [];
    for (const listener of this.#batchLostListeners) listener(error);
  }

  /**
   * Give freed pages and the WAL's unused file space back to the disk, as far as the disk allows
   * (never throws); after a failed write the WAL may hold the space the failed transaction took.
   */
  releaseUnusedSpace(): void {
    this.flush();
    try {
      this.#reclaim();
    } catch {
      // A full disk may not take the checkpoint either; the file and the WAL then keep their size.
    }
  }

  /** Run `callback` once everything appended so far is committed (now, if it already is). */
  afterCommit(callback: () => void): void {
    if (this.#batchOpen) this.#afterCommit.push(callback);
    else callback();
  }

  /** Commit the open group of appended events, then run their afterCommit callbacks in order. */
  flush(): void {
    // a database closed with a group still open has rolled it back; nothing to commit
    if (!this.#batchOpen || !this.#db.open) return;
    try {
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#abandonBatch(error);
      throw error;
    }
    this.#batchOpen = false;
    const callbacks = this.#afterCommit;
    this.#afterCommit = [];
    for (const callback of callbacks) callback();
  }

  appendMessages(sessionId: string, runId: string | null, messages: readonly ModelMessage[]): string[] {
    this.flush();
    if (messages.length === 0) return [];
    const append = this.#db.transaction(() => {
      let seq = (this.#nextSeq.get(sessionId) as { seq: number }).seq;
      const now = this.#now();
      const ids: string[] = [];
      for (const message of messages) {
        if (message.role === 'system') continue;
        const id = newId('msg');
        this.#insertMessage.run(id, sessionId, runId, seq, message.role, JSON.stringify(message.content), now);
        ids.push(id);
        seq += 1;
      }
      return ids;
    });
    return append();
  }

  /**
   * End a run and persist its final event together, folding the run's deltas into references to
   * its messages' text (delta-fold.ts). Aborting cancels the session's pending approvals.
   */
  finishRun(
    sessionId: string,
    runId: string,
    status: FinalRunStatus,
    final: Extract<AgentEvent, { type: 'run-finished' | 'run-error' }>,
  ): AgentStreamEvent {
    this.flush();
    const finish = this.#db.transaction(() => {
      const now = this.#now();
      this.#db
        .prepare(
          `UPDATE runs SET status = ?, finish_reason = ?, error_code = ?, ended_at = ? WHERE id = ? AND status = 'running'`,
        )
        .run(
          status,
          final.type === 'run-finished' ? final.finish_reason : null,
          final.type === 'run-error' ? final.code : null,
          now,
          runId,
        );
      if (status === 'aborted') this.cancelPendingApprovals(sessionId);
      this.#db.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?').run(now, sessionId);
      const freed = foldRunDeltas(this.#db, runId);
      return { event: this.appendEvent(sessionId, final), freed };
    });
    const { event, freed } = finish.immediate();
    // Best effort: the final event is committed, whether or not the disk takes the checkpoint.
    if (freed >= STORE_FOLD_RECLAIM_MIN_BYTES && !this.#db.inTransaction) this.releaseUnusedSpace();
    return event;
  }

  /** Give the pages a fold freed back to the file system and cut the WAL file back. */
  #reclaim(): void {
    this.#db.pragma('incremental_vacuum');
    this.#db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * At start-up: runs left `running` by a sidecar that died are marked `interrupted`, each with a
   * run-error event, so a reconnecting client sees how they ended.
   */
  interruptStaleRuns(): number {
    this.flush();
    const interrupt = this.#db.transaction(() => {
      const stale = this.#db
        .prepare<[], { id: string; session_id: string }>(`SELECT id, session_id FROM runs WHERE status = 'running'`)
        .all();
      for (const run of stale) {
        this.finishRun(run.session_id, run.id, 'interrupted', {
          type: 'run-error',
          run_id: run.id,
          code: 'RUN_INTERRUPTED',
          message: 'the agent stopped before the run finished',
        });
      }
      return stale.length;
    });
    return interrupt.immediate();
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
    this.flush();
    this.#db
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
      );
  }

  runUsage(runId: string): TokenUsage | undefined {
    const row = this.#db
      .prepare<[string], UsageColumns>(
        'SELECT input_tokens, output_tokens, cached_input_tokens, cost_usd FROM runs WHERE id = ?',
      )
      .get(runId);
    return row ? toTokenUsage(row) : undefined;
  }

  /** The context size the session's latest measured step ended with, if any step reported usage. */
  lastContextTokens(sessionId: string): number | undefined {
    const row = this.#db
      .prepare<[string], { context_tokens: number }>(
        'SELECT context_tokens FROM runs WHERE session_id = ? AND context_tokens IS NOT NULL ORDER BY n DESC LIMIT 1',
      )
      .get(sessionId);
    return row?.context_tokens;
  }

  runStatus(runId: string): RunStatus | undefined {
    const row = this.#db.prepare<[string], { status: RunStatus }>('SELECT status FROM runs WHERE id = ?').get(runId);
    return row?.status;
  }

  /**
   * The page of a session's events just before `beforeId` (the newest when undefined), oldest
   * first within it: a reader pages back from the end. When older events remain, the page is
   * trimmed to start at its oldest `run-started`, so a run is cut in two only when it alone is
   * longer than `limit`; `next` is then the id the page starts at.
   */
  eventsBefore(sessionId: string, beforeId: number | undefined, limit: number): Page<AgentStreamEvent> {
    this.flush();
    const rows = this.#db
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
    const folded = new FoldedTextReader(this.#db);
    return {
      // folded deltas come back whole, with their text (a page is read from its start, never resumed)
      items: page.map((row) => {
        const { id, event } = folded.entryOf(row);
        return { id, event };
      }),
      next: older && first ? String(first.id) : null,
    };
  }

  /** Events of a session with id > `afterId`, oldest first; folded ones say where their text lies. */
  eventsAfter(sessionId: string, afterId: number, limit: number): ReplayedEvent[] {
    this.flush();
    const folded = new FoldedTextReader(this.#db);
    return this.#db
      .prepare<[string, number, number], StoredEventRow>(
        `SELECT id, data, ref_message, ref_part, ref_start, ref_bytes, ref_run_offset FROM message_parts
         WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?`,
      )
      .all(sessionId, afterId, limit)
      .map((row) => folded.entryOf(row));
  }

  /**
   * The bytes of each kind of delta of event `id`'s run up to and including it: what a client
   * whose cursor is `id` has of that run. Undefined when the session has no such event (a cursor
   * into deltas folded since).
   */
  deltaBytesThrough(sessionId: string, id: number): DeltaBytes | undefined {
    this.flush();
    const row = this.#db
      .prepare<[string, number], { run_id: string }>('SELECT run_id FROM message_parts WHERE session_id = ? AND id = ?')
      .get(sessionId, id);
    if (!row) return undefined;
    const sums = this.#db
      .prepare<[string, number], { type: string; bytes: number }>(
        `SELECT type, SUM(COALESCE(ref_bytes, length(CAST(json_extract(data, '$.text') AS BLOB)))) AS bytes
         FROM message_parts WHERE run_id = ? AND id <= ? AND type IN ('text-delta', 'reasoning-delta')
         GROUP BY type`,
      )
      .all(row.run_id, id);
    const bytesOf = (type: string) => sums.find((sum) => sum.type === type)?.bytes ?? 0;
    return { runId: row.run_id, text: bytesOf('text-delta'), reasoning: bytesOf('reasoning-delta') };
  }

  // ── transcript ─────────────────────────────────────────────────────────────

  /** Oldest first; `cursor` is the previous page's `next`. */
  listMessages(sessionId: string, options: { limit?: number; cursor?: string } = {}): Page<Message> {
    const limit = options.limit ?? PAGE_DEFAULT_LIMIT;
    const after = options.cursor === undefined ? 0 : Number(options.cursor);
    if (!Number.isSafeInteger(after)) throw new DaemonError('BAD_CURSOR', 'cursor is not valid');
    const rows = this.#db
      .prepare<[string, number, number], MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(sessionId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(toMessage), next: rows.length > limit && last ? String(last.seq) : null };
  }

  /** The session's stored messages with these ids (unknown ids are skipped), in the ids' order. */
  messagesById(sessionId: string, ids: readonly string[]): Message[] {
    const select = this.#db.prepare<[string, string], MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND id = ?`,
    );
    return ids.flatMap((id) => {
      const row = select.get(sessionId, id);
      return row ? [toMessage(row)] : [];
    });
  }

  /**
   * What the next model call starts from, read with a bound that does not grow with the session:
   * the latest summary (if a compaction made one) and at most `limit` messages after it, newest
   * first in the query. Consecutive tool messages (answers to several approvals of one step,
   * stored one by one) are merged into one, which is where the AI SDK looks for approval
   * responses. `ids` holds, for each model message, the id of its last stored row. When more
   * messages follow the summary than `limit`, the oldest read ones up to the first user or
   * assistant message are left out too (a view never starts with a tool result), and `cut` says so.
   */
  modelContext(sessionId: string, limit: number): ModelContextRead {
    this.flush();
    const summary = this.#db
      .prepare<[string], { through_seq: number; summary: string }>(
        'SELECT through_seq, summary FROM context_summaries WHERE session_id = ? ORDER BY n DESC LIMIT 1',
      )
      .get(sessionId);
    const rows = this.#db
      .prepare<[string, number, number], { id: string; role: 'user' | 'assistant' | 'tool'; content: string }>(
        'SELECT id, role, content FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?',
      )
      .all(sessionId, summary?.through_seq ?? 0, limit + 1)
      .reverse();
    const cut = rows.length > limit;
    let first = cut ? 1 : 0;
    if (cut) while (first < rows.length && rows[first]?.role === 'tool') first += 1;
    const messages: ModelMessage[] = [];
    const ids: string[] = [];
    for (const row of rows.slice(first)) {
      const content = JSON.parse(row.content) as unknown;
      const last = messages.at(-1);
      if (row.role === 'tool' && last?.role === 'tool') {
        last.content.push(...(content as typeof last.content));
        ids[ids.length - 1] = row.id;
        continue;
      }
      messages.push({ role: row.role, content } as ModelMessage);
      ids.push(row.id);
    }
    return { summary: summary?.summary, messages, ids, cut };
  }

  /**
   * Store a compaction: `summary` stands for every message of the session up to and including
   * `throughMessageId` in what later model calls see. Refused with CONTEXT_SUMMARY_UNKNOWN_MESSAGE
   * when that message is not this session's.
   */
  saveContextSummary(input: {
    sessionId: string;
    runId: string;
    throughMessageId: string;
    summary: string;
    messagesSummarized: number;
  }): void {
    this.flush();
    const saved = this.#db
      .prepare(
        `INSERT INTO context_summaries (session_id, run_id, through_seq, summary, messages_summarized, created_at)
         SELECT session_id, ?, seq, ?, ?, ? FROM messages WHERE id = ? AND session_id = ?`,
      )
      .run(input.runId, input.summary, input.messagesSummarized, this.#now(), input.throughMessageId, input.sessionId);
    if (saved.changes !== 1)
      throw new DaemonError('CONTEXT_SUMMARY_UNKNOWN_MESSAGE', 'the summarised messages are not in this session');
  }

  // ── approvals ──────────────────────────────────────────────────────────────

  recordApprovalRequest(input: {
    sessionId: string;
    runId: string;
    approvalId: string;
    toolCallId: string;
    toolName: string;
    input: unknown;
  }): void {
    this.flush();
    this.#db
      .prepare(
        `INSERT INTO approvals (id, session_id, run_id, tool_call_id, tool_name, input, status, requested_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
      )
      .run(
        input.approvalId,
        input.sessionId,
        input.runId,
        input.toolCallId,
        input.toolName,
        JSON.stringify(input.input ?? null),
        this.#now(),
      );
  }

  hasPendingApproval(sessionId: string): boolean {
    return (
      this.#db
        .prepare<[string], { one: number }>(
          `SELECT 1 AS one FROM approvals WHERE session_id = ? AND status = 'pending' LIMIT 1`,
        )
        .get(sessionId) !== undefined
    );
  }

  /**
   * Cancel the session's pending approvals (abort), closing each tool call in the transcript with
   * an `execution-denied` result, so the next model call carries no call without a result.
   */
  cancelPendingApprovals(sessionId: string): number {
    this.flush();
    const cancel = this.#db.transaction(() => {
      const pending = this.#db
        .prepare<[string], ApprovalRow>(`SELECT * FROM approvals WHERE session_id = ? AND status = 'pending'`)
        .all(sessionId);
      if (pending.length === 0) return 0;
      this.#db
        .prepare(
          `UPDATE approvals SET status = 'cancelled', answered_at = ? WHERE session_id = ? AND status = 'pending'`,
        )
        .run(this.#now(), sessionId);
      this.appendMessages(
        sessionId,
        null,
        pending.map((approval) => ({
          role: 'tool' as const,
          content: [
            {
              type: 'tool-result' as const,
              toolCallId: approval.tool_call_id,
              toolName: approval.tool_name,
              output: { type: 'execution-denied' as const, reason: 'the run was aborted before an answer' },
            },
          ],
        })),
      );
      return pending.length;
    });
    return cancel.immediate();
  }

  /**
   * Flip a pending approval to answered — only if it is pending, belongs to this session and its
   * tool call matches — and append the answer to the transcript as the model's
   * tool-approval-response, all in one transaction. Any refusal changes nothing.
   */
  answerApproval(
    answer: ApprovalAnswerInput,
  ): { ok: true; toolName: string } | { ok: false; refusal: ApprovalAnswerRefusal } {
    this.flush();
    const flip = this.#db.transaction(() => {
      const row = this.#db
        .prepare<[string], ApprovalRow>('SELECT * FROM approvals WHERE id = ?')
        .get(answer.approvalId);
      if (!row) return { ok: false as const, refusal: 'unknown-approval' as const };
      if (row.session_id !== answer.sessionId) return { ok: false as const, refusal: 'other-session' as const };
      if (row.tool_call_id !== answer.toolCallId) return { ok: false as const, refusal: 'tool-call-mismatch' as const };
      if (row.status === 'cancelled') return { ok: false as const, refusal: 'cancelled' as const };
      if (row.status !== 'pending') return { ok: false as const, refusal: 'already-answered' as const };
      const changed = this.#db
        .prepare(
          `UPDATE approvals SET status = ?, reason = ?, answered_at = ?
           WHERE id = ? AND session_id = ? AND tool_call_id = ? AND status = 'pending'`,
        )
        .run(
          answer.approved ? 'approved' : 'denied',
          answer.reason ?? null,
          this.#now(),
          answer.approvalId,
          answer.sessionId,
          answer.toolCallId,
        );
      if (changed.changes !== 1) return { ok: false as const, refusal: 'already-answered' as const };
      this.appendMessages(answer.sessionId, row.run_id, [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-approval-response',
              approvalId: answer.approvalId,
              approved: answer.approved,
              ...(answer.reason === undefined ? {} : { reason: answer.reason }),
            },
          ],
        },
      ]);
      return { ok: true as const, toolName: row.tool_name };
    });
    return flip.immediate();
  }

  /** The status of the approval asked for this tool call, if one was asked. */
  approvalStatus(sessionId: string, toolCallId: string): ApprovalRow['status'] | undefined {
    this.flush();
    return this.#db
      .prepare<[string, string], Pick<ApprovalRow, 'status'>>(
        'SELECT status FROM approvals WHERE session_id = ? AND tool_call_id = ?',
      )
      .get(sessionId, toolCallId)?.status;
  }
}
