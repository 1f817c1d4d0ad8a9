import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SSE_MAX_QUEUED_EVENTS, SSE_REPLAY_PAGE, type AgentEvent } from '@bastion/protocol';
import { SseParser } from '../../test/support/sse-parser.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { openDatabase, type SqliteDatabase } from '../storage/database.js';
import { SessionStore } from '../storage/session-store.js';
import { EventHub } from './event-hub.js';
import { createEventStream } from './event-stream.js';

let dir: string;
let db: SqliteDatabase;
let store: SessionStore;
let hub: EventHub;
let sessionId: string;
let runId: string;

beforeEach(() => {
  dir = makeTempDir();
  db = openDatabase(join(dir, 'sessions.db'));
  store = new SessionStore(db);
  hub = new EventHub();
  sessionId = store.sessions.create({ provider: 'demo', model: 'demo', workspace: null }).id;
  runId = store.runs.start(sessionId, { provider: 'demo', model: 'demo' }).runId;
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function emit(count: number, from = 0): void {
  for (let i = from; i < from + count; i += 1) {
    const entry = store.runs.appendEvent(sessionId, { type: 'text-delta', run_id: runId, text: `t${i}` });
    store.runs.afterCommit(() => hub.publish(sessionId, entry));
  }
  store.runs.commit();
}

async function readIds(reader: ReadableStreamDefaultReader<Uint8Array>, want: number): Promise<number[]> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const ids: number[] = [];
  while (ids.length < want) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const message of parser.push(decoder.decode(value, { stream: true }))) ids.push(Number(message.id));
  }
  return ids;
}

describe('createEventStream', () => {
  it('replays after Last-Event-ID, then follows live events, with no gap and no repeat', async () => {
    emit(5);
    const all = store.runs.eventsAfter(sessionId, 0, 100).map((e) => e.id);
    const reader = createEventStream({ store, hub, sessionId, lastEventId: all[2]! }).getReader();
    const replayed = await readIds(reader, all.length - 3);
    emit(3, 5);
    const live = await readIds(reader, 3);
    await reader.cancel();
    expect([...replayed, ...live]).toEqual(store.runs.eventsAfter(sessionId, all[2]!, 100).map((e) => e.id));
    expect(hub.subscriberCount(sessionId)).toBe(0);
  });

  it('a subscriber that falls behind the queue bound reads the rest from the store, in order', async () => {
    const reader = createEventStream({ store, hub, sessionId, lastEventId: 0 }).getReader();
    const first = await readIds(reader, 1); // run-started
    const burst = SSE_MAX_QUEUED_EVENTS * 2 + 7;
    emit(burst);
    const rest = await readIds(reader, burst);
    await reader.cancel();
    const ids = [...first, ...rest];
    expect(ids).toEqual(store.runs.eventsAfter(sessionId, 0, burst + 10).map((e) => e.id));
  });

  describe('deltas folded after their run', () => {
    const DELTAS = SSE_REPLAY_PAGE * 2 + 200;
    const whole = Array.from({ length: DELTAS }, (_, i) => `t${i}`).join('');

    /** End the run as the run manager does: its assistant message stored, then the fold. */
    function finishAndFold(): void {
      store.transcript.append(sessionId, runId, [{ role: 'assistant', content: [{ type: 'text', text: whole }] }]);
      const final = store.runs.finish(sessionId, runId, 'finished', {
        type: 'run-finished',
        run_id: runId,
        finish_reason: 'stop',
      });
      hub.publish(sessionId, final);
    }

    /** Parse chunks into events with one parser; `untilFinished` reads on to the run's end. */
    function eventReader(reader: ReadableStreamDefaultReader<Uint8Array>) {
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const events: AgentEvent[] = [];
      const parse = (chunk: Uint8Array) => {
        for (const message of parser.push(decoder.decode(chunk, { stream: true })))
          events.push(JSON.parse(message.data) as AgentEvent);
      };
      return {
        async readOne(): Promise<void> {
          const { value } = await reader.read();
          if (value) parse(value);
        },
        async untilFinished(): Promise<AgentEvent[]> {
          while (events.at(-1)?.type !== 'run-finished') {
            const { value, done } = await reader.read();
            if (done) break;
            parse(value);
          }
          await reader.cancel();
          return events;
        },
      };
    }

    const textOf = (events: AgentEvent[]) => events.map((e) => (e.type === 'text-delta' ? e.text : '')).join('');

    it('a stream that sent the first deltas of a reply before the fold sends only the rest of its text after it', async () => {
      emit(DELTAS);
      const reader = eventReader(createEventStream({ store, hub, sessionId, lastEventId: 0 }).getReader());
      await reader.readOne(); // run-started and the first page of raw deltas
      finishAndFold();
      const events = await reader.untilFinished();
      expect(textOf(events)).toBe(whole);
      // folded events were sent: fewer text events arrived than deltas were streamed
      expect(events.filter((e) => e.type === 'text-delta').length).toBeLessThan(DELTAS);
    });

    it('a client that reconnects with a cursor inside the run before the fold gets only the text it lacks', async () => {
      emit(DELTAS);
      const ids = store.runs.eventsAfter(sessionId, 0, DELTAS + 1).map((e) => e.id);
      const cursor = ids[300] as number; // run-started and 300 deltas seen
      const reader = eventReader(createEventStream({ store, hub, sessionId, lastEventId: cursor }).getReader());
      finishAndFold();
      const events = await reader.untilFinished();
      const seen = Array.from({ length: 300 }, (_, i) => `t${i}`).join('');
      expect(seen + textOf(events)).toBe(whole);
    });

    it('a client that lost its stream inside the reply and reconnects after the fold, its cursor on a delta folded away, gets only the text it lacks', async () => {
      emit(DELTAS);
      const ids = store.runs.eventsAfter(sessionId, 0, DELTAS + 1).map((e) => e.id);
      const cursor = ids[300] as number; // run-started and 300 deltas seen
      finishAndFold();
      expect(store.runs.eventsAfter(sessionId, cursor - 1, 1)[0]?.id).toBeGreaterThan(cursor);
      const reader = eventReader(createEventStream({ store, hub, sessionId, lastEventId: cursor }).getReader());
      const events = await reader.untilFinished();
      const seen = Array.from({ length: 300 }, (_, i) => `t${i}`).join('');
      expect(seen + textOf(events)).toBe(whole);
    });
  });
});
