/**
 * Split a command line into words by POSIX shell quoting rules — without a shell. Quotes and
 * backslashes are honoured; nothing is expanded (no `$VAR`, globs, `~`, command substitution),
 * and unquoted operators (`|`, `;`, `&`, `<`, `>`, `(`, `)`, backquote) are refused, because no
 * shell will ever interpret them.
 */
export type ShellWordsResult = { ok: true; words: string[] } | { ok: false; reason: string };

const OPERATORS = new Set(['|', ';', '&', '<', '>', '(', ')', '`']);
/** Inside double quotes a backslash escapes only these (POSIX 2.2.3). */
const DOUBLE_QUOTE_ESCAPABLE = new Set(['$', '`', '"', '\\', '\n']);

export function splitShellWords(line: string): ShellWordsResult {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i] as string;
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i += 1;
      continue;
    }
    if (ch === '\\') {
      const next = line[i + 1];
      if (next === undefined) return { ok: false, reason: 'trailing backslash' };
      // backslash-newline is a line continuation and disappears
      if (next !== '\n') {
        word += next;
        inWord = true;
      }
      i += 2;
      continue;
    }
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return { ok: false, reason: 'unterminated single quote' };
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (ch === '"') {
      let j = i + 1;
      let closed = false;
      while (j < line.length) {
        const c = line[j] as string;
        if (c === '"') {
          closed = true;
          break;
        }
        if (c === '\\' && j + 1 < line.length && DOUBLE_QUOTE_ESCAPABLE.has(line[j + 1] as string)) {
          if (line[j + 1] !== '\n') word += line[j + 1];
          j += 2;
          continue;
        }
        word += c;
        j += 1;
      }
      if (!closed) return { ok: false, reason: 'unterminated double quote' };
      inWord = true;
      i = j + 1;
      continue;
    }
    if (OPERATORS.has(ch)) return { ok: false, reason: `shell operator ${ch} is not supported (no shell runs)` };
    word += ch;
    inWord = true;
    i += 1;
  }
  if (inWord) words.push(word);
  return { ok: true, words };
}
