import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Session } from '@bastion/protocol';
import { openDatabase, type SqliteDatabase } from '../../src/storage/database.js';
import { SessionStore } from '../../src/storage/session-store.js';
import { makeTempDir } from './temp-dir.js';

export interface TempStore {
  dir: string;
  db: SqliteDatabase;
  store: SessionStore;
}

/**
 * Before each test of the file: a fresh sessions.db (every migration applied) in a temp dir and
 * a store over it, handed to `opened`; after it, the database is closed and the dir removed.
 */
export function useTempStore(opened: (current: TempStore) => void): void {
  let current: TempStore | undefined;
  beforeEach(() => {
    const dir = makeTempDir();
    const db = openDatabase(join(dir, 'sessions.db'));
    current = { dir, db, store: new SessionStore(db) };
    opened(current);
  });
  afterEach(() => {
    current?.db.close();
    if (current) rmSync(current.dir, { recursive: true, force: true });
    current = undefined;
  });
}

/** A session with the demo provider and no workspace. */
export function newSession(store: SessionStore): Session {
  return store.sessions.create({ provider: 'demo', model: 'demo', workspace: null });
}
