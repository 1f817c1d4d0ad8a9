import { describe, expect, it } from 'vitest';
import { holdsFence, loneFence, markdownBlocks } from './markdown-blocks.js';

describe('markdownBlocks', () => {
  it('cuts at blank lines before a line at the margin, and the pieces join back to the text', () => {
    const text = '# Title\n\nFirst paragraph\nstill first.\n\n\n- a\n- b\n\nLast';
    const blocks = markdownBlocks(text);
    expect(blocks).toEqual(['# Title\n\n', 'First paragraph\nstill first.\n\n\n', '- a\n- b\n\n', 'Last']);
    expect(blocks.join('')).toBe(text);
  });

  it('never cuts inside fenced code, even at its blank lines', () => {
    const text = 'Before\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter';
    expect(markdownBlocks(text)).toEqual(['Before\n\n', '```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n', 'After']);
  });

  it('keeps an unclosed fence (a reply still streaming) as one block to the end', () => {
    const text = 'Intro\n\n~~~\nline\n\nmore';
    expect(markdownBlocks(text)).toEqual(['Intro\n\n', '~~~\nline\n\nmore']);
  });

  it('does not close a fence with a shorter or different marker', () => {
    const text = '````\n```\n\n~~~\n\nx\n````\n\nend';
    expect(markdownBlocks(text)).toEqual(['````\n```\n\n~~~\n\nx\n````\n\n', 'end']);
  });

  it('does not cut before an indented line (a list item continued, or indented code)', () => {
    const text = '1. item\n\n    continued\n\n2. next';
    expect(markdownBlocks(text)).toEqual(['1. item\n\n    continued\n\n', '2. next']);
  });

  it('returns one block for text with no blank line and none for empty text', () => {
    expect(markdownBlocks('w0 w1 w2')).toEqual(['w0 w1 w2']);
    expect(markdownBlocks('')).toEqual([]);
  });
});

describe('loneFence', () => {
  it('gives the language and code of a block that is one fenced code block, closed or still open', () => {
    expect(loneFence('```ts extra\nconst a = 1;\n\nconst b = 2;\n```\n\n')).toEqual({
      language: 'ts',
      code: 'const a = 1;\n\nconst b = 2;',
    });
    expect(loneFence('~~~~\nstill streaming\n~~~\n')).toEqual({ language: undefined, code: 'still streaming\n~~~' });
    expect(loneFence('```\n```')).toEqual({ language: undefined, code: '' });
  });

  it("takes the opening fence's indent off each line, as the renderer does", () => {
    expect(loneFence('  ```py\n  a\n    b\n c\n  ```')).toEqual({ language: 'py', code: 'a\n  b\nc' });
  });

  it('is undefined for anything more or other than one fenced block', () => {
    expect(loneFence('```\ncode\n```\ntext after')).toBeUndefined();
    expect(loneFence('Text\n```\ncode\n```')).toBeUndefined();
    expect(loneFence('``` a`b\ncode')).toBeUndefined();
    expect(loneFence('    ```\nindented four: code, not a fence')).toBeUndefined();
  });
});

describe('holdsFence', () => {
  it('finds an opening fence on any line', () => {
    expect(holdsFence('Here:\n```ts\nx\n```')).toBe(true);
    expect(holdsFence('- item\n\n  ~~~\n  x')).toBe(true);
    expect(holdsFence('no `code` fence, ``two`` ticks')).toBe(false);
  });
});
