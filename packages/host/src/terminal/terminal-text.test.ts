/* eslint-disable no-control-regex -- these tests look for control characters */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import { quoteArgv, shellWord, terminalJson, terminalLine, terminalText } from './terminal-text.js';

const ESC = '\x1b';
/** Anything a terminal acts on: C0 but newline and tab, DEL, C1, bidi embeddings/overrides/isolates. */
const STEERING = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describeAttack('terminal-injection', 'terminalText strips every sequence that steers the terminal', () => {
  const attacks: [name: string, input: string, shown: string][] = [
    ['clear screen and home cursor (CSI)', `${ESC}[2J${ESC}[Hfake`, 'fake'],
    ['cursor up over the real prompt and erase the line', `ok${ESC}[1A${ESC}[2K${ESC}[0G`, 'ok'],
    ['private-mode CSI (hide cursor, alternate screen)', `${ESC}[?25l${ESC}[?1049hx`, 'x'],
    ['SGR colour that paints text invisible', `${ESC}[8mhidden${ESC}[0m`, 'hidden'],
    ['CSI cut off at the end of a chunk', `text${ESC}[12;3`, 'text'],
    ['OSC 52 clipboard write, BEL-terminated', `a${ESC}]52;c;cm0gLXJmIH4K${'\x07'}b`, 'ab'],
    ['OSC 52 clipboard write, ST-terminated', `a${ESC}]52;c;cm0gLXJmIH4K${ESC}\\b`, 'ab'],
    [
      'OSC 8 hyperlink whose target differs from its text',
      `${ESC}]8;;https://evil.test/${ESC}\\docs${ESC}]8;;${ESC}\\`,
      'docs',
    ],
    ['OSC 0 window title', `${ESC}]0;sudo password:\x07x`, 'x'],
    ['unterminated OSC swallows the rest, as the terminal would', `a${ESC}]52;c;AAAA`, 'a'],
    ['DCS (terminal request)', `${ESC}P+q544e${ESC}\\x`, 'x'],
    ['APC', `${ESC}_Gf=100;AAAA${ESC}\\x`, 'x'],
    ['PM', `${ESC}^private${ESC}\\x`, 'x'],
    ['SOS', `${ESC}Xstring${ESC}\\x`, 'x'],
    ['8-bit CSI (C1 0x9b)', '\x9b2J\x9bHfake', 'fake'],
    ['8-bit OSC (C1 0x9d) terminated by 8-bit ST', 'a\x9d52;c;AAAA\x9cb', 'ab'],
    ['8-bit DCS (C1 0x90)', 'a\x90q\x9cb', 'ab'],
    ['lone C1 controls (NEL, IND, RI)', 'a\x85b\x84c\x8dd', 'abcd'],
    ['full reset (ESC c) and save/restore cursor (ESC 7 / ESC 8)', `${ESC}c${ESC}7x${ESC}8`, 'x'],
    ['charset switch (ESC ( 0) that turns letters into line drawing', `${ESC}(0q${ESC}(B`, 'q'],
    ['lone ESC at the end of a chunk', `text${ESC}`, 'text'],
    ['carriage return overwrite becomes a newline', 'rm -rf ~\rls      ', 'rm -rf ~\nls      '],
    ['CRLF becomes one newline', 'a\r\nb', 'a\nb'],
    ['backspace overwrite', 'rm -rf ~\b\b\b\b\b\b\b\bls', 'rm -rf ~ls'],
    ['BEL, vertical tab, form feed, NUL, DEL', 'a\x07b\x0bc\x0cd\x00e\x7ff', 'abcdef'],
    ['bidi override reorders the line (Trojan Source)', 'x\u202eexe.txt\u202c', 'xexe.txt'],
    ['bidi isolates', 'a\u2066b\u2069c\u2067d\u2068e', 'abcde'],
  ];
  for (const [name, input, shown] of attacks) {
    it(`${name}: shows ${JSON.stringify(shown)}`, () => {
      const out = terminalText(input);
      expect(out).toBe(shown);
      expect(out).not.toMatch(STEERING);
    });
  }

  it('keeps newlines, tabs and ordinary Unicode text unchanged', () => {
    const text = 'line one\n\tindented — café, 日本語, emoji 🎉, עברית\n';
    expect(terminalText(text)).toBe(text);
  });

  it('leaves no steering character in any string at all (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (input) => {
        expect(terminalText(input)).not.toMatch(STEERING);
      }),
      { numRuns: 2000 },
    );
  });

  it('a sequence split across two chunks leaves no steering character in either', () => {
    const sequence = `${ESC}]52;c;AAAA\x07${ESC}[2J`;
    for (let cut = 0; cut <= sequence.length; cut += 1) {
      expect(terminalText(sequence.slice(0, cut)) + terminalText(sequence.slice(cut))).not.toMatch(STEERING);
    }
  });
});

