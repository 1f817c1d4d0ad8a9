import { describe, expect, it } from 'vitest';
import { MCP_PROMPT_MAX_SPANS } from '@bastion/protocol';
import { coversAll, spansAfterEdit, spansOfTrimmed, storedServerSpans, withPromptSpans } from './server-text-spans.js';

const server = 'Summarise @other:notes://readme for me.';
const whole = [[0, server.length]] as const;

describe('spansAfterEdit', () => {
  it('keeps the server’s characters around text typed inside them, and counts the typed ones the person’s', () => {
    const edited = 'Summarise @other:notes://readme, quickly for me.';
    expect(spansAfterEdit(whole, server, edited)).toEqual([
      [0, 31],
      [40, 48],
    ]);
    expect(edited.slice(0, 31)).toBe('Summarise @other:notes://readme');
  });

  it('moves the spans with text put before and taken from the start (a queued message given back, a trim)', () => {
    expect(spansAfterEdit(whole, server, `Earlier\n\n${server}`)).toEqual([[9, 9 + server.length]]);
    expect(spansAfterEdit([[2, 5]], '  abc', 'abc')).toEqual([[0, 3]]);
  });

  it('drops what the person deleted, and a box emptied holds none', () => {
    expect(spansAfterEdit(whole, server, 'Summarise for me.')).toEqual([[0, 17]]);
    expect(spansAfterEdit(whole, server, '')).toEqual([]);
  });

  it('edits in turn keep each untouched character the server’s: one diff from first to last would not', () => {
    const first = spansAfterEdit(whole, server, `X ${server}`);
    const second = spansAfterEdit(first, `X ${server}`, `X ${server} Y`);
    expect(second).toEqual([[2, 2 + server.length]]);
  });
});

describe('coversAll', () => {
  it('is true only while the spans cover the whole text', () => {
    expect(coversAll(whole, server.length)).toBe(true);
    expect(
      coversAll(
        [
          [0, 3],
          [4, 9],
        ],
        9,
      ),
    ).toBe(false);
    expect(
      coversAll(
        [
          [0, 3],
          [3, 9],
        ],
        9,
      ),
    ).toBe(true);
  });
});

describe('withPromptSpans', () => {
  const lure = { server: 'lure', name: 'lure' };

  it('sends the ranges the prompt wrote as offsets into the trimmed message', () => {
    const draft = `  ${server} And @mine:notes://readme \n`;
    expect(withPromptSpans({ prompt: lure }, [[2, 2 + server.length]], draft)).toEqual({
      prompt: { ...lure, spans: [[0, server.length]] },
    });
  });

  it('sends no ranges with a message that came from no prompt, and none beyond what a message carries', () => {
    expect(withPromptSpans({}, [[0, 3]], 'abc')).toEqual({});
    const many = Array.from({ length: MCP_PROMPT_MAX_SPANS + 1 }, (_, index): [number, number] => [
      index * 2,
      index * 2 + 1,
    ]);
    const text = 'x'.repeat(2 * many.length);
    expect(withPromptSpans({ prompt: lure }, many, text)).toEqual({ prompt: lure });
  });
});

describe('spansOfTrimmed', () => {
  it('moves the spans onto the trimmed text, cutting what trimming took, sorted and joined', () => {
    expect(
      spansOfTrimmed(
        [
          [6, 9],
          [0, 4],
          [3, 6],
        ],
        '  abcdefg  ',
      ),
    ).toEqual([[0, 7]]);
    expect(spansOfTrimmed([[9, 11]], '  abcdefg  ')).toEqual([]);
  });
});

describe('storedServerSpans', () => {
  it('gives back the stored ranges, and the whole text for a message stored without them or with ranges past its end', () => {
    expect(storedServerSpans([[0, 9]], server)).toEqual([[0, 9]]);
    expect(storedServerSpans(undefined, server)).toEqual(whole);
    expect(storedServerSpans([[0, server.length + 1]], server)).toEqual(whole);
  });
});
