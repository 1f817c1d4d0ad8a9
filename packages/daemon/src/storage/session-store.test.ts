import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STORE_FOLDED_DELTA_MAX_BYTES, type AgentEvent } from '@bastion/protocol';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { thrownCode as codeOf } from '../../test/support/thrown-code.js';
import { migrate, openDatabase, schemaVersion, type SqliteDatabase } from './database.js';
import { PAGE_MAX_LIMIT } from '@bastion/protocol';
import { MIGRATIONS } from './migrations.js';
import { SessionStore } from './session-store.js';

let dir: string;
let db: SqliteDatabase;
let store: SessionStore;

beforeEach(() => {
  dir = makeTempDir();
  db = openDatabase(join(dir, 'sessions.db'));
  store = new SessionStore(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const newSession = () => store.createSession({ provider: 'demo', model: 'demo', workspace: null });

describe('migrations', () => {
  it('opens with WAL, foreign keys and the latest schema version', () => {
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)?.version);
  });

  it('is idempotent when the database is reopened, keeping data', () => {
    const session = newSession();
    db.close();
    db = openDatabase(join(dir, 'sessions.db'));
    expect(new SessionStore(db).getSession(session.id)?.id).toBe(session.id);
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

describe('sessions', () => {
  it('creates with accept-edits by default and records consent only when entering auto', () => {
    const session = newSession();
    expect(session.mode).toBe('accept-edits');
    expect(session.auto_consent).toBeNull();
    const auto = store.updateSession(session.id, { mode: 'auto', consentBy: 'cli' });
    expect(auto?.mode).toBe('auto');
    expect(auto?.auto_consent?.by).toBe('cli');
    const renamed = store.updateSession(session.id, { title: 'x', consentBy: 'someone-else' });
    expect(renamed?.auto_consent).toEqual(auto?.auto_consent);
  });

  it('pages newest first without gaps or repeats', () => {
    const ids = Array.from({ length: 7 }, () => newSession().id).reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = store.listSessions({ limit: 3, cursor });
      seen.push(...page.items.map((s) => s.id));
      if (page.next === null) break;
      cursor = page.next;
    }
    expect(seen).toEqual(ids);
  });

  it('deleting a session removes its runs, messages, events and approvals', () => {
    const session = newSession();
    const { runId } = store.startRun(session.id, {
      userContent: [{ role: 'user', content: 'hi' }],
      provider: 'demo',
      model: 'demo',
    });
    store.recordApprovalRequest({
      sessionId: session.id,
      runId,
      approvalId: 'a1',
      toolCallId: 'c1',
      toolName: 't',
      input: {},
    });
    expect(store.deleteSession(session.id)).toBe(true);
    for (const table of ['runs', 'messages', 'message_parts', 'approvals']) {
      expect(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()).toEqual({ n: 0 });
    }
  });
});

describe('runs and events', () => {
  it('allows one running run per session and starts another after it ends', () => {
    const session = newSession();
    const first = store.startRun(session.id, {
      userContent: [{ role: 'user', content: 'a' }],
      provider: 'demo',
      model: 'demo',
    });
    expect(
      codeOf(() =>
        store.startRun(session.id, { userContent: [{ role: 'user', content: 'b' }], provider: 'demo', model: 'demo' }),
      ),
    ).toBe('RUN_ACTIVE');
    // the refused start left nothing half-written: one user message only
    expect(store.listMessages(session.id).items).toHaveLength(1);
    store.finishRun(session.id, first.runId, 'finished', {
      type: 'run-finished',
      run_id: first.runId,
      finish_reason: 'stop',
    });
    expect(() =>
      store.startRun(session.id, { userContent: [{ role: 'user', content: 'b' }], provider: 'demo', model: 'demo' }),
    ).not.toThrow();
  });

  it('returns events after an id, in order, across sessions independently', () => {
    const a = newSession();
    const b = newSession();
    const runA = store.startRun(a.id, { provider: 'demo', model: 'demo' });
    const runB = store.startRun(b.id, { provider: 'demo', model: 'demo' });
    for (let i = 0; i < 5; i += 1) {
      store.appendEvent(a.id, { type: 'text-delta', run_id: runA.runId, text: `a${i}` });
      store.appendEvent(b.id, { type: 'text-delta', run_id: runB.runId, text: `b${i}` });
    }
    const all = store.eventsAfter(a.id, 0, 100);
    expect(all.map((e) => e.event.type)).toEqual(['run-started', ...Array<string>(5).fill('text-delta')]);
    const resumed = store.eventsAfter(a.id, all[2]!.id, 100);
    expect(resumed.map((e) => (e.event.type === 'text-delta' ? e.event.text : ''))).toEqual(['a2', 'a3', 'a4']);
  });

  it('group-commits events: durable (seen by another connection) and announced only after the commit', () => {
    const session = newSession();
    const { runId } = store.startRun(session.id, { provider: 'demo', model: 'demo' });
    const other = openDatabase(join(dir, 'sessions.db'));
    const count = () => (other.prepare('SELECT COUNT(*) AS n FROM message_parts').get() as { n: number }).n;
    try {
      const committedBefore = count();
      const announced: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const entry = store.appendEvent(session.id, { type: 'text-delta', run_id: runId, text: `t${i}` });
        store.afterCommit(() => announced.push(entry.id));
      }
      expect(count()).toBe(committedBefore);
      expect(announced).toEqual([]);
      // any other write (or a read of events) commits the group first
      store.eventsAfter(session.id, 0, 10);
      expect(count()).toBe(committedBefore + 3);
      expect(announced).toHaveLength(3);
    } finally {
      other.close();
    }
  });

  it('marks runs left running as interrupted, with a run-error event', () => {
    const session = newSession();
    const { runId } = store.startRun(session.id, { provider: 'demo', model: 'demo' });
    expect(store.interruptStaleRuns()).toBe(1);
    expect(store.runStatus(runId)).toBe('interrupted');
    expect(store.eventsAfter(session.id, 0, 10).at(-1)?.event).toMatchObject({
      type: 'run-error',
      code: 'RUN_INTERRUPTED',
    });
    expect(store.interruptStaleRuns()).toBe(0);
  });

  /** Runs of the given numbers of text deltas, each finished; returns every run's event ids. */
  const seedRuns = (sessionId: string, deltas: readonly number[]): number[][] =>
    deltas.map((count, turn) => {
      const started = store.startRun(sessionId, {
        provider: 'demo',
        model: 'demo',
        userContent: [{ role: 'user', content: `prompt ${turn}` }],
      });
      const ids = [started.event.id];
      for (let i = 0; i < count; i += 1) {
        ids.push(store.appendEvent(sessionId, { type: 'text-delta', run_id: started.runId, text: `t${i}` }).id);
      }
      const end = store.finishRun(sessionId, started.runId, 'finished', {
        type: 'run-finished',
        run_id: started.runId,
        finish_reason: 'stop',
      });
      return [...ids, end.id];
    });

  it('pages events newest first, each page starting at a run, until the first event', () => {
    const session = newSession();
    const other = newSession();
    const runs = seedRuns(session.id, [2, 3, 1, 2]); // runs of 4, 5, 3 and 4 events
    seedRuns(other.id, [5]);
    const first = store.eventsBefore(session.id, undefined, 10);
    // the 10 newest end inside the second run: the page is cut back to the third run's start
    expect(first.items.map((entry) => entry.id)).toEqual([...runs[2]!, ...runs[3]!]);
    expect(first.next).toBe(String(runs[2]![0]));
    const second = store.eventsBefore(session.id, Number(first.next), 10);
    expect(second.items.map((entry) => entry.id)).toEqual([...runs[0]!, ...runs[1]!]);
    expect(second.next).toBeNull();
  });

  it('cuts a run in two only when it alone is longer than the page, and then says where to go on', () => {
    const session = newSession();
    const runs = seedRuns(session.id, [1, 12]);
    const first = store.eventsBefore(session.id, undefined, 5);
    expect(first.items.map((entry) => entry.id)).toEqual(runs[1]!.slice(-5));
    expect(first.next).toBe(String(runs[1]!.at(-5)));
    const rest: number[] = [];
    for (let cursor = first.next; cursor !== null;) {
      const page = store.eventsBefore(session.id, Number(cursor), 5);
      rest.unshift(...page.items.map((entry) => entry.id));
      cursor = page.next;
    }
    expect([...rest, ...first.items.map((entry) => entry.id)]).toEqual(runs.flat());
  });

  it('finds the prompts a page names by id, only in that session', () => {
    const session = newSession();
    const other = newSession();
    seedRuns(session.id, [0, 0]);
    seedRuns(other.id, [0]);
    const ids = store.listMessages(session.id).items.map((message) => message.id);
    const foreign = store.listMessages(other.id).items[0]!.id;
    const found = store.messagesById(session.id, [ids[1]!, foreign, 'msg_unknown', ids[0]!]);
    expect(found.map((message) => message.parts[0])).toEqual([
      { type: 'text', text: 'prompt 1' },
      { type: 'text', text: 'prompt 0' },
    ]);
  });

  it('pages the transcript oldest first', () => {
    const session = newSession();
    store.appendMessages(
      session.id,
      null,
      Array.from({ length: 5 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
    );
    const first = store.listMessages(session.id, { limit: 2 });
    const second = store.listMessages(session.id, { limit: 2, cursor: first.next ?? undefined });
    expect([...first.items, ...second.items].map((m) => m.parts[0])).toEqual(
      ['m0', 'm1', 'm2', 'm3'].map((text) => ({ type: 'text', text })),
    );
    expect(store.modelContext(session.id, PAGE_MAX_LIMIT).messages).toHaveLength(5);
  });
});

describe('model context (compaction, migration 7)', () => {
  const text = (role: 'user' | 'assistant', value: string) => ({
    role,
    content: [{ type: 'text' as const, text: value }],
  });
  const result = (id: string) => ({
    role: 'tool' as const,
    content: [
      {
        type: 'tool-result' as const,
        toolCallId: id,
        toolName: 'list_dir',
        output: { type: 'text' as const, value: id },
      },
    ],
  });

  it('starts after the latest summary: the summary text and only the messages stored after the one it covers', () => {
    const session = newSession();
    const ids = store.appendMessages(session.id, null, [text('user', 'a'), text('assistant', 'b'), text('user', 'c')]);
    store.saveContextSummary({
      sessionId: session.id,
      runId: store.startRun(session.id, { provider: 'demo', model: 'demo' }).runId,
      throughMessageId: ids[1] as string,
      summary: 'a then b',
      messagesSummarized: 2,
    });
    const read = store.modelContext(session.id, PAGE_MAX_LIMIT);
    expect(read).toEqual({ summary: 'a then b', messages: [text('user', 'c')], ids: [ids[2]], cut: false });
    // the transcript itself stays whole
    expect(store.listMessages(session.id).items).toHaveLength(3);
  });

  it('merges consecutive tool messages into one, whose id is its last stored row', () => {
    const session = newSession();
    const ids = store.appendMessages(session.id, null, [text('user', 'go'), result('t1'), result('t2')]);
    const read = store.modelContext(session.id, PAGE_MAX_LIMIT);
    expect(read.messages.at(-1)).toEqual({ role: 'tool', content: [...result('t1').content, ...result('t2').content] });
    expect(read.ids).toEqual([ids[0], ids[2]]);
  });

  it('reads at most the limit of newest messages, says it cut, and never starts at a tool result', () => {
    const session = newSession();
    store.appendMessages(session.id, null, [
      text('user', 'u1'),
      text('assistant', 'a1'),
      result('t1'),
      result('t2'),
      text('user', 'u2'),
      text('assistant', 'a2'),
    ]);
    const read = store.modelContext(session.id, 4);
    expect(read.cut).toBe(true);
    expect(read.messages).toEqual([text('user', 'u2'), text('assistant', 'a2')]);
  });

  it('refuses a summary through a message of another session with CONTEXT_SUMMARY_UNKNOWN_MESSAGE, storing none', () => {
    const session = newSession();
    const other = newSession();
    const [foreign] = store.appendMessages(other.id, null, [text('user', 'theirs')]);
    store.appendMessages(session.id, null, [text('user', 'mine')]);
    const { runId } = store.startRun(session.id, { provider: 'demo', model: 'demo' });
    expect(
      codeOf(() =>
        store.saveContextSummary({
          sessionId: session.id,
          runId,
          throughMessageId: foreign as string,
          summary: 'wrong',
          messagesSummarized: 1,
        }),
      ),
    ).toBe('CONTEXT_SUMMARY_UNKNOWN_MESSAGE');
    expect(store.modelContext(session.id, PAGE_MAX_LIMIT).summary).toBeUndefined();
  });
});

describe('approvals', () => {
  function pending() {
    const session = newSession();
    const { runId } = store.startRun(session.id, { provider: 'demo', model: 'demo' });
    store.recordApprovalRequest({
      sessionId: session.id,
      runId,
      approvalId: 'ap1',
      toolCallId: 'call1',
      toolName: 'run_command',
      input: {},
    });
    return session;
  }

  it('flips a pending approval once, appending the answer to the transcript', () => {
    const session = pending();
    expect(
      store.answerApproval({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call1', approved: true }),
    ).toEqual({
      ok: true,
      toolName: 'run_command',
    });
    expect(store.hasPendingApproval(session.id)).toBe(false);
    expect(store.modelContext(session.id, PAGE_MAX_LIMIT).messages.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: true }],
    });
    expect(
      store.answerApproval({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call1', approved: false }),
    ).toEqual({
      ok: false,
      refusal: 'already-answered',
    });
  });

  it('refuses unknown ids, other sessions, mismatched tool calls and cancelled approvals, changing nothing', () => {
    const session = pending();
    const other = newSession();
    const before = store.modelContext(session.id, PAGE_MAX_LIMIT).messages.length;
    expect(
      store.answerApproval({ sessionId: session.id, approvalId: 'nope', toolCallId: 'call1', approved: true }),
    ).toMatchObject({
      refusal: 'unknown-approval',
    });
    expect(
      store.answerApproval({ sessionId: other.id, approvalId: 'ap1', toolCallId: 'call1', approved: true }),
    ).toMatchObject({
      refusal: 'other-session',
    });
    expect(
      store.answerApproval({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call2', approved: true }),
    ).toMatchObject({
      refusal: 'tool-call-mismatch',
    });
    expect(store.hasPendingApproval(session.id)).toBe(true);
    expect(store.modelContext(session.id, PAGE_MAX_LIMIT).messages).toHaveLength(before);
    store.cancelPendingApprovals(session.id);
    expect(
      store.answerApproval({ sessionId: session.id, approvalId: 'ap1', toolCallId: 'call1', approved: true }),
    ).toMatchObject({
      refusal: 'cancelled',
    });
  });
});

describe('token usage', () => {
  it('sums step usage per run and per session; the cost is absent until a priced step adds one', () => {
    const session = newSession();
    const first = store.startRun(session.id, { provider: 'demo', model: 'demo' });
    store.recordStepUsage(first.runId, { input: 100, output: 10, cached: 40, costUsd: undefined, contextTokens: 110 });
    store.recordStepUsage(first.runId, { input: 150, output: 5, cached: 0, costUsd: undefined, contextTokens: 155 });
    expect(store.runUsage(first.runId)).toEqual({ input_tokens: 250, output_tokens: 15, cached_input_tokens: 40 });
    expect(store.lastContextTokens(session.id)).toBe(155);
    store.finishRun(session.id, first.runId, 'finished', {
      type: 'run-finished',
      run_id: first.runId,
      finish_reason: 'stop',
    });
    const second = store.startRun(session.id, { provider: 'demo', model: 'demo' });
    store.recordStepUsage(second.runId, { input: 1, output: 2, cached: 0, costUsd: 0.25, contextTokens: 3 });
    expect(store.getSession(session.id)?.usage).toEqual({
      input_tokens: 251,
      output_tokens: 17,
      cached_input_tokens: 40,
      cost_usd: 0.25,
    });
    expect(store.lastContextTokens(session.id)).toBe(3);
  });

  it('a session without runs has zero usage', () => {
    expect(newSession().usage).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 });
  });
});

describe('read-only mode and ask-before-writes (migration 3)', () => {
  it('keeps sessions, runs and their cascade when a version-2 database gains the read-only mode', () => {
    db.close();
    const path = join(dir, 'v2.db');
    const old = openDatabase(
      path,
      MIGRATIONS.filter((migration) => migration.version <= 2),
    );
    const oldStore = new SessionStore(old);
    const session = old
      .prepare<[], { id: string }>(
        `INSERT INTO sessions (id, mode, provider, model, created_at, updated_at)
         VALUES ('ses_migrated01', 'auto', 'demo', 'demo', 'x', 'x') RETURNING id`,
      )
      .get() as { id: string };
    const run = oldStore.startRun(session.id, { provider: 'demo', model: 'demo' });
    old.close();

    db = openDatabase(path);
    store = new SessionStore(db);
    expect(store.getSession(session.id)).toMatchObject({
      mode: 'auto',
      ask_before_writes: false,
      last_run: { id: run.runId },
    });
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.updateSession(session.id, { mode: 'read-only', askBeforeWrites: true })).toMatchObject({
      mode: 'read-only',
      ask_before_writes: true,
    });
    expect(store.deleteSession(session.id)).toBe(true);
    expect(store.runStatus(run.runId)).toBeUndefined();
  });

  it('records ask_before_writes at creation and reads it back per call', () => {
    const session = store.createSession({ provider: 'demo', model: 'demo', workspace: null, askBeforeWrites: true });
    expect(session.ask_before_writes).toBe(true);
    expect(store.asksBeforeWrites(session.id)).toBe(true);
    store.updateSession(session.id, { askBeforeWrites: false });
    expect(store.asksBeforeWrites(session.id)).toBe(false);
    expect(store.asksBeforeWrites('ses_gone000000')).toBe(false);
  });
});

/** A run that streamed `events` and whose steps stored `messages`, ended as `finished`. */
function recordRun(events: (runId: string) => AgentEvent[], messages: ModelMessage[]) {
  const session = store.createSession({ provider: 'demo', model: 'demo', workspace: null });
  const { runId } = store.startRun(session.id, {
    userContent: [{ role: 'user', content: 'go' }],
    provider: 'demo',
    model: 'demo',
  });
  const ids = events(runId).map((event) => store.appendEvent(session.id, event).id);
  store.appendMessages(session.id, runId, messages);
  store.finishRun(session.id, runId, 'finished', { type: 'run-finished', run_id: runId, finish_reason: 'stop' });
  return { sessionId: session.id, runId, ids };
}

const deltas = (runId: string, pieces: string[], type: 'text-delta' | 'reasoning-delta' = 'text-delta') =>
  pieces.map((text): AgentEvent => ({ type, run_id: runId, text }));

const storedRows = (runId: string) =>
  db
    .prepare<[string], { type: string; data: string; ref_message: string | null }>(
      'SELECT type, data, ref_message FROM message_parts WHERE run_id = ? ORDER BY id',
    )
    .all(runId);

const replayText = (sessionId: string, type = 'text-delta') =>
  store
    .eventsAfter(sessionId, 0, 10_000)
    .map(({ event }) => (event.type === type ? (event as { text: string }).text : ''))
    .join('');

describe('folding a run’s deltas into its messages', () => {
  it('replaces the deltas of a stored reply with one event that replays the same text under the last delta’s id', () => {
    const pieces = ['Hello, ', 'wörld ', '🙂', ' done.'];
    const run = recordRun(
      (runId) => deltas(runId, pieces),
      [{ role: 'assistant', content: [{ type: 'text', text: pieces.join('') }] }],
    );
    const rows = storedRows(run.runId).filter((row) => row.type === 'text-delta');
    expect(rows).toHaveLength(1);
    expect(rows[0]?.data).not.toContain('Hello');
    const replayed = store.eventsAfter(run.sessionId, 0, 100);
    const text = replayed.filter(({ event }) => event.type === 'text-delta');
    expect(text).toEqual([
      {
        id: run.ids.at(-1),
        event: { type: 'text-delta', run_id: run.runId, text: pieces.join('') },
        folded: { kind: 'text', runOffset: 0, bytes: Buffer.byteLength(pieces.join('')) },
      },
    ]);
  });

  it('pages a folded reply newest first with its text put back, as the wire shape (no fold bookkeeping)', () => {
    const pieces = ['Hello, ', 'wörld'];
    const run = recordRun(
      (runId) => deltas(runId, pieces),
      [{ role: 'assistant', content: [{ type: 'text', text: pieces.join('') }] }],
    );
    const page = store.eventsBefore(run.sessionId, undefined, 100);
    expect(page.items.filter(({ event }) => event.type === 'text-delta')).toEqual([
      { id: run.ids.at(-1), event: { type: 'text-delta', run_id: run.runId, text: pieces.join('') } },
    ]);
  });

  it('splits a long reply into folded events of at most STORE_FOLDED_DELTA_MAX_BYTES that concatenate to it', () => {
    const piece = 'x'.repeat(1000) + 'é';
    const pieces = Array.from({ length: 200 }, () => piece);
    const run = recordRun(
      (runId) => deltas(runId, pieces),
      [{ role: 'assistant', content: [{ type: 'text', text: pieces.join('') }] }],
    );
    const replayed = store.eventsAfter(run.sessionId, 0, 10_000).filter(({ event }) => event.type === 'text-delta');
    expect(replayed.length).toBe(Math.ceil((200 * 1002) / STORE_FOLDED_DELTA_MAX_BYTES));
    for (const { event } of replayed) {
      expect(Buffer.byteLength((event as { text: string }).text)).toBeLessThanOrEqual(STORE_FOLDED_DELTA_MAX_BYTES);
    }
    expect(replayText(run.sessionId)).toBe(pieces.join(''));
  });

  it('keeps a tool call between two texts in its place and folds reasoning too', () => {
    const run = recordRun(
      (runId) => [
        ...deltas(runId, ['think', 'ing'], 'reasoning-delta'),
        ...deltas(runId, ['let me ', 'look']),
        { type: 'tool-call', run_id: runId, tool_call_id: 'c1', tool_name: 'list_dir', input: { path: '.' } },
        { type: 'tool-result', run_id: runId, tool_call_id: 'c1', tool_name: 'list_dir', output: [], is_error: false },
        ...deltas(runId, ['all ', 'done']),
      ],
      [
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thinking' },
            { type: 'text', text: 'let me look' },
            { type: 'tool-call', toolCallId: 'c1', toolName: 'list_dir', input: { path: '.' } },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'c1', toolName: 'list_dir', output: { type: 'json', value: [] } },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'all done' }] },
      ],
    );
    const replayed = store.eventsAfter(run.sessionId, 0, 100).map(({ event }) => event);
    expect(replayed.map((event) => event.type)).toEqual([
      'run-started',
      'reasoning-delta',
      'text-delta',
      'tool-call',
      'tool-result',
      'text-delta',
      'run-finished',
    ]);
    expect(replayText(run.sessionId)).toBe('let me lookall done');
    expect(replayText(run.sessionId, 'reasoning-delta')).toBe('thinking');
    expect(storedRows(run.runId).filter((row) => row.ref_message !== null)).toHaveLength(3);
  });

  it('leaves deltas the run’s messages do not hold exactly (a step cut short) as they were', () => {
    const run = recordRun(
      (runId) => deltas(runId, ['first ', 'step', 'cut ', 'short']),
      [{ role: 'assistant', content: [{ type: 'text', text: 'first step' }] }],
    );
    const rows = storedRows(run.runId).filter((row) => row.type === 'text-delta');
    expect(rows.map((row) => row.ref_message === null)).toEqual([false, true, true]);
    expect(replayText(run.sessionId)).toBe('first stepcut short');
  });

  it('replays nothing of a folded reply to a client that saw its last delta, and all of it to one that saw none', () => {
    const run = recordRun(
      (runId) => deltas(runId, ['a', 'b', 'c']),
      [{ role: 'assistant', content: [{ type: 'text', text: 'abc' }] }],
    );
    const lastDelta = run.ids.at(-1) as number;
    expect(store.eventsAfter(run.sessionId, lastDelta, 10).map(({ event }) => event.type)).toEqual(['run-finished']);
    expect(store.eventsAfter(run.sessionId, (run.ids[0] as number) - 1, 10).map(({ event }) => event.type)).toEqual([
      'text-delta',
      'run-finished',
    ]);
  });
});
