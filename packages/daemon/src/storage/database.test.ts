import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newSession, useTempStore } from '../../test/support/temp-store.js';
import { thrownCode as codeOf } from '../../../../test/support/thrown-code.js';
import { migrate, openDatabase, schemaVersion, type SqliteDatabase } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { SessionStore } from './session-store.js';

let dir: string;
let db: SqliteDatabase;
let store: SessionStore;
useTempStore((opened) => ({ dir, db, store } = opened));

describe('migrations', () => {
  it('opens with WAL, foreign keys and the latest schema version', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)?.version);
  });

  it('is idempotent when the database is reopened, keeping data', () => {
    const session = newSession(store);
    db.close();
    const reopened = openDatabase(join(dir, 'sessions.db'));
    try {
      expect(new SessionStore(reopened).sessions.get(session.id)?.id).toBe(session.id);
    } finally {
      reopened.close();
    }
  });

  const latest = MIGRATIONS.at(-1)?.version ?? 0;

  it('applies only the pending migrations, in order', () => {
    migrate(db, [...MIGRATIONS, { version: latest + 1, sql: 'CREATE TABLE extra (x INTEGER)' }]);
    expect(schemaVersion(db)).toBe(latest + 1);
    expect(() => db.prepare('SELECT x FROM extra').all()).not.toThrow();
  });

  it('rolls back a failing migration entirely and keeps the old version', () => {
    const bad = { version: latest + 1, sql: 'CREATE TABLE half (x INTEGER); THIS IS NOT SQL;' };
    expect(() => migrate(db, [...MIGRATIONS, bad])).toThrow();
    expect(schemaVersion(db)).toBe(latest);
    expect(() => db.prepare('SELECT x FROM half').all()).toThrow(/no such table/);
  });

  it('refuses a database written by a newer schema', () => {
    db.pragma('user_version = 99');
    expect(codeOf(() => migrate(db, MIGRATIONS))).toBe('STORE_TOO_NEW');
  });
});
