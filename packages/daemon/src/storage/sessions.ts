/**
 * Sessions in sessions.db: their settings (mode, provider, model, ask-before-writes), who
 * consented to `auto` and when, and, read with each session, its last run and summed token usage.
 */
import {
  DEFAULT_PERMISSION_MODE,
  PAGE_DEFAULT_LIMIT,
  permissionModeSchema,
  SESSION_AUTO_TITLE_CHARS,
  type PermissionMode,
  type ReasoningEffort,
  type RunStatus,
  type Session,
} from '@bastion/protocol';
import { newId } from './ids.js';
import { cursorPosition, type Page } from './page.js';
import { toTokenUsage, type UsageColumns } from './run-log.js';
import type { StoreWriter } from './store-writer.js';

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
  reasoning_effort: ReasoningEffort | null;
  created_at: string;
  updated_at: string;
  last_run_id: string | null;
  last_run_status: string | null;
  approval_pending: number;
  provisional: number;
}

export interface NewSession {
  title?: string;
  mode?: PermissionMode;
  provider: string;
  model: string;
  workspace: string | null;
  askBeforeWrites?: boolean;
  reasoningEffort?: ReasoningEffort;
  consentBy?: string;
  /** Made by New session: removed while untouched and shown nowhere (untouched-sessions.ts). */
  provisional?: boolean;
}

export interface SessionPatch {
  title?: string;
  mode?: PermissionMode;
  provider?: string;
  model?: string;
  askBeforeWrites?: boolean;
  /** null: back to the model's default. */
  reasoningEffort?: ReasoningEffort | null;
  consentBy?: string;
}

const SESSION_COLUMNS = `
  s.n, s.id, s.title, s.mode, s.provider, s.model, s.workspace, s.auto_consent_by, s.auto_consent_at, s.ask_before_writes,
  s.reasoning_effort, s.created_at, s.updated_at, s.provisional,
  (SELECT r.id FROM runs r WHERE r.session_id = s.id ORDER BY r.n DESC LIMIT 1) AS last_run_id,
  (SELECT r.status FROM runs r WHERE r.session_id = s.id ORDER BY r.n DESC LIMIT 1) AS last_run_status,
  EXISTS (SELECT 1 FROM approvals a WHERE a.session_id = s.id AND a.status = 'pending') AS approval_pending,
  ${['input_tokens', 'output_tokens', 'cached_input_tokens', 'cost_usd']
    .map((column) => `(SELECT SUM(r.${column}) FROM runs r WHERE r.session_id = s.id) AS ${column}`)
    .join(', ')}`;

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
    ...(row.reasoning_effort === null ? {} : { reasoning_effort: row.reasoning_effort }),
    last_run:
      row.last_run_id !== null && row.last_run_status !== null
        ? { id: row.last_run_id, status: row.last_run_status as RunStatus }
        : null,
    approval_pending: row.approval_pending === 1,
    usage: toTokenUsage(row),
    ...(row.provisional === 1 ? { provisional: true as const } : {}),
  };
}

/** The title a session gets from its first message: its first non-blank line, cut to SESSION_AUTO_TITLE_CHARS. */
export function titleFromMessage(message: string): string {
  const line = (message.split('\n').find((text) => text.trim() !== '') ?? message).trim();
  return line.length > SESSION_AUTO_TITLE_CHARS ? `${line.slice(0, SESSION_AUTO_TITLE_CHARS - 1)}…` : line;
}

