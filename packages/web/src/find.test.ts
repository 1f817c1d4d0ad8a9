import { describe, expect, it } from 'vitest';
import { findMatches } from './find.js';
import type { TranscriptItem } from './transcript.js';

const items: TranscriptItem[] = [
  { kind: 'user', key: 'u1', messageId: 'm1', runId: 'run_1', eventId: 1 },
  { kind: 'assistant', key: 'a1', text: 'The Build fails in CI.', runId: 'run_1' },
  {
    kind: 'tool',
    key: 't1',
    runId: 'run_1',
    toolCallId: 'c1',
    toolName: 'run_command',
    input: { command: 'npm', args: ['test'] },
    output: { exit_code: 1, stdout: 'FAIL src/math.test.ts\n  expected 3', stderr: '' },
  },
  { kind: 'run-end', key: 'e1', runId: 'run_1', outcome: 'finished', files: [{ path: 'src/math.ts', toolKey: 't1' }] },
];
const texts = new Map([['m1', 'Why does the build fail?']]);

describe('findMatches', () => {
  it('names, in order, every item holding the text case-insensitively: the prompt, a reply, a tool’s output and a changed file', () => {
    expect(findMatches(items, texts, 'BUILD')).toEqual(['u1', 'a1']);
    expect(findMatches(items, texts, 'math')).toEqual(['t1', 'e1']);
    expect(findMatches(items, texts, 'expected 3')).toEqual(['t1']);
    expect(findMatches(items, texts, 'npm')).toEqual(['t1']);
  });

  it('finds nothing for an empty or blank query, or text no item holds', () => {
    expect(findMatches(items, texts, '')).toEqual([]);
    expect(findMatches(items, texts, '   ')).toEqual([]);
    expect(findMatches(items, texts, 'segfault')).toEqual([]);
  });

  it('finds an MCP tool’s call by the title its card shows, its arguments and the server’s answer', () => {
    const mcp: TranscriptItem = {
      kind: 'tool',
      key: 'm1',
      runId: 'run_2',
      toolCallId: 'c2',
      toolName: 'mcp__memory__search_nodes',
      input: { query: 'alice' },
      output: {
        ok: true,
        server: 'memory',
        tool: 'search_nodes',
        text: 'Alice works at Acme',
        is_error: false,
        truncated: false,
      },
    };
    expect(findMatches([...items, mcp], texts, 'memory › search')).toEqual(['m1']);
    expect(findMatches([...items, mcp], texts, 'ALICE')).toEqual(['m1']);
    expect(findMatches([...items, mcp], texts, 'acme')).toEqual(['m1']);
  });

  it('finds an explore call by its task, its answer and the paths its explorer’s calls name, not by what they read', () => {
    const explore: TranscriptItem = {
      kind: 'tool',
      key: 'x1',
      runId: 'run_3',
      toolCallId: 'c3',
      toolName: 'explore',
      input: { task: 'Where is the tokenizer?' },
      output: { answer: 'In **src/lexer.ts**.', truncated: false, steps: 2, tool_calls: 1, ended: 'answered' },
      subCalls: [
        {
          kind: 'tool',
          key: 'x1s',
          runId: 'run_3',
          toolCallId: 'c3/r1',
          toolName: 'read_file',
          input: { path: 'src/lexer.ts' },
          output: { path: 'src/lexer.ts', content: 'export function scanTokens() {}' },
        },
      ],
    };
    expect(findMatches([...items, explore], texts, 'tokenizer')).toEqual(['x1']);
    expect(findMatches([...items, explore], texts, '**src/lexer')).toEqual(['x1']);
    expect(findMatches([...items, explore], texts, 'read_file')).toEqual(['x1']);
    expect(findMatches([...items, explore], texts, 'scanTokens')).toEqual([]);
  });

  it('finds a prompt once its text has loaded', () => {
    expect(findMatches(items, new Map(), 'why does')).toEqual([]);
    expect(findMatches(items, texts, 'why does')).toEqual(['u1']);
  });
});
