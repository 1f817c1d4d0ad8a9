import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitConfigReferences, parseGitConfig } from '../src/git-config.js';

/** git's own reading of `text`, as `name=value` lines (a bare key prints its name alone). */
function gitList(text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'bastion-gitconfig-'));
  try {
    writeFileSync(join(dir, 'config'), text);
    const out = execFileSync('git', ['config', '--file', join(dir, 'config'), '--list'], {
      encoding: 'utf8',
      cwd: dir,
    });
    return out.split('\n').filter((line) => line.length > 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const asList = (text: string) =>
  parseGitConfig(text).map((entry) => (entry.value === null ? entry.name : `${entry.name}=${entry.value}`));

describe('parseGitConfig reads what git reads', () => {
  it.each([
    ['plain keys, case folded', '[Core]\n\tHooksPath = .husky\n\tbare = true\n'],
    ['a key without a value', '[core]\n\tfsmonitor\n'],
    ['quotes, escapes and comments', '[core]\n\thooksPath = "a b" ; comment\n\tx = "q\\"uote" c\\td # more\n'],
    ['spaces kept inside, trimmed outside', '[core]\n\thooksPath =   spaced   out   \n'],
    ['a continuation line', '[core]\n\thooksPath = first\\\n-second\n'],
    ['subsections keep their case', '[includeIf "gitdir:~/Work/"]\n\tpath = ../Inc.cfg\n[include]\npath=x'],
    ['the old dotted subsection form', '[Branch.Main]\n\tremote = origin\n'],
    ['a key on the header line', '[core] hooksPath = .hooks\n'],
    ['CRLF line ends', '[core]\r\n\thooksPath = .hooks\r\n'],
  ])('%s', (_name, text) => {
    expect(asList(text)).toEqual(gitList(text));
  });

  it('stops at a syntax error, keeping what came before (git refuses the file)', () => {
    expect(asList('[core]\n\thooksPath = a\n\tbad key = 1\n\tlater = 2\n')).toEqual(['core.hookspath=a']);
  });
});

describe('gitConfigReferences', () => {
  const files: Record<string, string> = {
    '/r/.git/config':
      '[core]\n\thooksPath = .husky\n[include]\n\tpath = ../shared.cfg\n[includeIf "onbranch:x"]\n\tpath = ~/inc.cfg\n',
    '/r/shared.cfg': '[include]\n\tpath = loop.cfg\n',
    '/r/loop.cfg': '[include]\n\tpath = shared.cfg\n[core]\n\thooksPath = ~/hooks\n',
  };
  const access = {
    readText: (path: string) => files[path],
    resolve: (base: string, relative: string) => resolve(base, relative),
    dirname,
    home: '/home/u',
  };

  it('follows every include, whatever its condition, once each, and collects every hooks path', () => {
    expect(gitConfigReferences(['/r/.git/config'], access)).toEqual({
      files: ['/r/.git/config', '/r/shared.cfg', '/r/loop.cfg', '/home/u/inc.cfg'],
      hooksPaths: ['.husky', '/home/u/hooks'],
    });
  });
});
