/**
 * Issue 4: the sessions store. Appending 10 000 message parts (events) one by one through
 * RunLog.appendEvent (group-committed, as a run writes them, and committed before the
 * clock stops) vs raw better-sqlite3 inserts of the same rows, one autocommit each, same file
 * and settings; then one page of a 10 000-session table through
 * Sessions.list vs the raw SELECT. Target: 10 000 appends ≤ 0.5 s.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDatabase, SessionStore } from '@bastion/daemon/testing';
import { makeTempDir } from '../packages/daemon/test/support/temp-dir.js';
import { figure, median, type Benchmark } from './harness.js';

const PARTS = 10_000;
const SESSIONS = 10_000;
const PAGE = 50;
const PAGE_REPEATS = 200;

export const storeBenchmark: Benchmark = {
  id: 'store',
  title: 'sessions store: 10 000 part appends and a 10 000-session page vs raw better-sqlite3',
  run() {
    const dir = makeTempDir('bastion-bench-store-');
    try {
      const db = openDatabase(join(dir, 'sessions.db'));
      const store = new SessionStore(db);
      const session = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null });
      const { runId } = store.runs.start(session.id, { provider: 'demo', model: 'demo' });

      // baseline: the same rows through a bare prepared statement, same file, same pragmas
      const raw = db.prepare(
        'INSERT INTO message_parts (session_id, run_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)',
      );
      const rawStart = performance.now();
      for (let i = 0; i < PARTS; i += 1) {
        raw.run(
          session.id,
          runId,
          'text-delta',
          JSON.stringify({ type: 'text-delta', run_id: runId, text: `word${i} ` }),
          new Date().toISOString(),
        );
      }
      const rawSeconds = (performance.now() - rawStart) / 1000;

      const start = performance.now();
      for (let i = 0; i < PARTS; i += 1)
        store.runs.appendEvent(session.id, { type: 'text-delta', run_id: runId, text: `word${i} ` });
      store.runs.commit();
      const appendSeconds = (performance.now() - start) / 1000;

      const insert = db.prepare(
        `INSERT INTO sessions (id, title, mode, provider, model, created_at, updated_at) VALUES (?, '', 'accept-edits', 'demo', 'demo', ?, ?)`,
      );
      db.transaction(() => {
        const now = new Date().toISOString();
        for (let i = 0; i < SESSIONS; i += 1) insert.run(`ses_bench${String(i).padStart(8, '0')}`, now, now);
      })();
      const middle = String(Math.floor(SESSIONS / 2));
      const storeTimes: number[] = [];
      const rawTimes: number[] = [];
      const rawPage = db.prepare('SELECT * FROM sessions WHERE n < ? ORDER BY n DESC LIMIT ?');
      for (let i = 0; i < PAGE_REPEATS; i += 1) {
        let t = performance.now();
        store.sessions.list({ limit: PAGE, cursor: middle });
        storeTimes.push(performance.now() - t);
        t = performance.now();
        rawPage.all(Number(middle), PAGE + 1);
        rawTimes.push(performance.now() - t);
      }
      db.close();
      return Promise.resolve([
        figure(`append ${PARTS} parts`, 's', appendSeconds, rawSeconds, '≤ 0.5 s', (_r, bastion) => bastion <= 0.5),
        figure(
          `list one ${PAGE}-session page of ${SESSIONS} (median)`,
          'ms',
          median(storeTimes),
          median(rawTimes),
          'informational',
          () => true,
        ),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
