import { describe, expect, it } from 'vitest';
import { TOOL_DIFF_MAX_CHARS, TOOL_DIFF_MAX_EDIT_LENGTH } from '@bastion/protocol';
import { DIFF_PREVIOUS_UNKNOWN_NOTE, DIFF_SKIPPED_NOTE, DIFF_TRUNCATED_NOTE } from '@bastion/protocol';
import { boundedDiff } from './edit-diff.js';

const lines = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}${i}\n`).join('');

describe('boundedDiff', () => {
  it('shows a change with three lines of context', () => {
    expect(boundedDiff('a.txt', 'l0\nl1\nl2\nl3\nl4\nl5\nl6\n', 'l0\nl1\nl2\nl3\nX\nl5\nl6\n')).toBe(
      '--- a/a.txt\n+++ b/a.txt\n@@ -2,6 +2,6 @@\n l1\n l2\n l3\n-l4\n+X\n l5\n l6\n',
    );
  });

  it(`cuts a diff longer than ${TOOL_DIFF_MAX_CHARS} characters at a line and says so`, () => {
    const after = lines(800, 'a line of some length that adds up to well over sixty characters in all, ');
    const diff = boundedDiff('big.txt', null, after);
    expect(diff.length).toBeLessThanOrEqual(TOOL_DIFF_MAX_CHARS);
    expect(diff.endsWith(`\n${DIFF_TRUNCATED_NOTE}\n`)).toBe(true);
    expect(
      diff
        .split('\n')
        .slice(3, -2)
        .every((line) => line.startsWith('+a line')),
    ).toBe(true);
  });

  it(`computes no diff beyond an edit length of ${TOOL_DIFF_MAX_EDIT_LENGTH} lines and says so`, () => {
    const diff = boundedDiff(
      'big.txt',
      lines(TOOL_DIFF_MAX_EDIT_LENGTH, 'old'),
      lines(TOOL_DIFF_MAX_EDIT_LENGTH, 'new'),
    );
    expect(diff).toBe(`--- a/big.txt\n+++ b/big.txt\n${DIFF_SKIPPED_NOTE}\n`);
  });

  it('says so when the previous content could not be shown', () => {
    expect(boundedDiff('blob.bin', undefined, 'text')).toBe(
      `--- a/blob.bin\n+++ b/blob.bin\n${DIFF_PREVIOUS_UNKNOWN_NOTE}\n`,
    );
  });
});
