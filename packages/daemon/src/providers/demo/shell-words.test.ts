import { describe, expect, it } from 'vitest';
import { splitShellWords } from './shell-words.js';

const words = (line: string) => {
  const result = splitShellWords(line);
  if (!result.ok) throw new Error(result.reason);
  return result.words;
};

describe('splitShellWords', () => {
  it.each<[string, string[]]>([
    ['ls -la', ['ls', '-la']],
    ['  echo   a\tb  ', ['echo', 'a', 'b']],
    ["echo 'a b' c", ['echo', 'a b', 'c']],
    ['echo "a b" c', ['echo', 'a b', 'c']],
    ["echo 'it'\\''s'", ['echo', "it's"]],
    ['echo "say \\"hi\\""', ['echo', 'say "hi"']],
    ['echo "a\\b"', ['echo', 'a\\b']],
    ['echo "\\$HOME"', ['echo', '$HOME']],
    ['echo a\\ b', ['echo', 'a b']],
    ['echo a\\\nb', ['echo', 'ab']],
    ["echo ''", ['echo', '']],
    ['echo ""x', ['echo', 'x']],
    ['echo $HOME ~ *.ts', ['echo', '$HOME', '~', '*.ts']],
    ["echo '$(id)'", ['echo', '$(id)']],
    ["echo 'a|b;c'", ['echo', 'a|b;c']],
    ['', []],
  ])('splits %j', (line, expected) => {
    expect(words(line)).toEqual(expected);
  });

  it.each([
    ['echo "open', 'unterminated double quote'],
    ["echo 'open", 'unterminated single quote'],
    ['echo a\\', 'trailing backslash'],
  ])('refuses %j (%s)', (line, reason) => {
    expect(splitShellWords(line)).toEqual({ ok: false, reason });
  });

  it.each(['ls | wc', 'a; b', 'a && b', 'cat < x', 'echo > x', 'echo `id`', '(ls)'])(
    'refuses the unquoted operator in %j',
    (line) => {
      const result = splitShellWords(line);
      expect(result.ok).toBe(false);
    },
  );
});
