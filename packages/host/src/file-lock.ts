/**
 * Locks between processes on host-owned files: SQLite's fcntl lock on a lock file, taken
 * EXCLUSIVE and held until released or until its process dies (the kernel drops it then, so a
 * killed process leaves no stale lock). The home's lock (control/home-lock.ts) holds one for the
 * host's life; edits hold one for a read and a write (withEditLock).
 *
 * Host-owned files edited by reading them and writing them back whole (`policy.json`, `mcp.json`)
 * are written by more than one process: the running host (Settings over host IPC, "Always
 * allow…") and `bastion policy` / `bastion mcp`, which write in their own process while a host
 * runs. Two edits at once would each write back a file without the other's change, so each holds
 * `PATH.lock` from its read to its write, waiting for another at most HOST_FILE_EDIT_LOCK_WAIT_MS
 * (an edit holds it for one read and one small write), blocking its thread meanwhile as its
 * synchronous write does, then refusing with nothing changed. Does not catch a file system
 * without working fcntl locks (some network mounts).
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { HOST_FILE_EDIT_LOCK_WAIT_MS, HOST_FILE_LOCK_RETRY_PAUSES_MS, isDiskFullError } from '@bastion/protocol';
import { HostError } from './errors.js';
import { USER_DATA_DIR_MODE } from './user-data.js';

export interface FileLock {
  release(): void;
}

/**
 * Take the lock on `path` (created 0600), trying again while another connection holds it for up
 * to `waitMs`; undefined when it stayed taken. The waiting is done here rather than by SQLite's
 * busy timeout: SQLite answers SQLITE_BUSY at once, without waiting, when two connections each
 * hold the shared lock on the way to the exclusive one (so that neither waits on the other
 * forever), which happens whenever several processes try at the same moment. A failed try closes
 * its connection, dropping whatever it held, so the next try starts from nothing.
 */
export function takeFileLock(path: string, waitMs: number): FileLock | undefined {
  try {
    // Created 0600 before SQLite opens it (it would use the umask's mode).
    closeSync(openSync(path, 'a', 0o600));
  } catch (cause) {
    throw lockFailure(path, 'open', cause);
  }
  const deadline = Date.now() + waitMs;
  for (let tries = 0; ; tries += 1) {
    const lock = tryFileLock(path);
    const left = deadline - Date.now();
    if (lock || left <= 0) return lock;
    const pause = HOST_FILE_LOCK_RETRY_PAUSES_MS[Math.min(tries, HOST_FILE_LOCK_RETRY_PAUSES_MS.length - 1)]!;
    sleepBlocking(Math.min(pause, left));
  }
}

/** One try at the lock on `path`, not waiting; undefined when another connection holds it. */
function tryFileLock(path: string): FileLock | undefined {
  let db: Database.Database;
  try {
    db = new Database(path, { timeout: 0 });
  } catch (cause) {
    throw lockFailure(path, 'open', cause);
  }
  try {
    // No journal file: nothing is ever written, and a killed holder leaves only the lock file behind.
    db.pragma('journal_mode = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    // An exclusive transaction that never commits holds the write lock for the connection's life.
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw lockFailure(path, 'lock', error);
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}

/**
 * Why the lock on `path` could not be taken, as one coded line with the next step: a full or failing
 * disk (SQLite needs to write the lock file's header; SQLITE_FULL, SQLITE_IOERR_*) is STORAGE_FULL,
 * a read-only one STORAGE_READ_ONLY, and a lock file that is no SQLite database (junk left by
 * something else) HOME_LOCK_CORRUPT naming the file to remove; anything else HOME_LOCK_FAILED.
 */
function lockFailure(path: string, step: 'open' | 'lock', cause: unknown): HostError {
  const code = (cause as { code?: unknown } | undefined)?.code;
  const text = typeof code === 'string' ? code : '';
  if (isDiskFullError(cause) || text.startsWith('SQLITE_IOERR')) {
    return new HostError(
      'STORAGE_FULL',
      `cannot ${step} ${path}: the disk is full or failing (${text}): free some space and try again; nothing was changed`,
      { cause },
    );
  }
  if (text.startsWith('SQLITE_READONLY') || text === 'EROFS') {
    return new HostError(
      'STORAGE_READ_ONLY',
      `cannot ${step} ${path}: the disk is read-only (${text}): remount it read-write and try again; nothing was changed`,
      { cause },
    );
  }
  if (text === 'SQLITE_NOTADB' || text.startsWith('SQLITE_CORRUPT')) {
    return new HostError(
      'HOME_LOCK_CORRUPT',
      `${path} is not a lock file Bastion made (${text}): remove that file (no process can hold a lock in it) and try again; nothing was changed`,
      { cause },
    );
  }
  return new HostError('HOME_LOCK_FAILED', `cannot ${step} ${path}${text ? ` (${text})` : ''}`, { cause });
}

/** Block this thread for `ms`, as the synchronous edit around the wait does. */
function sleepBlocking(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Run `edit` (which must read the file afresh, not from a cache) holding the lock of the file at
 * `path`; FILE_EDIT_BUSY, nothing done, when another holds it for all of HOST_FILE_EDIT_LOCK_WAIT_MS.
 */
export function withEditLock<T>(path: string, edit: () => T): T {
  mkdirSync(dirname(path), { recursive: true, mode: USER_DATA_DIR_MODE });
  const lockPath = `${path}.lock`;
  const lock = takeFileLock(lockPath, HOST_FILE_EDIT_LOCK_WAIT_MS);
  if (!lock) {
    throw new HostError(
      'FILE_EDIT_BUSY',
      `${basename(path)} is being changed by another process (its lock ${lockPath} stayed taken); nothing was changed, try again`,
    );
  }
  try {
    return edit();
  } finally {
    lock.release();
  }
}
