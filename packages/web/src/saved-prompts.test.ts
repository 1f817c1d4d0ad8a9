import { describe, expect, it } from 'vitest';
import { fillForLine, fillFrom, mayNamePrompt, promptFile, promptListOf, type PromptList } from './saved-prompts.js';

const peek = { name: 'peek', description: 'read a file', body: 'read $ARGUMENTS' };
const review = { name: 'review', description: 'Review', body: 'Review the last change.' };
const list: PromptList = { folder: '/home/ada/.bastion/prompts', prompts: [peek, review] };

describe('promptListOf', () => {
  it('drops a prompt named like one of Bastion’s own commands, so /help always means Bastion’s help', () => {
    const listed = promptListOf({
      folder: '/p',
      prompts: [peek, { name: 'help', description: 'mine', body: 'not Bastion’s help' }, review],
    });
    expect(listed.prompts.map((prompt) => prompt.name)).toEqual(['peek', 'review']);
    expect(listed.folder).toBe('/p');
  });
});

describe('promptFile', () => {
  it('names the file in the folder, with the folder’s own separator and no doubled one', () => {
    expect(promptFile('/home/ada/.bastion/prompts', 'peek')).toBe('/home/ada/.bastion/prompts/peek.md');
    expect(promptFile('/srv/prompts/', 'peek')).toBe('/srv/prompts/peek.md');
    expect(promptFile('C:\\Users\\ada\\.bastion\\prompts', 'peek')).toBe('C:\\Users\\ada\\.bastion\\prompts\\peek.md');
  });
});

describe('fillForLine', () => {
  it('puts what follows /NAME in place of $ARGUMENTS and names the file', () => {
    expect(fillForLine(list, '/peek README.md')).toEqual({
      text: 'read README.md',
      file: '/home/ada/.bastion/prompts/peek.md',
    });
  });

  it('appends what follows after a blank line when the prompt has no $ARGUMENTS; nothing typed, nothing added', () => {
    expect(fillForLine(list, '/review only src/')?.text).toBe('Review the last change.\n\nonly src/');
    expect(fillForLine(list, '/review')?.text).toBe('Review the last change.');
  });

  it('names no prompt for a path, an unknown name, a built-in’s name or text before the slash', () => {
    expect(fillForLine(list, '/etc/hosts is what?')).toBeUndefined();
    expect(fillForLine(list, '/peeking at it')).toBeUndefined();
    expect(fillForLine(list, '/help')).toBeUndefined();
    expect(fillForLine(list, 'please /peek README.md')).toBeUndefined();
  });
});

describe('fillFrom', () => {
  it('expands the chosen prompt with the given arguments', () => {
    expect(fillFrom(list, peek, '')).toEqual({ text: 'read ', file: '/home/ada/.bastion/prompts/peek.md' });
    expect(fillFrom(list, peek, ' a.txt ').text).toBe('read a.txt');
  });
});

describe('mayNamePrompt', () => {
  it('is true for a slash then a name’s first character, false otherwise', () => {
    expect(mayNamePrompt('/peek')).toBe(true);
    expect(mayNamePrompt('/p')).toBe(true);
    expect(mayNamePrompt('/etc/hosts')).toBe(true);
    expect(mayNamePrompt('/')).toBe(false);
    expect(mayNamePrompt('/ hello')).toBe(false);
    expect(mayNamePrompt('/Peek')).toBe(false);
    expect(mayNamePrompt('hello /peek')).toBe(false);
    expect(mayNamePrompt('')).toBe(false);
  });
});
