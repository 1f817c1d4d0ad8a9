import { describe, expect, it } from 'vitest';
import { PAGE_MAX_LIMIT } from '@bastion/protocol';
import { newSession, useTempStore } from '../../test/support/temp-store.js';
import { thrownCode as codeOf } from '../../../../test/support/thrown-code.js';
import type { SessionStore } from './session-store.js';

let store: SessionStore;
useTempStore((opened) => ({ store } = opened));

describe('transcript', () => {
  it('finds the prompts a page names by id, only in that session', () => {
    const session = newSession(store);
    const other = newSession(store);
    const prompt = (turn: number) => ({ role: 'user' as const, content: `prompt ${turn}` });
    store.transcript.append(session.id, null, [prompt(0), prompt(1)]);
    store.transcript.append(other.id, null, [prompt(0)]);
    const ids = store.transcript.list(session.id).items.map((message) => message.id);
    const foreign = store.transcript.list(other.id).items[0]!.id;
    const found = store.transcript.byIds(session.id, [ids[1]!, foreign, 'msg_unknown', ids[0]!]);
    expect(found.map((message) => message.parts[0])).toEqual([
      { type: 'text', text: 'prompt 1' },
      { type: 'text', text: 'prompt 0' },
    ]);
  });

  it('pages the transcript oldest first', () => {
    const session = newSession(store);
    store.transcript.append(
      session.id,
      null,
      Array.from({ length: 5 }, (_, i) => ({ role: 'user' as const, content: `m${i}` })),
    );
    const first = store.transcript.list(session.id, { limit: 2 });
    const second = store.transcript.list(session.id, { limit: 2, cursor: first.next ?? undefined });
    expect([...first.items, ...second.items].map((m) => m.parts[0])).toEqual(
      ['m0', 'm1', 'm2', 'm3'].map((text) => ({ type: 'text', text })),
    );
    expect(store.transcript.modelContext(session.id, PAGE_MAX_LIMIT).messages).toHaveLength(5);
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
    const session = newSession(store);
    const ids = store.transcript.append(session.id, null, [
      text('user', 'a'),
      text('assistant', 'b'),
      text('user', 'c'),
    ]);
    store.transcript.saveSummary({
      sessionId: session.id,
      runId: store.runs.start(session.id, { provider: 'demo', model: 'demo' }).runId,
      throughMessageId: ids[1] as string,
      summary: 'a then b',
      messagesSummarized: 2,
    });
    const read = store.transcript.modelContext(session.id, PAGE_MAX_LIMIT);
    expect(read).toEqual({ summary: 'a then b', messages: [text('user', 'c')], ids: [ids[2]], cut: false });
    // the transcript itself stays whole
    expect(store.transcript.list(session.id).items).toHaveLength(3);
  });

  it('merges consecutive tool messages into one, whose id is its last stored row', () => {
    const session = newSession(store);
    const ids = store.transcript.append(session.id, null, [text('user', 'go'), result('t1'), result('t2')]);
    const read = store.transcript.modelContext(session.id, PAGE_MAX_LIMIT);
    expect(read.messages.at(-1)).toEqual({ role: 'tool', content: [...result('t1').content, ...result('t2').content] });
    expect(read.ids).toEqual([ids[0], ids[2]]);
  });

  it('reads at most the limit of newest messages, says it cut, and never starts at a tool result', () => {
    const session = newSession(store);
    store.transcript.append(session.id, null, [
      text('user', 'u1'),
      text('assistant', 'a1'),
      result('t1'),
      result('t2'),
      text('user', 'u2'),
      text('assistant', 'a2'),
    ]);
    const read = store.transcript.modelContext(session.id, 4);
    expect(read.cut).toBe(true);
    expect(read.messages).toEqual([text('user', 'u2'), text('assistant', 'a2')]);
  });

  it('refuses a summary through a message of another session with CONTEXT_SUMMARY_UNKNOWN_MESSAGE, storing none', () => {
    const session = newSession(store);
    const other = newSession(store);
    const [foreign] = store.transcript.append(other.id, null, [text('user', 'theirs')]);
    store.transcript.append(session.id, null, [text('user', 'mine')]);
    const { runId } = store.runs.start(session.id, { provider: 'demo', model: 'demo' });
    expect(
      codeOf(() =>
        store.transcript.saveSummary({
          sessionId: session.id,
          runId,
          throughMessageId: foreign as string,
          summary: 'wrong',
          messagesSummarized: 1,
        }),
      ),
    ).toBe('CONTEXT_SUMMARY_UNKNOWN_MESSAGE');
    expect(store.transcript.modelContext(session.id, PAGE_MAX_LIMIT).summary).toBeUndefined();
  });
});
