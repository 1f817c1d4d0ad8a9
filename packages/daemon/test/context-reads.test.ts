/**
 * A run's start-up reads a bounded part of a long session: the rows (and their bytes) SQLite hands
 * the daemon between `POST /agent/run` and the run's first model call, counted at better-sqlite3's
 * statement API, for sessions of 1 000 and 5 000 stored messages; then, once a compaction has
 * stored a summary, the next run reads only the summary and the turns after it.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import type { ModelMessage } from 'ai';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  CONTEXT_KEEP_RECENT_MAX_MESSAGES,
  CONTEXT_READ_MAX_MESSAGES,
  type AgentEvent,
  type Session,
} from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const SUMMARY = 'SUMMARY-OF-THE-LONG-SESSION';

/** Rows and bytes read through any prepared statement while `on`. */
const reads = { on: false, rows: 0, bytes: 0 };
/** What the first model call of the measured run saw: the reads so far and its prompt. */
interface FirstCall {
  rows: number;
  bytes: number;
  prompt: string;
}
const calls: { first?: FirstCall } = {};

/** Wrap better-sqlite3's Statement#get/#all (every read the store makes) to count what they return. */
function countReads(): () => void {
  const probe = new Database(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<
    'get' | 'all',
    (...args: unknown[]) => unknown
  >;
  probe.close();
  const original = { get: prototype.get, all: prototype.all };
  const tally = (rows: unknown[]) => {
    if (!reads.on) return;
    reads.rows += rows.length;
    for (const row of rows) reads.bytes += JSON.stringify(row).length;
  };
  prototype.get = function (this: unknown, ...args: unknown[]) {
    const row = original.get.apply(this, args);
    tally(row === undefined ? [] : [row]);
    return row;
  };
  prototype.all = function (this: unknown, ...args: unknown[]) {
    const rows = original.all.apply(this, args) as unknown[];
    tally(rows);
    return rows;
  };
  return () => Object.assign(prototype, original);
}

const mockProvider: ProviderDefinition = {
  id: 'mock',
  label: 'mock',
  defaultModel: 'echo',
  create: () =>
    new MockLanguageModelV3({
      doStream: (options: LanguageModelV3CallOptions) => {
        if (reads.on && calls.first === undefined)
          calls.first = { rows: reads.rows, bytes: reads.bytes, prompt: JSON.stringify(options.prompt) };
        const summaryCall = JSON.stringify(options.prompt).includes('You summarise');
        return Promise.resolve({
          stream: simulateReadableStream<LanguageModelV3StreamPart>({
            chunks: [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: summaryCall ? SUMMARY : 'ok' },
              { type: 'text-end', id: 't' },
              { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
            ],
          }),
        });
      },
    }),
};

let daemon: InProcessDaemon | undefined;
const restoreReads = countReads();
afterAll(restoreReads);
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

const isEnd = (event: AgentEvent) => event.type === 'run-finished' || event.type === 'run-error';

async function sessionWith(d: InProcessDaemon, count: number): Promise<Session> {
  const created = await d.request<Session>('POST', '/sessions', { provider: 'mock', model: 'echo' });
  const history: ModelMessage[] = Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? { role: 'user', content: [{ type: 'text', text: `question ${i} ${'q'.repeat(200)}` }] }
      : { role: 'assistant', content: [{ type: 'text', text: `answer ${i} ${'a'.repeat(200)}` }] },
  );
  d.runtime.store.transcript.append(created.body.id, null, history);
  return created.body;
}

/** The last event id each session's stream has shown, so a collect starts after it. */
const lastEventIds = new Map<string, number>();

/** Run one message, counting the reads up to the run's first model call. */
async function measuredRun(d: InProcessDaemon, sessionId: string) {
  Object.assign(reads, { on: true, rows: 0, bytes: 0 });
  delete calls.first;
  const collecting = d.collect(sessionId, isEnd, lastEventIds.get(sessionId));
  await d.request('POST', '/agent/run', { session_id: sessionId, message: 'next' });
  const entries = await collecting;
  lastEventIds.set(sessionId, entries.at(-1)?.id ?? 0);
  const events = entries.map((entry) => entry.event);
  reads.on = false;
  // set by the model's first call, which TypeScript's narrowing after the delete cannot see
  const first = calls.first as FirstCall | undefined;
  if (!first) throw new Error('the model was never called');
  return { ...first, events };
}

describe('run start-up reads', () => {
  it(`reads the same bounded number of rows (≤ ${CONTEXT_READ_MAX_MESSAGES} messages and a few more) for 1 000 and 5 000 stored messages`, async () => {
    daemon = await startInProcessDaemon({ providers: [mockProvider] });
    const small = await measuredRun(daemon, (await sessionWith(daemon, 1_000)).id);
    const large = await measuredRun(daemon, (await sessionWith(daemon, 5_000)).id);
    expect(large.rows).toBe(small.rows);
    expect(large.rows).toBeLessThanOrEqual(CONTEXT_READ_MAX_MESSAGES + 20);
    expect(large.bytes).toBeLessThan(small.bytes * 1.05);
    expect(large.bytes).toBeLessThan((CONTEXT_READ_MAX_MESSAGES + 20) * 400);
    // both sessions were longer than one read: each run compacted first
    expect(large.events.filter((event) => event.type === 'context-compacted')).toHaveLength(1);
  });

  it('after a compaction the next run reads the summary and the turns after it, and the model sees the summary, not the first message', async () => {
    daemon = await startInProcessDaemon({ providers: [mockProvider] });
    const session = await sessionWith(daemon, 5_000);
    await measuredRun(daemon, session.id);
    const next = await measuredRun(daemon, session.id);
    expect(next.rows).toBeLessThanOrEqual(CONTEXT_KEEP_RECENT_MAX_MESSAGES + 20);
    expect(next.prompt).toContain(SUMMARY);
    expect(next.prompt).not.toContain('question 0 ');
    expect(next.events.filter((event) => event.type === 'context-compacted')).toEqual([]);
    // the transcript is whole: 5 000 stored, and two runs of two messages each
    expect(daemon.runtime.store.transcript.list(session.id, { limit: 10_000 }).items).toHaveLength(5_004);
  });
});
