/**
 * Agent text cut into independent markdown blocks, so a streaming reply re-parses and re-lays-out
 * only its last block each frame instead of the whole reply. A cut is made only where it cannot
 * change how the text renders: at blank lines outside fenced code, before a line that starts at
 * the margin (an indented line after a blank one may continue a list item or be code).
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  /** The opening marker of the fenced code block the scan is in, if any. */
  let fence: string | undefined;
  let blockStart = 0;
  let afterBlank = false;
  let lineStart = 0;
  while (lineStart < text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      // a closing fence: the same character, at least as long, nothing after it
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
      }
    } else if (line.trim() === '') {
      afterBlank = lineStart > blockStart;
    } else {
      if (afterBlank && !/^\s/.test(line)) {
        blocks.push(text.slice(blockStart, lineStart));
        blockStart = lineStart;
      }
      afterBlank = false;
      if (marker !== undefined) fence = marker;
    }
    lineStart = lineEnd + 1;
  }
  if (blockStart < text.length) blocks.push(text.slice(blockStart));
  return blocks;
}

/** Does a block hold fenced code (which the renderer highlights)? */
export const holdsFence = (block: string): boolean => /^ {0,3}(?:`{3,}|~{3,})/m.test(block);

/**
 * A block (as markdownBlocks cuts) that is one fenced code block and nothing else, closed or
 * still open: its language (the info string's first word) and its code, each line less the
 * opening fence's indent, as the renderer shows it. Undefined when the block is anything else.
 */
export function loneFence(block: string): { language: string | undefined; code: string } | undefined {
  const text = block.trimEnd();
  const firstEnd = text.indexOf('\n');
  const opening = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(firstEnd === -1 ? text : text.slice(0, firstEnd));
  if (!opening) return undefined;
  const [, indent = '', marker = '', info = ''] = opening;
  // A backtick fence's info string holds no backtick (else the line is inline code).
  if (marker.startsWith('`') && info.includes('`')) return undefined;
  const lines = firstEnd === -1 ? [] : text.slice(firstEnd + 1).split('\n');
  const closing = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
  const closedAt = lines.findIndex((line) => closing.test(line));
  // Text after the closing fence makes the block more than the code.
  if (closedAt !== -1 && closedAt !== lines.length - 1) return undefined;
  const body = closedAt === -1 ? lines : lines.slice(0, closedAt);
  const dedent = new RegExp(`^ {0,${indent.length}}`);
  return {
    language: info.trim().split(/\s+/)[0] || undefined,
    code: indent === '' ? body.join('\n') : body.map((line) => line.replace(dedent, '')).join('\n'),
  };
}
