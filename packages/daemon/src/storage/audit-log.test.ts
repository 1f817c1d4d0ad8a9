import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { AuditLog } from './audit-log.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { SessionStore } from './session-store.js';

let db: SqliteDatabase | undefined;
afterEach(() => db?.close());

function world() {
  db = openDatabase(join(makeTempDir('bastion-audit-'), 'sessions.db'));
  const store = new SessionStore(db);
  const session = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null });
  return { db, store, session, audit: new AuditLog(db) };
}

const row = (sessionId: string, toolCallId: string) => ({
  session_id: sessionId,
  run_id: null,
  tool_call_id: toolCallId,
  tool_name: 'run_command',
  command_name: 'git',
  mode: 'auto',
  verdict: 'deny' as const,
  rule_id: 'no-push',
  rule_layer: 'project' as const,
  approval: 'not-asked' as const,
  outcome: 'policy-denied' as const,
  code: 'POLICY_DENIED',
});

describe('audit log (tool_audit in sessions.db)', () => {
  it('appends rows and pages them newest first, per session', () => {
    const { store, session, audit } = world();
    const other = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null });
    audit.append(row(session.id, 'call_1'));
    audit.append(row(other.id, 'call_x'));
    audit.append(row(session.id, 'call_2'));
    const page = audit.page(session.id);
    expect(page.entries.map((entry) => entry.tool_call_id)).toEqual(['call_2', 'call_1']);
    expect(page.entries[0]).toMatchObject({ verdict: 'deny', rule_id: 'no-push', command_name: 'git' });
    expect(page.next).toBeNull();
  });

  it('pages on from `next` to the session’s first row, each row once, and says null there', () => {
    const { store, session, audit } = world();
    const other = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null });
    for (let call = 1; call <= 5; call += 1) {
      audit.append(row(session.id, `call_${call}`));
      audit.append(row(other.id, `other_${call}`));
    }
    const first = audit.page(session.id, { limit: 2 });
    expect(first.entries.map((entry) => entry.tool_call_id)).toEqual(['call_5', 'call_4']);
    expect(first.next).toBe(String(first.entries[1]?.id));
    const second = audit.page(session.id, { before: Number(first.next), limit: 2 });
    expect(second.entries.map((entry) => entry.tool_call_id)).toEqual(['call_3', 'call_2']);
    const last = audit.page(session.id, { before: Number(second.next), limit: 2 });
    expect(last.entries.map((entry) => entry.tool_call_id)).toEqual(['call_1']);
    expect(last.next).toBeNull();
  });

  it('is append-only: an UPDATE is refused by the table and the row keeps its values', () => {
    const { db: database, session, audit } = world();
    audit.append(row(session.id, 'call_1'));
    expect(() => database.prepare(`UPDATE tool_audit SET outcome = 'ran'`).run()).toThrow(/append-only/);
    expect(audit.page(session.id).entries[0]?.outcome).toBe('policy-denied');
  });

  it('its rows go with their session', () => {
    const { store, session, audit } = world();
    audit.append(row(session.id, 'call_1'));
    expect(store.sessions.delete(session.id)).toBe(true);
    expect(audit.page(session.id).entries).toEqual([]);
  });
});
