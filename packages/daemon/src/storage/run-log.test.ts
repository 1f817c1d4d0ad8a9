import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { STORE_FOLDED_DELTA_MAX_BYTES, type AgentEvent } from '@bastion/protocol';
import { join } from 'node:path';
import { newSession, useTempStore } from '../../test/support/temp-store.js';
import { thrownCode as codeOf } from '../../../../test/support/thrown-code.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import type { SessionStore } from './session-store.js';

let dir: string;
let db: SqliteDatabase;
let store: SessionStore;
useTempStore((opened) => ({ dir, db, store } = opened));

describe('runs and events', () => {
  it('allows one running run per session and starts another after it ends', () => {
    const session = newSession(store);
    const first = store.runs.start(session.id, {
      userContent: [{ role: 'user', content: 'a' }],
      provider: 'demo',
      model: 'demo',
    });
    expect(
      codeOf(() =>
        store.runs.start(session.id, {
          userContent: [{ role: 'user', content: 'b' }],
          provider: 'demo',
          model: 'demo',
        }),
      ),
    ).toBe('RUN_ACTIVE');
    // the refused start left nothing half-written: one user message only
    expect(store.transcript.list(session.id).items).toHaveLength(1);
    store.runs.finish(session.id, first.runId, 'finished', {
      type: 'run-finished',
      run_id: first.runId,
      finish_reason: 'stop',
    });
    expect(() =>
      store.runs.start(session.id, { userContent: [{ role: 'user', content: 'b' }], provider: 'demo', model: 'demo' }),
    ).not.toThrow();
  });

  it('returns events after an id, in order, across sessions independently', () => {
    const a = newSession(store);
    const b = newSession(store);
    const runA = store.runs.start(a.id, { provider: 'demo', model: 'demo' });
    const runB = store.runs.start(b.id, { provider: 'demo', model: 'demo' });
    for (let i = 0; i < 5; i += 1) {
      store.runs.appendEvent(a.id, { type: 'text-delta', run_id: runA.runId, text: `a${i}` });
      store.runs.appendEvent(b.id, { type: 'text-delta', run_id: runB.runId, text: `b${i}` });
    }
    const all = store.runs.eventsAfter(a.id, 0, 100);
    expect(all.map((e) => e.event.type)).toEqual(['run-started', ...Array<string>(5).fill('text-delta')]);
    const resumed = store.runs.eventsAfter(a.id, all[2]!.id, 100);
    expect(resumed.map((e) => (e.event.type === 'text-delta' ? e.event.text : ''))).toEqual(['a2', 'a3', 'a4']);
  });

  it('group-commits events: durable (seen by another connection) and announced only after the commit', () => {
    const session = newSession(store);
    const { runId } = store.runs.start(session.id, { provider: 'demo', model: 'demo' });
    const other = openDatabase(join(dir, 'sessions.db'));
    const count = () => (other.prepare('SELECT COUNT(*) AS n FROM message_parts').get() as { n: number }).n;
    try {
      const committedBefore = count();
      const announced: number[] = [];
      for (let i = 0; i < 3; i += 1) {
        const entry = store.runs.appendEvent(session.id, { type: 'text-delta', run_id: runId, text: `t${i}` });
        store.runs.afterCommit(() => announced.push(entry.id));
      }
      expect(count()).toBe(committedBefore);
      expect(announced).toEqual([]);
      // any other write (or a read of events) commits the group first
      store.runs.eventsAfter(session.id, 0, 10);
      expect(count()).toBe(committedBefore + 3);
      expect(announced).toHaveLength(3);
    } finally {
      other.close();
    }
  });

  it('marks runs left running as interrupted, with a run-error event', () => {
    const session = newSession(store);
    const { runId } = store.runs.start(session.id, { provider: 'demo', model: 'demo' });
    expect(store.runs.interruptStale()).toBe(1);
    expect(store.runs.status(runId)).toBe('interrupted');
    expect(store.runs.eventsAfter(session.id, 0, 10).at(-1)?.event).toMatchObject({
      type: 'run-error',
      code: 'RUN_INTERRUPTED',
    });
    expect(store.runs.interruptStale()).toBe(0);
  });

  /** Runs of the given numbers of text deltas, each finished; returns every run's event ids. */
  const seedRuns = (sessionId: string, deltas: readonly number[]): number[][] =>
    deltas.map((count, turn) => {
      const started = store.runs.start(sessionId, {
        provider: 'demo',
        model: 'demo',
        userContent: [{ role: 'user', content: `prompt ${turn}` }],
      });
      const ids = [started.event.id];
      for (let i = 0; i < count; i += 1) {
        ids.push(store.runs.appendEvent(sessionId, { type: 'text-delta', run_id: started.runId, text: `t${i}` }).id);
      }
      const end = store.runs.finish(sessionId, started.runId, 'finished', {
        type: 'run-finished',
        run_id: started.runId,
        finish_reason: 'stop',
      });
      return [...ids, end.id];
    });

  it('pages events newest first, each page starting at a run, until the first event', () => {
    const session = newSession(store);
    const other = newSession(store);
    const runs = seedRuns(session.id, [2, 3, 1, 2]); // runs of 4, 5, 3 and 4 events
    seedRuns(other.id, [5]);
    const first = store.runs.eventsBefore(session.id, undefined, 10);
    // the 10 newest end inside the second run: the page is cut back to the third run's start
    expect(first.items.map((entry) => entry.id)).toEqual([...runs[2]!, ...runs[3]!]);
    expect(first.next).toBe(String(runs[2]![0]));
    const second = store.runs.eventsBefore(session.id, Number(first.next), 10);
    expect(second.items.map((entry) => entry.id)).toEqual([...runs[0]!, ...runs[1]!]);
    expect(second.next).toBeNull();
  });

  it('cuts a run in two only when it alone is longer than the page, and then says where to go on', () => {
    const session = newSession(store);
    const runs = seedRuns(session.id, [1, 12]);
    const first = store.runs.eventsBefore(session.id, undefined, 5);
    expect(first.items.map((entry) => entry.id)).toEqual(runs[1]!.slice(-5));
    expect(first.next).toBe(String(runs[1]!.at(-5)));
    const rest: number[] = [];
    for (let cursor = first.next; cursor !== null;) {
      const page = store.runs.eventsBefore(session.id, Number(cursor), 5);
      rest.unshift(...page.items.map((entry) => entry.id));
      cursor = page.next;
    }
    expect([...rest, ...first.items.map((entry) => entry.id)]).toEqual(runs.flat());
  });
});

