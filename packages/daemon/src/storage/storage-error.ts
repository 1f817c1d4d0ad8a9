/**
 * Storage failures as coded errors: a full or read-only disk and a damaged sessions.db reach the
 * client as `STORAGE_FULL` (507), `STORAGE_READ_ONLY` (507) or `STORE_CORRUPT` (500) with a fixed
 * message saying what to do, instead of `INTERNAL`. SQLite rolls the failed transaction back, so
 * nothing already committed is lost, and the next write after space is freed succeeds.
 */
import { DaemonError } from '../errors.js';

/** The coded storage error behind `error` (a SqliteError or a Node fs error), if it is one. */
export function storageErrorOf(error: unknown): DaemonError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') {
    return new DaemonError('STORAGE_FULL', "the disk holding Bastion's data is full; free some space and retry", {
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') {
    return new DaemonError('STORAGE_READ_ONLY', "the disk holding Bastion's data is read-only", { cause: error });
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new DaemonError('STORE_CORRUPT', 'sessions.db is damaged; run bastion doctor', { cause: error });
  }
  return undefined;
}
