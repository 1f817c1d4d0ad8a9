/**
 * SEC-004: a command's argv shown to a person who decides on it (the CLI's approval prompt and the
 * desktop app's: the agent's question, the host's own, the tool card, an always-allow rule) is
 * exactly the argv that runs. Each argument becomes one POSIX shell word: bare when it is plain,
 * single-quoted when it holds spaces or shell characters, `$'…'` with escapes when it holds
 * anything but printable ASCII — newlines, tabs, every other control, bidi overrides and isolates,
 * zero-width and other invisible or look-alike characters all show as `\n`, `\t`, `\u202e`… Joined
 * by single spaces the words are what bash would split back into the same argv, so no argument can
 * pass for two, two cannot pass for one, and nothing in an argument hides part of it.
 *
 * What it does not catch: a person who reads `$'…'` escapes as noise; it says what runs, not what
 * the program does with it (`sh -c` runs its second word as a script).
 */

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function escapedCodePoint(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  if (char === '\r') return '\\r';
  if (char === '\\') return '\\\\';
  if (char === "'") return "\\'";
  if (code >= 0x20 && code <= 0x7e) return char;
  // bash turns \xHH into one byte, \uHHHH into the character's UTF-8
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

/** One argument as a POSIX shell word: bare, single-quoted, or `$'…'` with escapes when it holds anything but printable ASCII. */
export function shellWord(word: string): string {
  if (word === '') return "''";
  if (PLAIN_WORD.test(word)) return word;
  if (PRINTABLE_ASCII.test(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  return `$'${Array.from(word, escapedCodePoint).join('')}'`;
}

/** A command line that names exactly `argv`, one shell word per argument (what bash would split back into the same argv). */
export function quoteArgv(argv: readonly string[]): string {
  return argv.map(shellWord).join(' ');
}
