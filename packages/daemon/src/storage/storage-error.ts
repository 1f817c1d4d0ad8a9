/**
 * Storage failures as coded errors: a full or read-only disk and a damaged sessions.db reach the
 * client as `STORAGE_FULL` (507), `STORAGE_READ_ONLY` (507) or `STORE_CORRUPT` (500) with a fixed
 * message saying what to do, instead of `INTERNAL`. SQLite rolls the failed transaction back, so
 * nothing already committed is lost, and the next write after space is freed succeeds.
 */
import { isDiskFullError } from '@bastion/protocol';
import { DaemonError, isDaemonError } from '../errors.js';

/** STORAGE_FULL with its fixed advice. */
export function storageFullError(cause?: unknown): DaemonError {
  return new DaemonError('STORAGE_FULL', "the disk holding Bastion's data is full; free some space and retry", {
    cause,
  });
}

/** The coded storage error behind `error` (a SqliteError or a Node fs error), if it is one. */
export function storageErrorOf(error: unknown): DaemonError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  if (isDiskFullError(error)) return storageFullError(error);
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') {
    return new DaemonError('STORAGE_READ_ONLY', "the disk holding Bastion's data is read-only", { cause: error });
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new DaemonError('STORE_CORRUPT', 'sessions.db is damaged; run bastion doctor', { cause: error });
  }
  return undefined;
}

const STORAGE_FAILURE_CODES = new Set(['STORAGE_FULL', 'STORAGE_READ_ONLY', 'STORE_CORRUPT', 'STORE_WRITE_FAILED']);

/** Whether `error` is the coded storage failure that ends the runs in progress. */
export function isStorageFailure(error: unknown): error is DaemonError {
  return isDaemonError(error) && STORAGE_FAILURE_CODES.has(error.code);
}

/** The coded failure behind a write that did not commit: a storage error, else STORE_WRITE_FAILED. */
export function storageFailureOf(error: unknown): DaemonError {
  return (
    storageErrorOf(error) ??
    new DaemonError('STORE_WRITE_FAILED', 'sessions.db could not be written; run bastion doctor', { cause: error })
  );
}
