import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  CONTEXT_CHARS_PER_TOKEN,
  CONTEXT_COMPACT_MAX_MESSAGES,
  CONTEXT_KEEP_RECENT_FRACTION,
  CONTEXT_SUMMARY_INPUT_FRACTION,
  IMAGE_CONTEXT_TOKENS,
} from '@bastion/protocol';
import { thrownCode } from '../../../../test/support/thrown-code.js';
import {
  estimateTokens,
  lastTurnStart,
  messageChars,
  ModelContext,
  summaryPrompt,
  type Compaction,
  type SummaryRequest,
} from './context-compaction.js';

const WINDOW = 4_000;
const user = (text: string): ModelMessage => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): ModelMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): ModelMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `${id}.txt` } }],
});
const result = (id: string, text: string): ModelMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value: text } }],
});

/** `turns` user/assistant pairs of about `chars` characters each. */
function conversation(turns: number, chars: number): ModelMessage[] {
  return Array.from({ length: turns }, (_, i) => [
    user(`q${i} ${'x'.repeat(chars)}`),
    assistant(`a${i} ${'y'.repeat(chars)}`),
  ]).flat();
}

function context(messages: readonly ModelMessage[], summaryText = 'SUMMARY', storedCount = messages.length) {
  const asked: SummaryRequest[] = [];
  const compactions: Compaction[] = [];
  const model = new ModelContext({
    window: WINDOW,
    summary: undefined,
    ids: messages.slice(0, storedCount).map((_, i) => `msg_${i}`),
    cut: false,
    summarize: (request) => {
      asked.push(request);
      return Promise.resolve(summaryText);
    },
    onCompacted: (compaction) => compactions.push(compaction),
  });
  return { model, asked, compactions };
}

describe('ModelContext', () => {
  it('below the threshold sends every message as it is and asks for no summary', async () => {
    const messages = conversation(3, 100);
    const { model, asked } = context(messages);
    expect(await model.prepare('system', messages)).toEqual(messages);
    expect(asked).toEqual([]);
  });

  it('at the threshold summarises the older turns once: the model sees the summary and recent turns only', async () => {
    const messages = conversation(20, 400); // ~8 000 tokens of a 4 000-token window
    const { model, asked, compactions } = context(messages);
    const view = await model.prepare('system', messages);
    expect(asked).toHaveLength(1);
    const [summary, ...recent] = view;
    // the summary call gets the newest folded turns, within its share of the window
    const lastFolded = messages[messages.length - recent.length - 1] as unknown as { content: [{ text: string }] };
    expect(asked[0]?.prompt).toContain(lastFolded.content[0].text.slice(0, 40));
    expect(asked[0]?.prompt.length).toBeLessThanOrEqual(
      CONTEXT_SUMMARY_INPUT_FRACTION * WINDOW * CONTEXT_CHARS_PER_TOKEN + 40,
    );
    expect(JSON.stringify(summary)).toContain('<session-summary>\\nSUMMARY\\n</session-summary>');
    expect(recent).toEqual(messages.slice(messages.length - recent.length));
    expect(recent.length).toBeGreaterThan(0);
    expect(estimateTokens(JSON.stringify(recent).length)).toBeLessThanOrEqual(
      CONTEXT_KEEP_RECENT_FRACTION * WINDOW + 300,
    );
    expect(compactions).toEqual([
      {
        summary: 'SUMMARY',
        messagesSummarized: messages.length - recent.length,
        throughMessageId: `msg_${messages.length - recent.length - 1}`,
      },
    ]);
    // the next step starts from the summary: no second compaction
    expect(await model.prepare('system', messages)).toEqual(view);
    expect(asked).toHaveLength(1);
  });

  it('never starts the recent part at a tool result, so no tool call loses its call', async () => {
    const messages = [
      user('start'),
      ...Array.from({ length: 12 }, (_, i) => [call(`c${i}`), result(`c${i}`, 'z'.repeat(1_500))]).flat(),
    ];
    const { model } = context(messages);
    const [, first] = await model.prepare('system', messages);
    expect(first?.role).toBe('assistant');
  });

  it('folds only stored messages: the cut is never after the last message the store has', async () => {
    const messages = conversation(20, 400);
    const { model, compactions } = context(messages, 'S', 10);
    await model.prepare('system', messages);
    expect(Number(compactions[0]?.throughMessageId.slice(4))).toBeLessThan(10);
  });

  it(`compacts when more than ${CONTEXT_COMPACT_MAX_MESSAGES} messages would be sent, however small`, async () => {
    const messages = conversation(CONTEXT_COMPACT_MAX_MESSAGES / 2 + 1, 1);
    const big = new ModelContext({
      window: 1_000_000,
      summary: undefined,
      ids: messages.map((_, i) => `msg_${i}`),
      cut: false,
      summarize: () => Promise.resolve('small talk'),
      onCompacted: () => undefined,
    });
    const view = await big.prepare('system', messages);
    expect(view.length).toBeLessThanOrEqual(CONTEXT_COMPACT_MAX_MESSAGES / 2);
  });

  it('an empty summary fails with CONTEXT_COMPACTION_FAILED and stores nothing', async () => {
    const messages = conversation(20, 400);
    const { model, compactions } = context(messages, '  ');
    const failure = await model.prepare('system', messages).catch((error: unknown) => error);
    expect(
      thrownCode(() => {
        throw failure;
      }),
    ).toBe('CONTEXT_COMPACTION_FAILED');
    expect(compactions).toEqual([]);
  });
});

