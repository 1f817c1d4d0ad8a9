import { describe, expect, it } from 'vitest';
import { quoteArgv, shellWord } from './shell-word.js';

describe('quoteArgv shows what would hide in an argv', () => {
  const cases: [name: string, argv: string[], shown: string][] = [
    [
      'a newline after a shell comment',
      ['sh', '-c', 'echo checking build #\ntouch deceptive-marker'],
      "sh -c $'echo checking build #\\ntouch deceptive-marker'",
    ],
    ['one argument with a space, not two', ['sh', '-c', 'a b'], "sh -c 'a b'"],
    ['two arguments, not one', ['sh', '-c', 'a', 'b'], 'sh -c a b'],
    ['a tab', ['printf', 'a\tb'], "printf $'a\\tb'"],
    ['a right-to-left override', ['cat', 'notes\u202etxt.sh'], "cat $'notes\\u202etxt.sh'"],
    ['a first-strong isolate', ['cat', 'a\u2068b'], "cat $'a\\u2068b'"],
    ['a zero-width space', ['rm', 'keep\u200b'], "rm $'keep\\u200b'"],
    ['a zero-width joiner and a BOM', ['rm', '\u200d\ufeffx'], "rm $'\\u200d\\ufeffx'"],
    ['a no-break space', ['rm', 'a\u00a0b'], "rm $'a\\u00a0b'"],
    ['a Cyrillic look-alike', ['curl', 'gіthub.com'], "curl $'g\\u0456thub.com'"],
    ['an empty argument', ['printf', ''], "printf ''"],
  ];
  for (const [name, argv, shown] of cases) {
    it(`${name}: ${shown}`, () => {
      expect(quoteArgv(argv)).toBe(shown);
    });
  }

  it('leaves a plain word bare', () => {
    expect(shellWord('src/main.ts')).toBe('src/main.ts');
  });
});
