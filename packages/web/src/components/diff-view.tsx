/**
 * A unified diff, line by line, coloured by kind. The diff comes from the tool's own result
 * (`output.diff`); before the tool has run (its approval) and for older transcripts whose results
 * carry none, it is computed here with jsdiff from the tool's input: an edit's old and new strings,
 * or a write's whole content as additions (the file's earlier content was never recorded). The
 * input is the model's, so the work is bounded as the daemon bounds its own (size, and an edit's
 * edit length: jsdiff's cost grows with its square, seconds of a frozen page for a few thousand
 * lines changed); past either the card says the change is too large to show.
 */
import { useState } from 'react';
import { createTwoFilesPatch } from 'diff';
import { TOOL_DIFF_MAX_EDIT_LENGTH, UI_DIFF_FOLD_LINES, UI_DIFF_MAX_INPUT_CHARS } from '@bastion/protocol';

interface WriteInput {
  path?: unknown;
  content?: unknown;
  old_string?: unknown;
  new_string?: unknown;
}

/** The diff a write_file / edit_file call made: from its result, else computed from its input. */
export function diffOf(toolName: string, input: unknown, output: unknown): string | undefined {
  const carried = typeof output === 'object' && output !== null ? (output as { diff?: unknown }).diff : undefined;
  if (typeof carried === 'string') return carried;
  const fields = (typeof input === 'object' && input !== null ? input : {}) as WriteInput;
  const path = typeof fields.path === 'string' ? fields.path : 'file';
  if (toolName === 'edit_file' && typeof fields.old_string === 'string' && typeof fields.new_string === 'string') {
    if (fields.old_string.length + fields.new_string.length > UI_DIFF_MAX_INPUT_CHARS) return undefined;
    // A replaced fragment rarely ends in a newline; diffing it as whole lines avoids a
    // misleading "No newline at end of file" on both sides.
    const asLines = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
    return createTwoFilesPatch(path, path, asLines(fields.old_string), asLines(fields.new_string), '', '', {
      context: 3,
      maxEditLength: TOOL_DIFF_MAX_EDIT_LENGTH,
    });
  }
  if (toolName === 'write_file' && typeof fields.content === 'string') {
    if (fields.content.length > UI_DIFF_MAX_INPUT_CHARS) return undefined;
    return createTwoFilesPatch('/dev/null', path, '', fields.content, '', '', { context: 0 });
  }
  return undefined;
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
