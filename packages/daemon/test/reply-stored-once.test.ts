/**
 * Issue 16 §5: a long reply is stored once. A 20 MB reply streamed through a real run (real
 * daemon app, real SQLite) leaves sessions.db and its WAL at most 1.2× the reply's size, and both
 * the replayed event stream (what the UI folds) and the transcript give it back whole; a database
 * written before folded events existed still opens and reads as it did.
 */
import { statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSIONS_DB_FILE, type AgentEvent, type Message, type Session } from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { openDatabase } from '../src/storage/database.js';
import { MIGRATIONS } from '../src/storage/migrations.js';
import { SessionStore } from '../src/storage/session-store.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { makeTempDir } from './support/temp-dir.js';

const REPLY_BYTES = 20 * 1024 * 1024;
/** A reply of ~1 KiB pieces (plain ASCII with a newline, as model text is). */
const PIECE = `${'lorem ipsum dolor sit amet '.repeat(37)}\n`;
const PIECES = Math.ceil(REPLY_BYTES / PIECE.length);
const REPLY = PIECE.repeat(PIECES);

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const longReplyProvider: ProviderDefinition = {
  id: 'long',
  label: 'long reply',
  defaultModel: 'long',
  create: () =>
    new MockLanguageModelV3({
      doStream: () =>
        Promise.resolve({
          stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
            { type: 'text-start', id: 't' },
            ...Array.from({ length: PIECES }, (): LanguageModelV3StreamPart => ({
              type: 'text-delta',
              id: 't',
              delta: PIECE,
            })),
            { type: 'text-end', id: 't' },
            { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
          ]),
        }),
    }),
};

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

function storeBytes(userData: string): number {
  const db = join(userData, SESSIONS_DB_FILE);
  return [db, `${db}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

describe('a long reply is stored once', () => {
  it('a 20 MB reply adds at most 1.2× its size to sessions.db and its WAL, and replays and lists whole', async () => {
    daemon = await startInProcessDaemon({ providers: [longReplyProvider] });
    const created = await daemon.request<Session>('POST', '/sessions', { provider: 'long', model: 'long' });
    const sessionId = created.body.id;
    const before = storeBytes(daemon.userData);

    const started = await daemon.request('POST', '/agent/run', { session_id: sessionId, message: 'write a lot' });
    expect(started.status).toBe(202);
    const live = await daemon.collect(
      sessionId,
      (event) => event.type === 'run-finished' || event.type === 'run-error',
    );
    expect(live.at(-1)?.event.type).toBe('run-finished');

    const added = storeBytes(daemon.userData) - before;
    expect(added).toBeLessThanOrEqual(1.2 * REPLY.length);

    const replayed = await daemon.collect(sessionId, (event) => event.type === 'run-finished');
    const text = (events: { event: AgentEvent }[]) =>
      events.map(({ event }) => (event.type === 'text-delta' ? event.text : '')).join('');
    expect(text(replayed) === REPLY).toBe(true);
    // the live stream saw the same text before the fold
    expect(text(live) === REPLY).toBe(true);

    const messages = await daemon.request<{ messages: Message[] }>('GET', `/sessions/${sessionId}/messages`);
    const assistant = messages.body.messages.find((message) => message.role === 'assistant');
    const part = assistant?.parts[0];
    expect(part?.type === 'text' && part.text === REPLY).toBe(true);
  });

  it('a database written by schema version 4 opens at the latest version with its events and messages as they were', () => {
    const dir = makeTempDir();
    const path = join(dir, SESSIONS_DB_FILE);
    const old = openDatabase(
      path,
      MIGRATIONS.filter((migration) => migration.version <= 4),
    );
    const at = '2026-12-01T00:00:00.000Z';
    old
      .prepare(
        `INSERT INTO sessions (id, mode, provider, model, created_at, updated_at) VALUES ('ses_old', 'accept-edits', 'demo', 'demo', ?, ?)`,
      )
      .run(at, at);
    old
      .prepare(
        `INSERT INTO runs (id, session_id, status, provider, model, started_at) VALUES ('run_old', 'ses_old', 'finished', 'demo', 'demo', ?)`,
      )
      .run(at);
    const insertMessage = old.prepare(
      `INSERT INTO messages (id, session_id, run_id, seq, role, content, created_at) VALUES (?, 'ses_old', 'run_old', ?, ?, ?, ?)`,
    );
    insertMessage.run('msg_u', 1, 'user', JSON.stringify([{ type: 'text', text: 'hi' }]), at);
    insertMessage.run('msg_a', 2, 'assistant', JSON.stringify([{ type: 'text', text: 'hello there' }]), at);
    const insertEvent = old.prepare(
      `INSERT INTO message_parts (session_id, run_id, type, data, created_at) VALUES ('ses_old', 'run_old', ?, ?, ?)`,
    );
    const events: AgentEvent[] = [
      { type: 'text-delta', run_id: 'run_old', text: 'hello ' },
      { type: 'text-delta', run_id: 'run_old', text: 'there' },
      { type: 'run-finished', run_id: 'run_old', finish_reason: 'stop' },
    ];
    for (const event of events) insertEvent.run(event.type, JSON.stringify(event), at);
    old.close();

    const db = openDatabase(path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)?.version);
      const store = new SessionStore(db);
      expect(store.runs.eventsAfter('ses_old', 0, 10).map(({ event }) => event)).toEqual(events);
      expect(store.transcript.list('ses_old').items.map((message) => message.parts)).toEqual([
        [{ type: 'text', text: 'hi' }],
        [{ type: 'text', text: 'hello there' }],
      ]);
    } finally {
      db.close();
    }
  });
});
