import { describe, expect, it } from 'vitest';
import { DIFF_PREVIOUS_UNKNOWN_NOTE, TOOL_DIFF_MAX_EDIT_LENGTH } from '@bastion/protocol';
import { diffFileOf, diffLines, diffOf, diffRows, WHOLE_REPLACEMENT_NOTE } from './diff-view.js';

describe('diffRows', () => {
  it('marks --- and +++ as the file header before the first hunk, and as a removed and an added line after it', () => {
    const lines = [
      '--- a/schema.sql',
      '+++ b/schema.sql',
      '@@ -1,2 +1,2 @@',
      '--- old comment',
      '+++ new line',
      ' SELECT 1;',
    ];
    expect(diffRows(lines).map((row) => row.kind)).toEqual([
      'diff-file',
      'diff-file',
      'diff-hunk',
      'diff-del',
      'diff-add',
      'diff-ctx',
    ]);
  });

  it('numbers each line as it is in the file before and after, from each hunk’s header', () => {
    const rows = diffRows([
      '--- a/notes.txt',
      '+++ b/notes.txt',
      '@@ -3,3 +3,3 @@',
      ' keep',
      '-old',
      '+new',
      ' end',
      '\\ No newline at end of file',
      '@@ -20,1 +20,2 @@',
      ' twenty',
      '+added',
    ]);
    expect(rows.map((row) => [row.old, row.new])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
      [undefined, undefined],
      [3, 3],
      [4, undefined],
      [undefined, 4],
      [5, 5],
      [undefined, undefined],
      [undefined, undefined],
      [20, 20],
      [undefined, 21],
    ]);
  });
});

describe('diffFileOf', () => {
  const fileOf = (diff: string) => diffFileOf(diffRows(diffLines(diff)));

  it('names a created file added, a deleted one deleted, with its lines added and removed', () => {
    expect(fileOf('--- /dev/null\n+++ b/src/made.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n')).toEqual({
      path: 'src/made.txt',
      status: 'added',
      added: 2,
      removed: 0,
      counted: true,
    });
    expect(fileOf('--- a/gone.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n')).toMatchObject({
      path: 'gone.txt',
      status: 'deleted',
      removed: 1,
    });
  });

  it('keeps a path named without git’s a/ and b/ as it is (a diff worked out from an edit’s input)', () => {
    expect(fileOf('--- b/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n')).toMatchObject({
      path: 'b/x.txt',
      status: 'modified',
    });
  });
});

describe('diffOf a write_file', () => {
  const input = { path: 'logo.png', content: 'not a picture\n' };

  it('shows a write its result says created as added against /dev/null', () => {
    expect(diffFileOf(diffRows(diffLines(diffOf('write_file', input, { created: true })!)))).toMatchObject({
      status: 'added',
      added: 1,
    });
  });

  it('works out no diff for a write before its result, nor for one whose result says the file was there, so neither is called added', () => {
    expect(diffOf('write_file', input, undefined)).toBeUndefined();
    expect(diffOf('write_file', input, { created: false })).toBeUndefined();
  });

  it('does not count the lines of an overwrite whose diff the daemon did not work out (earlier content binary)', () => {
    const diff = `--- a/logo.png\n+++ b/logo.png\n${DIFF_PREVIOUS_UNKNOWN_NOTE}\n`;
    expect(diffFileOf(diffRows(diffLines(diff)))).toEqual({
      path: 'logo.png',
      status: 'modified',
      added: 0,
      removed: 0,
      counted: false,
    });
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
