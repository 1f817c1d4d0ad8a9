import { describe, expect, it } from 'vitest';
import { diffLineClasses } from './diff-view.js';

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
