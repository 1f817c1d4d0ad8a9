/**
 * Host-owned files that are edited by reading them and writing them back whole (`policy.json`,
 * `mcp.json`) are written by more than one process: the running host (its Settings, host IPC,
 * "Always allow…") and `bastion policy` / `bastion mcp`, which write in their own process while a
 * host runs. Two edits at once would each write back a file without the other's change. Each edit
 * therefore holds `PATH.lock` from its read to its write: SQLite's fcntl lock, as the home's lock
 * (control/home-lock.ts), which the kernel drops with a killed process, so a crash leaves no stale
 * lock. An edit waits for another at most HOST_FILE_EDIT_LOCK_WAIT_MS (an edit holds it for one
 * read and one small write), blocking its thread meanwhile as its synchronous write does, then
 * refuses with nothing changed.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { HOST_FILE_EDIT_LOCK_WAIT_MS } from '@bastion/protocol';
import { HostError } from './errors.js';
import { USER_DATA_DIR_MODE } from './user-data.js';

/** Run `edit` (which must read the file afresh, not from a cache) holding the lock of the file at `path`. */
export function withEditLock<T>(path: string, edit: () => T): T {
  mkdirSync(dirname(path), { recursive: true, mode: USER_DATA_DIR_MODE });
  const lockPath = `${path}.lock`;
  let lock: Database.Database;
  try {
    // Created 0600 before SQLite opens it (it would use the umask's mode).
    closeSync(openSync(lockPath, 'a', 0o600));
    lock = new Database(lockPath, { timeout: HOST_FILE_EDIT_LOCK_WAIT_MS });
  } catch (cause) {
    throw new HostError('HOME_LOCK_FAILED', `cannot open ${lockPath}`, { cause });
  }
  try {
    try {
      // No journal file: nothing is ever written to the lock file.
      lock.pragma('journal_mode = OFF');
      // Waits (SQLite's busy timeout) while another process's edit holds it; released by close().
      lock.exec('BEGIN EXCLUSIVE');
    } catch (cause) {
      throw new HostError(
        'HOME_LOCK_FAILED',
        `${basename(path)} is being changed by another process (its lock ${lockPath} stayed taken); nothing was changed, try again`,
        { cause },
      );
    }
    return edit();
  } finally {
    lock.close();
  }
}
