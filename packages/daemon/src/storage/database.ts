/**
 * Opens `<userData>/sessions.db`: WAL (readers never block the writer, and a SIGKILL leaves the
 * last committed transaction; the WAL file is cut back to a bound after checkpoints), foreign keys
 * on, a busy timeout, then the pending migrations. The file is created 0600 before SQLite opens
 * it: SQLite gives its -wal and -shm files the database file's mode, so all three are private
 * (SQLite alone would create them 0644 under umask 022).
 */
import { closeSync, constants, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { STORE_BUSY_TIMEOUT_MS, STORE_WAL_SIZE_LIMIT_BYTES } from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';

export type SqliteDatabase = Database.Database;

export function openDatabase(path: string, migrations: readonly Migration[] = MIGRATIONS): SqliteDatabase {
  closeSync(openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  const db = new Database(path, { timeout: STORE_BUSY_TIMEOUT_MS });
  try {
    // Takes effect only before the first table exists: new databases give freed pages back to the
    // file system when asked (PRAGMA incremental_vacuum); older ones keep reusing them.
    if (schemaVersion(db) === 0) db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(`journal_size_limit = ${STORE_WAL_SIZE_LIMIT_BYTES}`);
    // NORMAL in WAL mode: a committed transaction survives a process crash (SIGKILL); only an OS
    // crash can lose the last transactions, never corrupt the file.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${STORE_BUSY_TIMEOUT_MS}`);
    migrate(db, migrations);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

export function schemaVersion(db: SqliteDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: SqliteDatabase, migrations: readonly Migration[]): void {
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const current = schemaVersion(db);
  if (current > latest) {
    throw new DaemonError('STORE_TOO_NEW', 'sessions.db was written by a newer Bastion');
  }
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version <= schemaVersion(db)) continue;
    // PRAGMA foreign_keys is a no-op inside a transaction: switch it around the rebuild.
    if (migration.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        db.exec(migration.sql);
        if (migration.rebuildsTables && (db.pragma('foreign_key_check') as unknown[]).length > 0) {
          throw new DaemonError('STORE_MIGRATION_FAILED', 'a table rebuild broke a foreign key');
        }
        db.pragma(`user_version = ${migration.version}`);
      }).immediate();
    } finally {
      if (migration.rebuildsTables) db.pragma('foreign_keys = ON');
    }
  }
}