describe('terminalLine', () => {
  it('turns newlines and tabs into spaces so untrusted text cannot draw its own prompt lines', () => {
    expect(terminalLine('ls\nThe agent wants to run: ls\nAllow? [y/N]\t')).toBe(
      'ls The agent wants to run: ls Allow? [y/N] ',
    );
  });
});

describe('terminalJson', () => {
  it('escapes C1, bidi and line-separator characters and parses back to the same value', () => {
    const value = { text: `a\x9b2J\u202e\u2028${ESC}[1m\x85`, n: 1 };
    const line = terminalJson(value);
    expect(line).not.toMatch(STEERING);
    expect(line).not.toContain('\u2028');
    expect(JSON.parse(line)).toEqual(value);
  });
});

/** Any argument an argv can hold (no NUL, no lone surrogate), weighted towards the characters quoting must handle. */
const shellArgument = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom(ESC, '\r', '\n', '\t', '\x9b', '\u202e', "'", '\\', '"', '$', '`', ' ', '*'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
  })
  .filter((word) => !word.includes('\0') && !/\p{Cs}/u.test(word));

describe('quoteArgv shows the exact argv', () => {
  const cases: [argv: string[], shown: string][] = [
    [['git', 'status'], 'git status'],
    [['git', 'commit', '-m', 'fix: the thing'], "git commit -m 'fix: the thing'"],
    [['echo', "it's"], `echo 'it'\\''s'`],
    [['printf', ''], "printf ''"],
    [['rm', '-rf', '~\rls'], "rm -rf $'~\\rls'"],
    [['printf', `${ESC}[2J`], "printf $'\\x1b[2J'"],
    [['cat', 'x\u202etxt.exe'], "cat $'x\\u202etxt.exe'"],
    [['cat', 'a\nb'], "cat $'a\\nb'"],
    [['ls', 'café'], "ls $'caf\\u00e9'"],
    [['echo', "a'b\\c\u00a0"], "echo $'a\\'b\\\\c\\u00a0'"],
    [['echo', '🎉'], "echo $'\\U0001f389'"],
  ];
  for (const [argv, shown] of cases) {
    it(`${JSON.stringify(argv)} → ${shown}`, () => {
      expect(quoteArgv(argv)).toBe(shown);
      expect(quoteArgv(argv)).not.toMatch(STEERING);
    });
  }

  it('bash splits every quoted word back into the same argument (property)', () => {
    fc.assert(
      fc.property(fc.array(shellArgument, { maxLength: 4 }), (argv) => {
        const script = `for a in ${quoteArgv(argv)}; do printf '%s\\0' "$a"; done`;
        const out =
          argv.length === 0
            ? ''
            : execFileSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C.UTF-8' } });
        expect(out).toBe(argv.map((word) => `${word}\0`).join(''));
      }),
      { numRuns: 100 },
    );
  });

  it('a plain word stays bare, a word with a space is quoted', () => {
    expect(shellWord('src/main.ts')).toBe('src/main.ts');
    expect(shellWord('a b')).toBe("'a b'");
  });
});
