/**
 * `@` mentions in the message box: the word at the caret that starts with `@` names a path of the
 * session's workspace. This finds that word, splits it into the folder to list and the start of a
 * name, picks the folder's entries that fit, and puts the chosen one in the text.
 */
import type { DirEntry } from '@bastion/protocol';
import { UI_MENTION_MAX_ENTRIES } from '@bastion/protocol';

export interface Mention {
  /** Index of the `@` in the text. */
  start: number;
  /** Index just past the word (the caret, or the end of the word the caret is in). */
  end: number;
  /** The folder to list, relative to the workspace root: '' for the root, else ending in `/`. */
  folder: string;
  /** What the name in that folder must start with. */
  prefix: string;
}

const SPACE = /\s/;

/** The mention the caret is in or at the end of, if any: an `@` at the start of the text or after a space. */
export function mentionAt(text: string, caret: number): Mention | undefined {
  let start = caret;
  while (start > 0 && !SPACE.test(text.charAt(start - 1))) start -= 1;
  if (text.charAt(start) !== '@') return undefined;
  let end = caret;
  while (end < text.length && !SPACE.test(text.charAt(end))) end += 1;
  const path = text.slice(start + 1, caret);
  if (path.startsWith('/') || path.split('/').includes('..')) return undefined;
  const cut = path.lastIndexOf('/') + 1;
  return { start, end, folder: path.slice(0, cut), prefix: path.slice(cut) };
}

/**
 * The entries whose names start with the prefix (ignoring case), folders first, then by name; names
 * starting with a dot only once the prefix does. At most UI_MENTION_MAX_ENTRIES.
 */
export function matchingEntries(entries: readonly DirEntry[], prefix: string): DirEntry[] {
  const wanted = prefix.toLowerCase();
  return entries
    .filter(
      (entry) => entry.name.toLowerCase().startsWith(wanted) && (prefix.startsWith('.') || !entry.name.startsWith('.')),
    )
    .sort((a, b) => {
      const folders = Number(b.kind === 'directory') - Number(a.kind === 'directory');
      return folders !== 0 ? folders : a.name.localeCompare(b.name);
    })
    .slice(0, UI_MENTION_MAX_ENTRIES);
}

/**
 * The text with the mention replaced by the chosen entry: a folder keeps the mention open (ends in
 * `/`, so its own entries come next), a file closes it with a space. Returns where the caret goes.
 */
export function applyMention(text: string, mention: Mention, entry: DirEntry): { text: string; caret: number } {
  const path = `@${mention.folder}${entry.name}${entry.kind === 'directory' ? '/' : ''}`;
  const after = text.slice(mention.end);
  const gap = entry.kind === 'directory' || after.startsWith(' ') ? '' : ' ';
  const head = `${text.slice(0, mention.start)}${path}${gap}`;
  return { text: `${head}${after}`, caret: head.length + (gap === '' && entry.kind !== 'directory' ? 1 : 0) };
}
