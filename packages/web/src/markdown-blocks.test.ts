import { describe, expect, it } from 'vitest';
import { markdownBlocks } from './markdown-blocks.js';

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
