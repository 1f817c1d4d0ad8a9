/**
 * A unified diff, line by line, coloured by kind. The diff comes from the tool's own result
 * (`output.diff`), or before the tool has run from its tool-preview event: the daemon's diff
 * against the file as it was when the call waited for an answer (its approval, or the host's own
 * question). Where neither came (the daemon could not read the file as text, an older transcript)
 * it is computed here with jsdiff from the tool's input: an edit's old and new strings, or a
 * write's whole content as additions. That input is the model's, so the work is bounded as the
 * daemon bounds its own: past UI_DIFF_MAX_INPUT_CHARS the card says the change is too large to
 * show; an edit changing more lines than jsdiff's edit bound (its cost grows with the square:
 * seconds of a frozen page for a few thousand) is shown as every old line removed and every new
 * one added, its hunk header saying so, so that an approval still shows all it would write.
 */
import { useState } from 'react';
import { createTwoFilesPatch, FILE_HEADERS_ONLY, formatPatch } from 'diff';
import { TOOL_DIFF_MAX_EDIT_LENGTH, UI_DIFF_FOLD_LINES, UI_DIFF_MAX_INPUT_CHARS } from '@bastion/protocol';

interface WriteInput {
  path?: unknown;
  content?: unknown;
  old_string?: unknown;
  new_string?: unknown;
}

/**
 * The diff a write_file / edit_file call made: from its result; before it ran, the daemon's diff
 * against the file as it was when the call waited for an answer (`preview`); else computed from its input.
 */
export function diffOf(toolName: string, input: unknown, output: unknown, preview?: string): string | undefined {
  const carried = typeof output === 'object' && output !== null ? (output as { diff?: unknown }).diff : undefined;
  if (typeof carried === 'string') return carried;
  if (preview !== undefined) return preview;
  const fields = (typeof input === 'object' && input !== null ? input : {}) as WriteInput;
  const path = typeof fields.path === 'string' ? fields.path : 'file';
  if (toolName === 'edit_file' && typeof fields.old_string === 'string' && typeof fields.new_string === 'string') {
    if (fields.old_string.length + fields.new_string.length > UI_DIFF_MAX_INPUT_CHARS) return undefined;
    // A replaced fragment rarely ends in a newline; diffing it as whole lines avoids a
    // misleading "No newline at end of file" on both sides.
    const asLines = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
    const [before, after] = [asLines(fields.old_string), asLines(fields.new_string)];
    return (
      createTwoFilesPatch(path, path, before, after, '', '', {
        context: 3,
        maxEditLength: TOOL_DIFF_MAX_EDIT_LENGTH,
      }) ?? wholeReplacement(path, before, after)
    );
  }
  if (toolName === 'write_file' && typeof fields.content === 'string') {
    if (fields.content.length > UI_DIFF_MAX_INPUT_CHARS) return undefined;
    return createTwoFilesPatch('/dev/null', path, '', fields.content, '', '', { context: 0 });
  }
  return undefined;
}

/** What its hunk header says of a diff that was not worked out line by line. */
export const WHOLE_REPLACEMENT_NOTE = 'every line shown replaced: too many changed to match them up';

/** `before` replaced by `after` as one hunk, every line of each (both end in a newline or are empty). */
function wholeReplacement(path: string, before: string, after: string): string {
  const lines = (text: string) => (text === '' ? [] : text.slice(0, -1).split('\n'));
  const [removed, added] = [lines(before), lines(after)];
  const patch = formatPatch(
    {
      oldFileName: path,
      newFileName: path,
      oldHeader: '',
      newHeader: '',
      hunks: [
        {
          oldStart: 1,
          oldLines: removed.length,
          newStart: 1,
          newLines: added.length,
          lines: [...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`)],
        },
      ],
    },
    FILE_HEADERS_ONLY,
  );
  return patch.replace(/^(@@ [^\n]* @@)$/m, `$1 ${WHOLE_REPLACEMENT_NOTE}`);
}

/**
 * Each line's kind in one file's diff. `---` and `+++` are its header only before its first hunk:
 * after it, `--- x` is a removed line `-- x` (an SQL comment, say) and `+++ x` an added `++ x`.
 */
export function diffLineClasses(lines: readonly string[]): string[] {
  let inHunks = false;
  return lines.map((line) => {
    if (line.startsWith('@@')) {
      inHunks = true;
      return 'diff-hunk';
    }
    if (!inHunks && (line.startsWith('+++') || line.startsWith('---'))) return 'diff-file';
    if (line.startsWith('+')) return 'diff-add';
    if (line.startsWith('-')) return 'diff-del';
    if (line.startsWith('\\')) return 'diff-note';
    return 'diff-ctx';
  });
}

/** `counts`: whether its head says the lines it adds and removes (false where the file's row says them already). */
export function DiffView({ diff, counts = true }: { diff: string; counts?: boolean }) {
  const lines = diff
    .replace(/\n$/, '')
    .split('\n')
    .filter((line) => !line.startsWith('=====') && !line.startsWith('Index: '));
  const folds = lines.length > UI_DIFF_FOLD_LINES;
  const [open, setOpen] = useState(!folds);
  const classes = diffLineClasses(lines);
  const added = classes.filter((kind) => kind === 'diff-add').length;
  const removed = classes.filter((kind) => kind === 'diff-del').length;
  const shown = open ? lines : lines.slice(0, UI_DIFF_FOLD_LINES);
  return (
    <div className="diff" data-testid="diff">
      {(counts || folds) && (
        <div className="tool-output-head">
          {counts && (
            <span>
              diff <span className="diff-add-count">+{added}</span> <span className="diff-del-count">−{removed}</span>
            </span>
          )}
          {folds && (
            <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
              {open ? 'Collapse' : `Show all ${lines.length} lines`}
            </button>
          )}
        </div>
      )}
      <pre className="diff-body">
        {shown.map((line, index) => (
          <span key={index} className={`diff-line ${classes[index] ?? 'diff-ctx'}`}>
            {line}
            {'\n'}
          </span>
        ))}
      </pre>
    </div>
  );
}
