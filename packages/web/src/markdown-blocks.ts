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
