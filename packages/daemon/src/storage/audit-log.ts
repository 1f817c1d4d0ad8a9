/**
 * The watchdog's audit log in sessions.db (`tool_audit`): appended once a tool call's decision is
 * known, read a page at a time, newest first, for the UI. No method changes or removes a row (the
 * table also refuses UPDATE); rows go only with their session. A row holds no argument beyond the
 * command's name.
 */
import { AUDIT_MAX_PAGE, type AuditEntry, type AuditPage } from '@bastion/protocol';
import type { SqliteDatabase } from './database.js';

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'created_at'> & { session_id: string };

export class AuditLog {
  readonly #db: SqliteDatabase;
  readonly #now: () => string;

  constructor(db: SqliteDatabase, now: () => string = () => new Date().toISOString()) {
    this.#db = db;
    this.#now = now;
  }

  append(entry: NewAuditEntry): void {
    this.#db
      .prepare(
        `INSERT INTO tool_audit (session_id, run_id, tool_call_id, tool_name, command_name, mode, verdict, rule_id,
           rule_layer, approval, outcome, code, created_at)
         VALUES (@session_id, @run_id, @tool_call_id, @tool_name, @command_name, @mode, @verdict, @rule_id,
           @rule_layer, @approval, @outcome, @code, @created_at)`,
      )
      .run({ ...entry, created_at: this.#now() });
  }

  /**
   * A page of the session's rows, newest first: at most `limit` (AUDIT_MAX_PAGE at most) with ids
   * below `before` when it is given; `next` is the oldest row's id when older ones remain.
   */
  page(sessionId: string, options: { before?: number; limit?: number } = {}): AuditPage {
    const limit = Math.min(Math.max(options.limit ?? AUDIT_MAX_PAGE, 1), AUDIT_MAX_PAGE);
    // One row past the page says whether an older one exists.
    const rows = this.#db
      .prepare<[string, number, number], AuditEntry>(
        `SELECT id, run_id, tool_call_id, tool_name, command_name, mode, verdict, rule_id, rule_layer, approval,
           outcome, code, created_at
         FROM tool_audit WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
      )
      .all(sessionId, options.before ?? Number.MAX_SAFE_INTEGER, limit + 1);
    const entries = rows.slice(0, limit);
    const oldest = entries.at(-1);
    return { entries, next: rows.length > limit && oldest ? String(oldest.id) : null };
  }
}
