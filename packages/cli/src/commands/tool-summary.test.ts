import { describe, expect, it } from 'vitest';
import { CLI_COMMAND_PREVIEW_LINE_CHARS } from '@bastion/protocol';
import { terminalLine } from '@bastion/host';
import { commandOutputPreview, planLines, toolResultSummary, toolSubject } from './tool-summary.js';

describe('toolSubject', () => {
  it.each([
    ['read_file', { path: 'src/a.ts' }, 'src/a.ts'],
    ['read_file', { path: 'src/a.ts', start_line: 3, end_line: 9 }, 'src/a.ts:3-9'],
    ['read_file', { path: 'src/a.ts', start_line: 40 }, 'src/a.ts:40-'],
    ['read_file', { path: 'src/a.ts', end_line: 9 }, 'src/a.ts:1-9'],
    ['list_dir', {}, '.'],
    ['list_dir', { path: 'src' }, 'src'],
    ['write_file', { path: 'b.md', content: 'x' }, 'b.md'],
    ['edit_file', { path: 'b.md', old_string: 'x', new_string: 'y' }, 'b.md'],
    ['edit_file', { path: 'b.md', old_string: 'x', new_string: 'y', replace_all: true }, 'b.md (every occurrence)'],
    ['find_files', { pattern: '*.ts' }, '"*.ts"'],
    ['find_files', { pattern: '*.ts', path: 'src' }, '"*.ts" in src'],
    ['search', { pattern: 'needle' }, '"needle"'],
    ['search', { pattern: 'a b', path: 'src', glob: '*.ts' }, '"a b" in src (*.ts)'],
  ])('names a %s call by what it is about: %j → %s', (name, input, subject) => {
    expect(toolSubject(name, input)).toBe(subject);
  });

  it('leaves a tool it does not know, and a search without a pattern, to the JSON input', () => {
    expect(toolSubject('future_tool', { query: 'x' })).toBeUndefined();
    expect(toolSubject('search', {})).toBeUndefined();
  });
});

describe('toolResultSummary', () => {
  it.each([
    ['read_file', { path: 'a', content: 'one\ntwo\n', truncated: false }, '2 lines'],
    ['read_file', { path: 'a', content: 'one', truncated: false }, '1 line'],
    ['read_file', { path: 'a', content: '', truncated: false }, '0 lines'],
    ['read_file', { path: 'a', content: 'x\n'.repeat(5), truncated: true }, '5 lines (the file was cut)'],
    [
      'read_file',
      { path: 'a', content: 'c\nd\n', start_line: 3, end_line: 4, total_lines: 5, truncated: false },
      'lines 3-4 of 5',
    ],
    [
      'read_file',
      { path: 'a', content: 'c\n', start_line: 900000, end_line: 900000, truncated: true },
      'lines 900000-900000 of a file too long to count (the range was cut)',
    ],
    ['read_file', { path: 'a', binary: true, size: 2048 }, 'binary, 2048 bytes, not read'],
    ['list_dir', { path: '.', entries: [{ name: 'a', kind: 'file' }], truncated: false }, '1 entry'],
    ['list_dir', { path: '.', entries: [], truncated: false }, '0 entries'],
    ['find_files', { paths: ['a.ts', 'b.ts'], truncated: false }, '2 files'],
    ['find_files', { paths: ['a.ts'], truncated: true }, '1 file (more not listed)'],
    ['list_dir', { path: '.', entries: [{}, {}], truncated: true }, '2 entries (more not listed)'],
    ['search', { matches: [{ path: 'a', line: 1, text: 'x' }], truncated: false }, '1 match'],
    ['search', { matches: [], truncated: false }, '0 matches'],
    ['search', { matches: [{}, {}, {}], truncated: true }, '3 matches (more not shown)'],
    ['future_tool', { anything: 1 }, 'done'],
    ['mcp__memory__read_graph', { ok: true, text: '{\n  "entities": []\n}', is_error: false }, 'answered: { …'],
    ['mcp__memory__read_graph', { ok: true, text: 'one line', is_error: false }, 'answered: one line'],
    ['mcp__memory__read_graph', { ok: true, text: '', is_error: false }, 'answered: no text'],
    [
      'mcp__memory__create_entities',
      { ok: true, text: 'EROFS: read-only file system\nat write', is_error: true },
      'the server answered with an error: EROFS: read-only file system …',
    ],
    ['mcp__memory__x', { ok: true, text: '\u001b[31mred\u0007', is_error: false }, 'answered: red'],
  ])('sums up what %s returned: %j → %s', (name, output, summary) => {
    expect(toolResultSummary(name, output)).toBe(summary);
  });
});

describe('commandOutputPreview', () => {
  const numbered = (count: number) =>
    `${Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n')}\n`;

  it('shows a short output whole, stdout then stderr, and nothing for no output', () => {
    expect(commandOutputPreview({ stdout: 'a\nb\n', stderr: 'warning\n', exit_code: 0 })).toEqual([
      'a',
      'b',
      'warning',
    ]);
    expect(commandOutputPreview({ stdout: '', stderr: '', exit_code: 0 })).toEqual([]);
  });

  it('shows the first five lines and counts the rest', () => {
    expect(commandOutputPreview({ stdout: numbered(12), stderr: '' })).toEqual([
      'line 1',
      'line 2',
      'line 3',
      'line 4',
      'line 5',
      '… 7 more lines',
    ]);
    expect(commandOutputPreview({ stdout: numbered(6), stderr: '' }).at(-1)).toBe('… 1 more line');
  });

  it('makes each line inert (escape sequences and controls removed) and cuts a long one', () => {
    expect(commandOutputPreview({ stdout: '\x1b[31mred\x1b[0m\x07\n', stderr: '' })).toEqual(['red']);
    const [long] = commandOutputPreview({ stdout: 'x'.repeat(400), stderr: '' });
    expect(long).toBe(`${'x'.repeat(CLI_COMMAND_PREVIEW_LINE_CHARS)}…`);
  });
});

describe('planLines', () => {
  it('counts the steps done, then lists each under its mark, a control character in a step made inert', () => {
    const steps = [
      { step: 'Read the parser', status: 'completed' },
      { step: 'Fix it \u001b[2J now', status: 'in_progress' },
      { step: 'Run the tests', status: 'pending' },
    ];
    expect(planLines({ steps })).toEqual([
      '[plan] 1 of 3 steps done',
      '  [x] Read the parser',
      `  [>] ${terminalLine('Fix it \u001b[2J now')}`,
      '  [ ] Run the tests',
    ]);
    expect(planLines({ steps })[2]).not.toContain('\u001b');
  });
});
