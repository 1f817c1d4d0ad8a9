/**
 * The watchdog's audit log in sessions.db (`tool_audit`): appended once a tool call's decision is
 * known, read newest first for the UI. No method changes or removes a row (the table also refuses
 * UPDATE); rows go only with their session. A row holds no argument beyond the command's name.
 */
import { AUDIT_MAX_PAGE, type AuditEntry } from '@bastion/protocol';
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

  /** The session's newest rows, oldest first. */
  list(sessionId: string, limit = AUDIT_MAX_PAGE): AuditEntry[] {
    const rows = this.#db
      .prepare<[string, number], AuditEntry>(
        `SELECT id, run_id, tool_call_id, tool_name, command_name, mode, verdict, rule_id, rule_layer, approval,
           outcome, code, created_at
         FROM tool_audit WHERE session_id = ? ORDER BY id DESC LIMIT ?`,
      )
      .all(sessionId, Math.min(Math.max(limit, 1), AUDIT_MAX_PAGE));
    return rows.reverse();
  }
}
