/** Test support: what a session left in a real sessions.db. */
import Database from 'better-sqlite3';

/** The length of the longest message content or event row `sessionId` has in the sessions.db at `path`. */
export function longestStoredRow(path: string, sessionId: string): number {
  const db = new Database(path, { readonly: true });
  try {
    const row = db
      .prepare(
        `SELECT max(
           (SELECT coalesce(max(length(content)), 0) FROM messages WHERE session_id = ?),
           (SELECT coalesce(max(length(data)), 0) FROM message_parts WHERE session_id = ?)
         ) AS longest`,
      )
      .get(sessionId, sessionId) as { longest: number };
    return row.longest;
  } finally {
    db.close();
  }
}
