import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMAND_OUTPUT_DELTA_MAX_CHARS, COMMAND_OUTPUT_DELTA_MS } from '@bastion/protocol';
import { heldStartAtEnd } from '../policy/redact-held.js';
import { CommandOutputStream } from './command-output-stream.js';

const KEY = 'sk-held-0123456789abcdef';
const secrets = [{ kind: 'openai', value: KEY }];
const REDACTED = "[redacted: Bastion's openai credential]";

let sent: { stream: string; text: string }[];
let output: CommandOutputStream;
const bytes = (text: string) => new TextEncoder().encode(text);
const tick = () => vi.advanceTimersByTime(COMMAND_OUTPUT_DELTA_MS);

beforeEach(() => {
  vi.useFakeTimers();
  sent = [];
  output = new CommandOutputStream((stream, text) => sent.push({ stream, text }), secrets);
});
afterEach(() => vi.useRealTimers());

describe('CommandOutputStream', () => {
  it('sends the pieces of one interval as one event per stream, none before the interval ends', () => {
    output.push('stdout', bytes('one\n'));
    output.push('stdout', bytes('two\n'));
    output.push('stderr', bytes('warn\n'));
    expect(sent).toEqual([]);
    tick();
    expect(sent).toEqual([
      { stream: 'stdout', text: 'one\ntwo\n' },
      { stream: 'stderr', text: 'warn\n' },
    ]);
  });

  it(`sends at once when ${COMMAND_OUTPUT_DELTA_MAX_CHARS} characters have gathered`, () => {
    output.push('stdout', bytes('x'.repeat(COMMAND_OUTPUT_DELTA_MAX_CHARS)));
    expect(sent).toEqual([{ stream: 'stdout', text: 'x'.repeat(COMMAND_OUTPUT_DELTA_MAX_CHARS) }]);
  });

  it('redacts a held credential split across two pieces, sending none of it before the piece that completes it', () => {
    output.push('stdout', bytes(`token ${KEY.slice(0, 11)}`));
    tick();
    expect(sent).toEqual([{ stream: 'stdout', text: 'token ' }]);
    output.push('stdout', bytes(`${KEY.slice(11)} done\n`));
    tick();
    expect(sent.map((piece) => piece.text).join('')).toBe(`token ${REDACTED} done\n`);
    expect(JSON.stringify(sent)).not.toContain(KEY.slice(0, 11));
  });

  it('holds back only an end that could begin a credential: text that cannot is sent whole', () => {
    output.push('stdout', bytes('building sk-'));
    output.push('stderr', bytes('no match here s'));
    tick();
    expect(sent).toEqual([
      { stream: 'stdout', text: 'building ' },
      { stream: 'stderr', text: 'no match here ' },
    ]);
    output.end();
    expect(sent.slice(2)).toEqual([
      { stream: 'stdout', text: 'sk-' },
      { stream: 'stderr', text: 's' },
    ]);
  });

  it('decodes a character split across pieces whole, and end() sends what is left; later pieces are dropped', () => {
    const euro = bytes('€ done');
    output.push('stdout', euro.subarray(0, 2));
    tick();
    output.push('stdout', euro.subarray(2));
    output.end();
    output.push('stdout', bytes('late'));
    tick();
    expect(sent.map((piece) => piece.text).join('')).toBe('€ done');
  });
});

describe('heldStartAtEnd', () => {
  it('measures the longest end of the text that begins a held value, 0 when none does or the value is whole', () => {
    expect(heldStartAtEnd('abc sk-held-01', secrets)).toBe('sk-held-01'.length);
    expect(heldStartAtEnd('abc s', secrets)).toBe(1);
    expect(heldStartAtEnd('abc x', secrets)).toBe(0);
    expect(heldStartAtEnd(`abc ${KEY}`, secrets)).toBe(0);
    expect(heldStartAtEnd('abc sk-', [{ kind: 'short', value: 'sk-1' }])).toBe(0);
  });
});
