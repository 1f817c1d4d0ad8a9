import { describe, expect, it } from 'vitest';
import { exploreCallWords, exploreOutcome, exploreTask } from './explore-call.js';

describe('the explore card’s words', () => {
  it('says what each of the explorer’s tools does, naming a folder other than the root', () => {
    expect(exploreCallWords({ toolName: 'read_file', input: { path: 'src/app.ts', start_line: 3 } })).toBe(
      'reading src/app.ts',
    );
    expect(exploreCallWords({ toolName: 'list_dir', input: { path: 'src' } })).toBe('listing src');
    expect(exploreCallWords({ toolName: 'list_dir', input: {} })).toBe('listing .');
    expect(exploreCallWords({ toolName: 'search', input: { pattern: 'TODO', path: '.' } })).toBe('searching for TODO');
    expect(exploreCallWords({ toolName: 'search', input: { pattern: 'parse\\(', path: 'src' } })).toBe(
      'searching for parse\\( in src',
    );
    expect(exploreCallWords({ toolName: 'find_files', input: { pattern: '**/*.test.ts' } })).toBe(
      'finding files **/*.test.ts',
    );
    expect(exploreCallWords({ toolName: 'run_command', input: { command: 'ls' } })).toBe('run_command');
  });

  it('reads the task, trimmed, and none from an input without one', () => {
    expect(exploreTask({ task: '  Find the parser\nand its tests \n' })).toBe('Find the parser\nand its tests');
    expect(exploreTask(undefined)).toBe('');
    expect(exploreTask({ task: 7 })).toBe('');
  });

  it('reads an answer, its cut and an early end; a refusal or an unfinished call has no answer', () => {
    expect(
      exploreOutcome({ answer: 'Found it.', truncated: true, steps: 16, tool_calls: 30, ended: 'budget' }),
    ).toEqual({ answer: 'Found it.', truncated: true, steps: 16, tool_calls: 30, ended: 'budget' });
    expect(exploreOutcome({ answer: 'Found it.' })).toEqual({
      answer: 'Found it.',
      truncated: false,
      steps: 0,
      tool_calls: 0,
      ended: 'answered',
    });
    expect(exploreOutcome({ ok: false, code: 'EXPLORE_NO_ANSWER', message: 'no answer' })).toBeUndefined();
    expect(exploreOutcome(undefined)).toBeUndefined();
  });
});
