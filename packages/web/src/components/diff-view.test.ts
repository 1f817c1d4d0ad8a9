import { describe, expect, it } from 'vitest';
import { TOOL_DIFF_MAX_EDIT_LENGTH } from '@bastion/protocol';
import { diffLineClasses, diffOf, WHOLE_REPLACEMENT_NOTE } from './diff-view.js';

describe('diffLineClasses', () => {
  it('marks --- and +++ as the file header before the first hunk, and as a removed and an added line after it', () => {
    const lines = [
      '--- a/schema.sql',
      '+++ b/schema.sql',
      '@@ -1,2 +1,2 @@',
      '--- old comment',
      '+++ new line',
      ' SELECT 1;',
    ];
    expect(diffLineClasses(lines)).toEqual(['diff-file', 'diff-file', 'diff-hunk', 'diff-del', 'diff-add', 'diff-ctx']);
  });
});

describe('diffOf an edit not yet run (worked out from its input)', () => {
  const lines = (count: number, word: string) =>
    Array.from({ length: count }, (_, i) => `${word} ${i}`).join('\n') + '\n';

  it('shows an edit within the edit-length bound as its diff', () => {
    const diff = diffOf(
      'edit_file',
      { path: 'a.txt', old_string: 'one\ntwo\n', new_string: 'one\nthree\n' },
      undefined,
    );
    expect(diff?.split('\n').filter((line) => /^[-+][^-+]/.test(line))).toEqual(['-two', '+three']);
  });

  it('shows an edit whose changed lines pass the bound as every old line removed and every new one added, without matching them up', () => {
    const count = TOOL_DIFF_MAX_EDIT_LENGTH;
    const input = { path: 'a.txt', old_string: lines(count, 'old'), new_string: lines(count, 'new') };
    const diff = diffOf('edit_file', input, undefined)!.split('\n');
    expect(diff.slice(0, 3)).toEqual([
      '--- a.txt',
      '+++ a.txt',
      `@@ -1,${count} +1,${count} @@ ${WHOLE_REPLACEMENT_NOTE}`,
    ]);
    expect(diff.slice(3, -1)).toEqual([
      ...input.old_string
        .slice(0, -1)
        .split('\n')
        .map((line) => `-${line}`),
      ...input.new_string
        .slice(0, -1)
        .split('\n')
        .map((line) => `+${line}`),
    ]);
    // The result's own diff, once the tool ran, is shown as it came.
    expect(diffOf('edit_file', input, { diff: '--- a/a.txt\n+++ b/a.txt\n' })).toBe('--- a/a.txt\n+++ b/a.txt\n');
  });
});
