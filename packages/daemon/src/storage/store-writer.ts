/**
 * The one writer of sessions.db that every part of the sessions store shares (the file has one
 * connection, and one sidecar at a time). Appended events are group-committed: the first append
 * outside another transaction opens one that commits after STORE_GROUP_COMMIT_MS, so a burst of
 * deltas costs one commit. Every other write, and every read of events, first commits that open
 * group, so no caller has to: a write never joins (and can never be rolled back with) a group of
 * events, and a reader never sees an event id that a crash could take back and reuse.
 */
import { STORE_GROUP_COMMIT_MS } from '@bastion/protocol';
import type { SqliteDatabase } from './database.js';

export class StoreWriter {
  readonly db: SqliteDatabase;
  /** The time stamped on rows, as an ISO string. */
  readonly now: () => string;
  /** Whether the group of appended events is open (an uncommitted transaction of its own). */
  #groupOpen = false;
  #afterCommit: (() => void)[] = [];
  /** Told when a group of appended events could not be committed and was rolled back. */
  readonly #groupLostListeners: ((error: unknown) => void)[] = [];

  constructor(db: SqliteDatabase, now: () => Date = () => new Date()) {
    this.db = db;
    this.now = () => now().toISOString();
  }

  /**
   * Commit the open group, then run `change` as one immediate transaction (a savepoint when it
   * runs inside another write); a throw rolls all of it back.
   */
  write<T>(change: () => T): T {
    this.commit();
    return this.db.transaction(change).immediate();
  }

  /**
   * Commit the open group, then run `query`: it sees only committed events. A group that cannot
   * commit (a full or read-only disk) is rolled back and its listeners told, and `query` still
   * runs: a read needs no room, and what it answers is committed either way.
   */
  read<T>(query: () => T): T {
    try {
      this.commit();
    } catch {
      // The group is gone and the group-lost listeners have been told (see commit).
    }
    return query();
  }

  /**
   * Run `insert` (one appended event) inside the open group, opening one when no transaction is
   * open; inside a write it joins that write's transaction instead. A failed insert rolls the
   * group back whole (see onGroupLost).
   */
  append<T>(insert: () => T): T {
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN IMMEDIATE');
      this.#groupOpen = true;
      setTimeout(() => {
        try {
          this.commit();
        } catch {
          // Nobody waits on this commit: the group-lost listeners have been told.
        }
      }, STORE_GROUP_COMMIT_MS).unref();
    }
    try {
      return insert();
    } catch (error) {
      if (this.#groupOpen) this.#abandonGroup(error);
      throw error;
    }
  }

  /** Run `callback` once everything appended so far is committed (now, if it already is). */
  afterCommit(callback: () => void): void {
    if (this.#groupOpen) this.#afterCommit.push(callback);
    else callback();
  }

  /**
   * Call `listener` whenever a group of appended events fails to commit (a full or read-only disk,
   * a damaged page): the group was rolled back whole and none of its events was ever published.
   */
  onGroupLost(listener: (error: unknown) => void): void {
    this.#groupLostListeners.push(listener);
  }

  /** Commit the open group of appended events now, then run their afterCommit callbacks in order. */
  commit(): void {
    // a database closed with a group still open has rolled it back; nothing to commit
    if (!this.#groupOpen || !this.db.open) return;
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.#abandonGroup(error);
      throw error;
    }
    this.#groupOpen = false;
    const callbacks = this.#afterCommit;
    this.#afterCommit = [];
    for (const callback of callbacks) callback();
  }

  /**
   * Roll the open group back and drop its afterCommit callbacks: its events were never published,
   * and their ids will be used again, so no client may ever see them.
   */
  #abandonGroup(error: unknown): void {
    if (this.db.inTransaction) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite already rolled it back (it may, after SQLITE_FULL or an I/O error).
      }
    }
    this.#groupOpen = false;
    this.#afterCommit = [];
    for (const listener of this.#groupLostListeners) listener(error);
  }
}
