import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { TOOL_MODEL_OUTPUT_MAX_CHARS } from '@bastion/protocol';
import { truncateToolOutput, truncateToolResults, truncationNote } from './tool-output-truncation.js';

const max = TOOL_MODEL_OUTPUT_MAX_CHARS;

describe('truncateToolOutput', () => {
  it('returns an output that fits as the same object', () => {
    const output = { type: 'json' as const, value: { exit_code: 0, stdout: 'ok\n', stderr: '' } };
    expect(truncateToolOutput(output)).toBe(output);
  });

  it('cuts a long stdout in the middle, keeping head, tail, the other fields and a note with the count cut, within the bound', () => {
    const stdout = `HEAD-LINE\n${'middle line\n'.repeat(20_000)}TAIL-LINE\n`;
    const cut = truncateToolOutput({ type: 'json', value: { exit_code: 1, stdout, stderr: 'boom' } });
    expect(cut.type).toBe('json');
    const value = (cut as unknown as { value: { exit_code: number; stdout: string; stderr: string } }).value;
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(max);
    expect(value.exit_code).toBe(1);
    expect(value.stderr).toBe('boom');
    expect(value.stdout.startsWith('HEAD-LINE\n')).toBe(true);
    expect(value.stdout.endsWith('TAIL-LINE\n')).toBe(true);
    const omitted = Number(/\[\.\.\. (\d+) characters cut here/.exec(value.stdout)?.[1]);
    expect(omitted).toBeGreaterThan(stdout.length - max);
    // what is kept plus what the note says was cut is the whole output
    expect(value.stdout.length - truncationNote(omitted).length + omitted).toBe(stdout.length);
    expect(value.stdout).toContain('grep, head, tail');
    expect(value.stdout).toContain('read_file with start_line and end_line');
  });

  it('shares the bound between two long strings, so both keep a head and a tail', () => {
    const cut = truncateToolOutput({
      type: 'json',
      value: { stdout: `OUT${'o'.repeat(100_000)}`, stderr: `ERR${'e'.repeat(100_000)}` },
    });
    const value = (cut as unknown as { value: { stdout: string; stderr: string } }).value;
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(max);
    expect(value.stdout.startsWith('OUT')).toBe(true);
    expect(value.stderr.startsWith('ERR')).toBe(true);
    expect(value.stdout.length).toBeGreaterThan(max / 4);
    expect(value.stderr.length).toBeGreaterThan(max / 4);
  });

  it('stays within the bound when the text is mostly characters JSON escapes', () => {
    const cut = truncateToolOutput({ type: 'json', value: { content: '"\n\\'.repeat(50_000) } });
    expect(JSON.stringify((cut as { value: unknown }).value).length).toBeLessThanOrEqual(max);
  });

  it('keeps a read_file result as JSON, its fields whole, when the head of its content holds more escapes than the rest', () => {
    let content = '';
    for (let line = 1; content.length < 256 * 1024; line += 1) content += `${line}\n`;
    const output = { path: 'big.txt', size: 1_288_895, truncated: true, binary: false, content };
    const cut = truncateToolOutput({ type: 'json', value: output });
    expect(cut.type).toBe('json');
    const value = (cut as unknown as { value: typeof output }).value;
    expect(JSON.stringify(value).length).toBeLessThanOrEqual(max);
    expect(value).toMatchObject({ path: 'big.txt', size: 1_288_895, truncated: true, binary: false });
    expect(value.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(value.content).toContain('characters cut here');
  });

  it('turns a value of many small parts into text cut in the middle, within the bound', () => {
    const cut = truncateToolOutput({ type: 'json', value: { entries: Array.from({ length: 20_000 }, (_, i) => i) } });
    expect(cut.type).toBe('text');
    const value = (cut as { value: string }).value;
    expect(value.length).toBeLessThanOrEqual(max);
    expect(value.startsWith('{"entries":[0,1,2')).toBe(true);
    expect(value).toContain('characters cut here');
  });

  it('cuts a long text output within the bound', () => {
    const cut = truncateToolOutput({ type: 'text', value: 'x'.repeat(max * 3) });
    expect((cut as { value: string }).value.length).toBeLessThanOrEqual(max);
  });
});

describe('truncateToolResults', () => {
  it('cuts only tool results, leaving the input messages and short results untouched', () => {
    const long = 'y'.repeat(max * 2);
    const messages: ModelMessage[] = [
      { role: 'user', content: long },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'a',
            toolName: 'read_file',
            output: { type: 'json', value: { content: long } },
          },
          {
            type: 'tool-result',
            toolCallId: 'b',
            toolName: 'list_dir',
            output: { type: 'json', value: { entries: [] } },
          },
        ],
      },
    ];
    const before = JSON.stringify(messages);
    const [user, tool] = truncateToolResults(messages);
    expect(user).toBe(messages[0]);
    expect(JSON.stringify(messages)).toBe(before);
    const parts = (tool as Extract<ModelMessage, { role: 'tool' }>).content;
    expect(JSON.stringify(parts[0]).length).toBeLessThan(max + 200);
    expect(parts[1]).toBe((messages[1] as Extract<ModelMessage, { role: 'tool' }>).content[1]);
  });
});