describe('summaryPrompt', () => {
  it('keeps the previous summary and the newest lines that fit, saying how many older lines were left out', () => {
    const prompt = summaryPrompt('EARLIER', conversation(50, 50), 2_000);
    expect(prompt.length).toBeLessThanOrEqual(2_100);
    expect(prompt).toContain('<previous-summary>\nEARLIER\n</previous-summary>');
    expect(prompt).toContain('a49 ');
    expect(prompt).not.toContain('q0 ');
    expect(prompt).toMatch(/\[\d+ older lines left out\]/);
  });
});

describe('lastTurnStart (where /compact cuts)', () => {
  const tool: ModelMessage = {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'text', value: 'a' } }],
  };
  it('is the last user message after `from`, so the last exchange is kept', () => {
    const messages = [user('one'), assistant('a'), user('two'), assistant('b'), tool, assistant('c')];
    expect(lastTurnStart(messages)).toBe(2);
    expect(lastTurnStart(messages, 2)).toBeUndefined();
  });
  it('is undefined with a single exchange, and never counts a message past the stored ones', () => {
    expect(lastTurnStart([user('one'), assistant('a'), tool, assistant('b')])).toBeUndefined();
    expect(lastTurnStart([user('one'), assistant('a'), user('two')], 0, 2)).toBeUndefined();
    expect(lastTurnStart([])).toBeUndefined();
  });
});

describe('messageChars', () => {
  it('counts an image as the tokens a provider bills it at, whatever its size, and the rest as its JSON', () => {
    const text = user('look at this');
    const withImage = (bytes: number): ModelMessage => ({
      role: 'user',
      content: [
        { type: 'text', text: 'look at this' },
        { type: 'image', image: new Uint8Array(bytes), mediaType: 'image/png' },
      ],
    });
    const imageChars = IMAGE_CONTEXT_TOKENS * CONTEXT_CHARS_PER_TOKEN;
    expect(messageChars(text)).toBe(JSON.stringify(text).length);
    expect(messageChars(withImage(68))).toBe(messageChars(withImage(3_000_000)));
    expect(estimateTokens(messageChars(withImage(3_000_000)))).toBeLessThan(IMAGE_CONTEXT_TOKENS + 50);
    expect(messageChars(withImage(68))).toBeGreaterThanOrEqual(messageChars(text) + imageChars);
  });
});