describe('token usage', () => {
  it("sums step usage per run and per session (the cost absent until a priced step adds one); a run's context size is its last step's", () => {
    const session = newSession(store);
    const first = store.runs.start(session.id, { provider: 'demo', model: 'demo' });
    store.runs.recordStepUsage(first.runId, {
      input: 100,
      output: 10,
      cached: 40,
      costUsd: undefined,
      contextTokens: 110,
    });
    store.runs.recordStepUsage(first.runId, {
      input: 150,
      output: 5,
      cached: 0,
      costUsd: undefined,
      contextTokens: 155,
    });
    expect(store.runs.usage(first.runId)).toEqual({ input_tokens: 250, output_tokens: 15, cached_input_tokens: 40 });
    expect(store.runs.contextTokens(first.runId)).toBe(155);
    store.runs.finish(session.id, first.runId, 'finished', {
      type: 'run-finished',
      run_id: first.runId,
      finish_reason: 'stop',
    });
    const second = store.runs.start(session.id, { provider: 'demo', model: 'demo' });
    store.runs.recordStepUsage(second.runId, { input: 1, output: 2, cached: 0, costUsd: 0.25, contextTokens: 3 });
    expect(store.sessions.get(session.id)?.usage).toEqual({
      input_tokens: 251,
      output_tokens: 17,
      cached_input_tokens: 40,
      cost_usd: 0.25,
    });
    expect(store.runs.contextTokens(second.runId)).toBe(3);
    expect(store.runs.contextTokens(first.runId)).toBe(155);
  });

  it('a session without runs has zero usage', () => {
    expect(newSession(store).usage).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 });
  });
});

/** A run that streamed `events` and whose steps stored `messages`, ended as `finished`. */
function recordRun(events: (runId: string) => AgentEvent[], messages: ModelMessage[]) {
  const session = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null });
  const { runId } = store.runs.start(session.id, {
    userContent: [{ role: 'user', content: 'go' }],
    provider: 'demo',
    model: 'demo',
  });
  const ids = events(runId).map((event) => store.runs.appendEvent(session.id, event).id);
  store.transcript.append(session.id, runId, messages);
  store.runs.finish(session.id, runId, 'finished', { type: 'run-finished', run_id: runId, finish_reason: 'stop' });
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
  store.runs
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
    const replayed = store.runs.eventsAfter(run.sessionId, 0, 100);
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
    const page = store.runs.eventsBefore(run.sessionId, undefined, 100);
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
    const replayed = store.runs
      .eventsAfter(run.sessionId, 0, 10_000)
      .filter(({ event }) => event.type === 'text-delta');
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
    const replayed = store.runs.eventsAfter(run.sessionId, 0, 100).map(({ event }) => event);
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
    expect(store.runs.eventsAfter(run.sessionId, lastDelta, 10).map(({ event }) => event.type)).toEqual([
      'run-finished',
    ]);
    expect(
      store.runs.eventsAfter(run.sessionId, (run.ids[0] as number) - 1, 10).map(({ event }) => event.type),
    ).toEqual(['text-delta', 'run-finished']);
  });
});