/** `text` anywhere, as a LIKE pattern whose `%`, `_` and `\` match themselves (ESCAPE '\'). */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export class Sessions {
  readonly #writer: StoreWriter;

  constructor(writer: StoreWriter) {
    this.#writer = writer;
  }

  create(input: NewSession): Session {
    return this.#writer.write(() => {
      const id = newId('ses');
      const now = this.#writer.now();
      const mode = input.mode ?? DEFAULT_PERMISSION_MODE;
      this.#writer.db
        .prepare(
          `INSERT INTO sessions (id, title, mode, provider, model, workspace, auto_consent_by, auto_consent_at, ask_before_writes,
             reasoning_effort, created_at, updated_at, provisional)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
          input.reasoningEffort ?? null,
          now,
          now,
          input.provisional === true ? 1 : 0,
        );
      return this.get(id) as Session;
    });
  }

  get(id: string): Session | undefined {
    const row = this.#writer.db
      .prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.id = ?`)
      .get(id);
    return row ? toSession(row) : undefined;
  }

  /**
   * Newest first; `cursor` is the previous page's `next`. With `search`, only sessions whose title,
   * or the text of a prompt or a reply, holds it (the text parts only: never a JSON key, a tool's
   * input or output); SQLite's LIKE, so ASCII letters match in either case.
   */
  list(options: { limit?: number; cursor?: string; search?: string } = {}): Page<Session> {
    const limit = options.limit ?? PAGE_DEFAULT_LIMIT;
    const before = cursorPosition(options.cursor, Number.MAX_SAFE_INTEGER);
    const rows =
      options.search === undefined
        ? this.#writer.db
            .prepare<[number, number], SessionRow>(
              `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.n < ? ORDER BY s.n DESC LIMIT ?`,
            )
            .all(before, limit + 1)
        : this.#writer.db
            .prepare<[number, string, string, number], SessionRow>(
              `SELECT ${SESSION_COLUMNS} FROM sessions s
               WHERE s.n < ? AND (s.title LIKE ? ESCAPE '\\' OR EXISTS (
                 SELECT 1 FROM messages m,
                   json_each(CASE WHEN json_type(m.content) = 'array' THEN m.content ELSE '[]' END) part
                 WHERE m.session_id = s.id AND m.role IN ('user', 'assistant') AND part.type = 'object'
                   AND json_extract(part.value, '$.type') = 'text'
                   AND json_extract(part.value, '$.text') LIKE ? ESCAPE '\\'))
               ORDER BY s.n DESC LIMIT ?`,
            )
            .all(before, likePattern(options.search), likePattern(options.search), limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(toSession), next: rows.length > limit && last ? String(last.n) : null };
  }

  /**
   * Apply a patch; switching to `auto` records who consented and when. Any patch, an empty one
   * too, makes a provisional session the person's (it is kept).
   */
  update(id: string, patch: SessionPatch): Session | undefined {
    return this.#writer.write(() => {
      const current = this.get(id);
      if (!current) return undefined;
      const now = this.#writer.now();
      const mode = patch.mode ?? current.mode;
      const enteringAuto = mode === 'auto' && current.mode !== 'auto';
      this.#writer.db
        .prepare(
          `UPDATE sessions SET title = ?, mode = ?, provider = ?, model = ?, ask_before_writes = ?, reasoning_effort = ?,
             updated_at = ?, provisional = 0,
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
          patch.reasoningEffort === undefined ? (current.reasoning_effort ?? null) : patch.reasoningEffort,
          now,
          enteringAuto ? 1 : 0,
          patch.consentBy ?? 'client',
          enteringAuto ? 1 : 0,
          now,
          id,
        );
      return this.get(id);
    });
  }

  /** Remove the session with everything of it (runs, messages, events, approvals cascade). */
  delete(id: string): boolean {
    return this.#writer.write(() => this.#writer.db.prepare('DELETE FROM sessions WHERE id = ?').run(id).changes === 1);
  }

  /**
   * Remove the session only if it is still provisional with nothing stored in it (no run, no
   * message, no approval), in one statement, so a run or a change that lands first keeps it.
   */
  deleteIfUntouched(id: string): boolean {
    return this.#writer.write(
      () =>
        this.#writer.db
          .prepare<[{ id: string }]>(
            `DELETE FROM sessions WHERE id = @id AND provisional = 1
               AND NOT EXISTS (SELECT 1 FROM runs WHERE session_id = @id)
               AND NOT EXISTS (SELECT 1 FROM messages WHERE session_id = @id)
               AND NOT EXISTS (SELECT 1 FROM approvals WHERE session_id = @id)`,
          )
          .run({ id }).changes === 1,
    );
  }

  /** The ids of the sessions still provisional (New session's, untouched). */
  provisionalIds(): string[] {
    return this.#writer.db
      .prepare<[], { id: string }>('SELECT id FROM sessions WHERE provisional = 1')
      .all()
      .map(({ id }) => id);
  }

  /** Whether the session asks before each file write, as stored now (false for a gone session). */
  asksBeforeWrites(id: string): boolean {
    const row = this.#writer.db
      .prepare<[string], { ask_before_writes: number }>('SELECT ask_before_writes FROM sessions WHERE id = ?')
      .get(id);
    return row?.ask_before_writes === 1;
  }

  /** The session's mode as stored now (tools re-read it on every write). */
  currentMode(id: string): PermissionMode | undefined {
    const row = this.#writer.db.prepare<[string], { mode: string }>('SELECT mode FROM sessions WHERE id = ?').get(id);
    return row ? permissionModeSchema.parse(row.mode) : undefined;
  }
}
