import { describe, expect, it } from 'vitest';
import { UI_MENTION_MAX_ENTRIES, type DirEntry } from '@bastion/protocol';
import { applyMention, matchingEntries, mentionAt } from './mention.js';

const file = (name: string): DirEntry => ({ name, kind: 'file' });
const folder = (name: string): DirEntry => ({ name, kind: 'directory' });

describe('mentionAt', () => {
  it('finds an @ word at the start of the text or after a space, split into folder and name prefix', () => {
    expect(mentionAt('@', 1)).toEqual({ start: 0, end: 1, folder: '', prefix: '' });
    expect(mentionAt('look at @src/com', 16)).toEqual({ start: 8, end: 16, folder: 'src/', prefix: 'com' });
    expect(mentionAt('see\n@a/b/', 10)).toEqual({ start: 4, end: 10, folder: 'a/b/', prefix: '' });
  });

  it('takes the word the caret is inside up to its end, but the prefix only up to the caret', () => {
    expect(mentionAt('@src/main.ts please', 6)).toEqual({ start: 0, end: 12, folder: 'src/', prefix: 'm' });
  });

  it('is no mention inside a word (an e-mail address), after the word, for an absolute path or one with ..', () => {
    expect(mentionAt('me@example.com', 14)).toBeUndefined();
    expect(mentionAt('@src ', 5)).toBeUndefined();
    expect(mentionAt('@/etc/pa', 8)).toBeUndefined();
    expect(mentionAt('@../secrets/', 12)).toBeUndefined();
    expect(mentionAt('@src/../..', 10)).toBeUndefined();
  });
});

describe('matchingEntries', () => {
  it('keeps names starting with the prefix, any case, folders first then by name', () => {
    const entries = [file('readme.md'), folder('src'), file('README.md'), folder('scripts'), file('setup.sh')];
    expect(matchingEntries(entries, 's').map((entry) => entry.name)).toEqual(['scripts', 'src', 'setup.sh']);
    expect(matchingEntries(entries, 'READ').map((entry) => entry.name)).toEqual(['readme.md', 'README.md']);
  });

  it('hides dot names until the prefix starts with a dot', () => {
    const entries = [file('.env.example'), folder('.github'), file('index.ts')];
    expect(matchingEntries(entries, '').map((entry) => entry.name)).toEqual(['index.ts']);
    expect(matchingEntries(entries, '.').map((entry) => entry.name)).toEqual(['.github', '.env.example']);
  });

  it(`shows at most ${UI_MENTION_MAX_ENTRIES} entries`, () => {
    const entries = Array.from({ length: UI_MENTION_MAX_ENTRIES + 10 }, (_, index) => file(`f${index}`));
    expect(matchingEntries(entries, 'f')).toHaveLength(UI_MENTION_MAX_ENTRIES);
  });
});

describe('applyMention', () => {
  it('puts a folder in with a slash and keeps the caret after it, so its entries come next', () => {
    const text = 'read @sr';
    const mention = mentionAt(text, text.length);
    if (!mention) throw new Error('no mention');
    expect(applyMention(text, mention, folder('src'))).toEqual({ text: 'read @src/', caret: 10 });
  });

  it('puts a file in and closes the mention with one space, keeping the text after it', () => {
    const text = 'read @src/ma and explain';
    const mention = mentionAt(text, 12);
    if (!mention) throw new Error('no mention');
    expect(applyMention(text, mention, file('main.ts'))).toEqual({ text: 'read @src/main.ts and explain', caret: 18 });
    const atEnd = mentionAt('@RE', 3);
    if (!atEnd) throw new Error('no mention');
    expect(applyMention('@RE', atEnd, file('README.md'))).toEqual({ text: '@README.md ', caret: 11 });
  });
});
