import { describe, expect, it } from 'vitest';
import type { SavedPrompt } from './api/prompts.js';
import { expandPrompt, promptCommand } from './prompt-expansion.js';

const prompts: SavedPrompt[] = [
  { name: 'fix-issue', description: 'Fix an issue', body: 'Fix issue $ARGUMENTS, then test it. ($ARGUMENTS)' },
  { name: 'review', description: 'Review', body: 'Review the diff.' },
];

describe('expandPrompt', () => {
  it('puts what follows the command in place of every $ARGUMENTS, trimmed', () => {
    expect(expandPrompt('Fix issue $ARGUMENTS, then test it. ($ARGUMENTS)', '  #123 ')).toBe(
      'Fix issue #123, then test it. (#123)',
    );
  });

  it('appends it after a blank line to a body without the placeholder, and leaves the body alone without it', () => {
    expect(expandPrompt('Review the diff.', 'focus on tests')).toBe('Review the diff.\n\nfocus on tests');
    expect(expandPrompt('Review the diff.', '   ')).toBe('Review the diff.');
  });
});

describe('promptCommand', () => {
  it('finds the prompt a line names and what follows it, across lines', () => {
    expect(promptCommand(prompts, '/fix-issue 123\nand more')).toEqual({ prompt: prompts[0], args: '123\nand more' });
    expect(promptCommand(prompts, '/review')).toEqual({ prompt: prompts[1], args: '' });
  });

  it('names none for an unknown name, a prefix of one, a path, or text that does not start with /', () => {
    expect(promptCommand(prompts, '/fix')).toBeUndefined();
    expect(promptCommand(prompts, '/help')).toBeUndefined();
    expect(promptCommand(prompts, '/etc/hosts is wrong')).toBeUndefined();
    expect(promptCommand(prompts, 'please /review')).toBeUndefined();
  });
});
