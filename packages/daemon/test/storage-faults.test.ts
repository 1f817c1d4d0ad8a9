/**
 * A damaged sessions.db page found while serving answers with the coded STORE_CORRUPT (naming
 * what to do), not 500 INTERNAL, and the daemon keeps serving what is intact.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Session } from '@bastion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { damageTableRootPage } from '../../../test/support/damaged-database.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

/** Fill the messages table over many pages, then damage its root page. */
function damageMessagesTable(path: string, sessionId: string): void {
  const db = new Database(path);
  const insert = db.prepare(
    `INSERT INTO messages (id, session_id, run_id, seq, role, content, created_at) VALUES (?, ?, NULL, ?, 'user', ?, '2026-12-03T00:00:00Z')`,
  );
  db.transaction(() => {
    for (let seq = 0; seq < 400; seq++) insert.run(`msg_fill_${seq}`, sessionId, seq, JSON.stringify('x'.repeat(200)));
  })();
  db.close();
  damageTableRootPage(path, 'messages');
}

describe('a damaged sessions.db page at run time', () => {
  it('answers GET /sessions/:id/messages with 500 STORE_CORRUPT (not INTERNAL) and still serves the session row', async () => {
    daemon = await startInProcessDaemon();
    const created = await daemon.request<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
    expect(created.status).toBe(201);
    const root = daemon.root;
    await daemon.stop();
    damageMessagesTable(join(daemon.userData, 'sessions.db'), created.body.id);
    daemon = await startInProcessDaemon({ root });
    const messages = await daemon.request<{ code: string; message: string }>(
      'GET',
      `/sessions/${created.body.id}/messages`,
    );
    expect(messages.status).toBe(500);
    expect(messages.body).toEqual({ code: 'STORE_CORRUPT', message: 'sessions.db is damaged; run bastion doctor' });
    expect((await daemon.request('GET', `/sessions/${created.body.id}`)).status).toBe(200);
  });
});
