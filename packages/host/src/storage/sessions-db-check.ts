/**
 * Checks `<userData>/sessions.db` before the sidecar opens it, so a file that is not a database or
 * is damaged fails the start at once with a message that names the file and how to recover,
 * instead of a sidecar that dies on every respawn. The check opens the file read-only and never
 * changes it: Bastion never deletes or repairs a user's sessions. At start it reads the schema
 * (header and schema pages); `bastion doctor` adds SQLite's `PRAGMA quick_check` over every page.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SESSIONS_DB_FILE, STORE_CHECK_MAX_PROBLEMS } from '@bastion/protocol';

export type SessionsDatabaseCheck =
  | { ok: true; exists: boolean }
  | { ok: false; code: 'STORE_NOT_A_DATABASE' | 'STORE_CORRUPT' | 'STORE_UNREADABLE'; message: string };

/** How to get going again without losing the damaged file. */
export function sessionsRecoveryAdvice(path: string): string {
  return `Bastion left it untouched. To start with an empty history, move it aside (with its -wal and -shm files, if any): mv ${path} ${path}.damaged — Bastion never deletes it`;
}

export function checkSessionsDatabase(userData: string, options: { thorough?: boolean } = {}): SessionsDatabaseCheck {
  const path = join(userData, SESSIONS_DB_FILE);
  if (!existsSync(path)) return { ok: true, exists: false };
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    if (options.thorough) {
      const rows = db.pragma(`quick_check(${STORE_CHECK_MAX_PROBLEMS})`) as { quick_check: string }[];
      const problems = rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
      if (problems.length > 0) {
        return {
          ok: false,
          code: 'STORE_CORRUPT',
          message: `${path} is damaged (${problems.length} problem${problems.length === 1 ? '' : 's'} found by quick_check). ${sessionsRecoveryAdvice(path)}`,
        };
      }
    }
    return { ok: true, exists: true };
  } catch (error) {
    const found = (error as { code?: unknown }).code;
    const code = typeof found === 'string' ? found : '';
    if (code === 'SQLITE_NOTADB') {
      return {
        ok: false,
        code: 'STORE_NOT_A_DATABASE',
        message: `${path} is not a SQLite database. ${sessionsRecoveryAdvice(path)}`,
      };
    }
    if (code.startsWith('SQLITE_CORRUPT')) {
      return { ok: false, code: 'STORE_CORRUPT', message: `${path} is damaged. ${sessionsRecoveryAdvice(path)}` };
    }
    return { ok: false, code: 'STORE_UNREADABLE', message: `${path} cannot be read (${code || 'unknown error'})` };
  } finally {
    db?.close();
  }
}
