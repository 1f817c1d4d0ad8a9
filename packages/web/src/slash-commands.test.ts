import { describe, expect, it } from 'vitest';
import { matchingCommands } from './slash-commands.js';

const commands = ['/new', '/undo', '/mode read-only', '/mode accept-edits', '/mode auto', '/help'].map((name) => ({
  name,
}));
const names = (draft: string) => matchingCommands(commands, draft).map((command) => command.name);

describe('matchingCommands', () => {
  it('lists every command for a lone slash, in their order', () => {
    expect(names('/')).toEqual(commands.map((command) => command.name));
  });

  it('narrows by the start of the name, ignoring case and trailing spaces', () => {
    expect(names('/MO')).toEqual(['/mode read-only', '/mode accept-edits', '/mode auto']);
    expect(names('/mode ')).toEqual(['/mode read-only', '/mode accept-edits', '/mode auto']);
    expect(names('/mode a')).toEqual(['/mode accept-edits', '/mode auto']);
    expect(names('/new  ')).toEqual(['/new']);
  });

  it('lists nothing for text that starts no command: a path, words after a command, a second line, no slash', () => {
    expect(names('/etc/hosts')).toEqual([]);
    expect(names('/new session please')).toEqual([]);
    expect(names('/new\nmore')).toEqual([]);
    expect(names('new')).toEqual([]);
    expect(names(' /new')).toEqual([]);
    expect(names('')).toEqual([]);
  });
});
