/**
 * The unified diff a write_file/edit_file result carries (shown by the UI and by `bastion run`):
 * jsdiff's patch of the file before and after, a created file as all additions against
 * /dev/null. Both the work (jsdiff's maxEditLength) and the text (TOOL_DIFF_MAX_CHARS, cut at a
 * line) are bounded, and a cut or skipped diff says so in its last line.
 */
import { createTwoFilesPatch } from 'diff';
import {
  DIFF_PREVIOUS_UNKNOWN_NOTE,
  DIFF_SKIPPED_NOTE,
  DIFF_TRUNCATED_NOTE,
  TOOL_DIFF_MAX_CHARS,
  TOOL_DIFF_MAX_EDIT_LENGTH,
} from '@bastion/protocol';

/** `before` is null when the write created the file, undefined when it was not readable as text. */
export function boundedDiff(path: string, before: string | null | undefined, after: string): string {
  if (before === undefined) return `--- a/${path}\n+++ b/${path}\n${DIFF_PREVIOUS_UNKNOWN_NOTE}\n`;
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${path}`,
    `b/${path}`,
    before ?? '',
    after,
    '',
    '',
    {
      context: 3,
      maxEditLength: TOOL_DIFF_MAX_EDIT_LENGTH,
    },
  );
  if (patch === undefined) return `--- a/${path}\n+++ b/${path}\n${DIFF_SKIPPED_NOTE}\n`;
  // jsdiff opens with a line of `=`; a unified diff starts at `---`.
  const text = patch.replace(/^=+\n/, '');
  if (text.length <= TOOL_DIFF_MAX_CHARS) return text;
  const cut = text.lastIndexOf('\n', TOOL_DIFF_MAX_CHARS - DIFF_TRUNCATED_NOTE.length - 2);
  return `${text.slice(0, cut + 1)}${DIFF_TRUNCATED_NOTE}\n`;
}
