import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newSession, useTempStore } from '../../test/support/temp-store.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { MIGRATIONS } from './migrations.js';
import { SessionStore } from './session-store.js';

let dir: string;
let db: SqliteDatabase;
let store: SessionStore;
useTempStore((opened) => ({ dir, db, store } = opened));

describe('sessions', () => {
  it('creates with accept-edits by default and records consent only when entering auto', () => {
    const session = newSession(store);
    expect(session.mode).toBe('accept-edits');
    expect(session.auto_consent).toBeNull();
    const auto = store.sessions.update(session.id, { mode: 'auto', consentBy: 'cli' });
    expect(auto?.mode).toBe('auto');
    expect(auto?.auto_consent?.by).toBe('cli');
    const renamed = store.sessions.update(session.id, { title: 'x', consentBy: 'someone-else' });
    expect(renamed?.auto_consent).toEqual(auto?.auto_consent);
  });

  it('pages newest first without gaps or repeats', () => {
    const ids = Array.from({ length: 7 }, () => newSession(store).id).reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = store.sessions.list({ limit: 3, cursor });
      seen.push(...page.items.map((s) => s.id));
      if (page.next === null) break;
      cursor = page.next;
    }
    expect(seen).toEqual(ids);
  });

  it('deleting a session removes its runs, messages, events and approvals', () => {
    const session = newSession(store);
    const { runId } = store.runs.start(session.id, {
      userContent: [{ role: 'user', content: 'hi' }],
      provider: 'demo',
      model: 'demo',
    });
    store.approvals.recordRequest({
      sessionId: session.id,
      runId,
      approvalId: 'a1',
      toolCallId: 'c1',
      toolName: 't',
      input: {},
    });
    expect(store.sessions.delete(session.id)).toBe(true);
    for (const table of ['runs', 'messages', 'message_parts', 'approvals']) {
      expect(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()).toEqual({ n: 0 });
    }
  });
});

describe('read-only mode and ask-before-writes (migration 3)', () => {
  it('keeps sessions, runs and their cascade when a version-2 database gains the read-only mode', () => {
    const path = join(dir, 'v2.db');
    const old = openDatabase(
      path,
      MIGRATIONS.filter((migration) => migration.version <= 2),
    );
    const session = old
      .prepare<[], { id: string }>(
        `INSERT INTO sessions (id, mode, provider, model, created_at, updated_at)
         VALUES ('ses_migrated01', 'auto', 'demo', 'demo', 'x', 'x') RETURNING id`,
      )
      .get() as { id: string };
    // Written as a version-2 sidecar wrote it: today's store writes columns a later version added.
    const run = { runId: 'run_migrated01' };
    old
      .prepare(
        `INSERT INTO runs (id, session_id, status, provider, model, started_at)
         VALUES (?, ?, 'running', 'demo', 'demo', 'x')`,
      )
      .run(run.runId, session.id);
    old.close();

    const migrated = openDatabase(path);
    const migratedStore = new SessionStore(migrated);
    try {
      expect(migratedStore.sessions.get(session.id)).toMatchObject({
        mode: 'auto',
        ask_before_writes: false,
        last_run: { id: run.runId },
      });
      expect(migrated.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(migratedStore.sessions.update(session.id, { mode: 'read-only', askBeforeWrites: true })).toMatchObject({
        mode: 'read-only',
        ask_before_writes: true,
      });
      expect(migratedStore.sessions.delete(session.id)).toBe(true);
      expect(migratedStore.runs.status(run.runId)).toBeUndefined();
    } finally {
      migrated.close();
    }
  });

  it('records ask_before_writes at creation and reads it back per call', () => {
    const session = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null, askBeforeWrites: true });
    expect(session.ask_before_writes).toBe(true);
    expect(store.sessions.asksBeforeWrites(session.id)).toBe(true);
    store.sessions.update(session.id, { askBeforeWrites: false });
    expect(store.sessions.asksBeforeWrites(session.id)).toBe(false);
    expect(store.sessions.asksBeforeWrites('ses_gone000000')).toBe(false);
  });
});

describe('provisional sessions (migration 15)', () => {
  const provisional = () =>
    store.sessions.create({ provider: 'demo', model: 'demo', workspace: null, provisional: true });

  it('a session made provisional reads so until any patch or run, and other sessions never do', () => {
    expect(newSession(store).provisional).toBeUndefined();
    const patched = provisional();
    expect(patched.provisional).toBe(true);
    expect(store.sessions.update(patched.id, {})?.provisional).toBeUndefined();
    const ran = provisional();
    store.runs.start(ran.id, { userContent: [{ role: 'user', content: 'hi' }], provider: 'demo', model: 'demo' });
    expect(store.sessions.get(ran.id)?.provisional).toBeUndefined();
    expect(store.sessions.provisionalIds()).toEqual([]);
  });

  it('deleteIfUntouched removes only a provisional session with nothing stored in it', () => {
    const plain = newSession(store);
    expect(store.sessions.deleteIfUntouched(plain.id)).toBe(false);
    const untouched = provisional();
    expect(store.sessions.provisionalIds()).toEqual([untouched.id]);
    expect(store.sessions.deleteIfUntouched(untouched.id)).toBe(true);
    expect(store.sessions.get(untouched.id)).toBeUndefined();
    // A message stored with the flag still set (as a run of an older sidecar left it) keeps it.
    const withMessage = provisional();
    store.transcript.append(withMessage.id, null, [{ role: 'user', content: 'hi' }]);
    expect(store.sessions.deleteIfUntouched(withMessage.id)).toBe(false);
    expect(store.sessions.get(withMessage.id)?.provisional).toBe(true);
  });
});
