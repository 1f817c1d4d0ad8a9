/**
 * A unified diff, line by line, coloured by kind. The diff comes from the tool's own result
 * (`output.diff`), or before the tool has run from its tool-preview event: the daemon's diff
 * against the file as it was when the call waited for an answer (its approval, or the host's own
 * question). Where neither came (the daemon could not read the file as text, an older transcript)
 * it is computed here with jsdiff from the tool's input: an edit's old and new strings, or the
 * whole content of a write whose result says it created the file, as additions (before its
 * result a write's old side is unknown, so its card shows the content, not a diff). That input is
 * the model's, so the work is bounded as the daemon bounds its own: past UI_DIFF_MAX_INPUT_CHARS
 * the card says the change is too large to show; an edit changing more lines than jsdiff's edit bound (its cost grows with the square:
 * seconds of a frozen page for a few thousand) is shown as every old line removed and every new
 * one added, its hunk header saying so, so that an approval still shows all it would write.
 */
import { useState, type CSSProperties } from 'react';
import { createTwoFilesPatch, FILE_HEADERS_ONLY, formatPatch } from 'diff';
import { TOOL_DIFF_MAX_EDIT_LENGTH, UI_DIFF_FOLD_LINES, UI_DIFF_MAX_INPUT_CHARS } from '@bastion/protocol';
import { CopyButton } from './copy-button.js';

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
  // A write's content is a new file's diff only once its result says it made the file: before
  // that, or over a file whose earlier content the daemon could not show (binary, too large), the
  // old side is not known, and a diff against /dev/null would call an overwrite "added".
  if (toolName === 'write_file' && typeof fields.content === 'string' && createdFile(output)) {
    if (fields.content.length > UI_DIFF_MAX_INPUT_CHARS) return undefined;
    return createTwoFilesPatch('/dev/null', path, '', fields.content, '', '', { context: 0 });
  }
  return undefined;
}

/** Whether a write's result says the write made the file (write_file's `created`). */
function createdFile(output: unknown): boolean {
  return typeof output === 'object' && output !== null && (output as { created?: unknown }).created === true;
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

/** What a line of a diff is. */
export type DiffLineKind = 'diff-file' | 'diff-hunk' | 'diff-add' | 'diff-del' | 'diff-ctx' | 'diff-note';

/** A line of one file's diff, with its numbers in the file before (`old`) and after (`new`) where it has them. */
export interface DiffRow {
  text: string;
  kind: DiffLineKind;
  old?: number;
  new?: number;
}

/**
 * Each line of one file's diff with its kind and line numbers, counted from its hunk's header.
 * `---` and `+++` are its header only before its first hunk: after it, `--- x` is a removed line
 * `-- x` (an SQL comment, say) and `+++ x` an added `++ x`. Read line by line, not with jsdiff's
 * parsePatch, which refuses a diff whose hunk was cut at the daemon's bound.
 */
export function diffRows(lines: readonly string[]): DiffRow[] {
  let inHunks = false;
  let [oldLine, newLine] = [0, 0];
  return lines.map((text): DiffRow => {
    if (text.startsWith('@@')) {
      inHunks = true;
      const starts = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(text);
      [oldLine, newLine] = [Number(starts?.[1] ?? 0), Number(starts?.[2] ?? 0)];
      return { text, kind: 'diff-hunk' };
    }
    if (!inHunks && (text.startsWith('+++') || text.startsWith('---'))) return { text, kind: 'diff-file' };
    if (text.startsWith('\\')) return { text, kind: 'diff-note' };
    if (text.startsWith('+')) return { text, kind: 'diff-add', new: newLine++ };
    if (text.startsWith('-')) return { text, kind: 'diff-del', old: oldLine++ };
    return { text, kind: 'diff-ctx', old: oldLine++, new: newLine++ };
  });
}

/**
 * The file a diff is of, as its header names it, whether the change added or deleted it (its
 * status in the changes panel's words), and its lines added and removed; `counted`: false when
 * the diff has no hunk to count them from (the daemon did not work it out: the earlier content
 * was binary or too large), so that 0 and 0 are not read as nothing changed.
 */
export interface DiffFile {
  path: string;
  status: 'added' | 'deleted' | 'modified';
  added: number;
  removed: number;
  counted: boolean;
}

const NO_FILE = '/dev/null';

/** What `rows`' header and lines say of their file (a name jsdiff wrote with a tab and header after it is cut there). */
export function diffFileOf(rows: readonly DiffRow[]): DiffFile {
  const name = (prefix: string) =>
    rows
      .find((row) => row.kind === 'diff-file' && row.text.startsWith(prefix))
      ?.text.slice(4)
      .split('\t')[0] ?? '';
  const [before, after] = [name('--- '), name('+++ ')];
  // The daemon names the two sides git's way, a/PATH and b/PATH.
  const git = (before === NO_FILE || before.startsWith('a/')) && (after === NO_FILE || after.startsWith('b/'));
  const bare = (file: string) => (git && file !== NO_FILE ? file.slice(2) : file);
  const status = before === NO_FILE ? 'added' : after === NO_FILE ? 'deleted' : 'modified';
  return {
    path: bare(status === 'deleted' ? before : after),
    status,
    added: rows.filter((row) => row.kind === 'diff-add').length,
    removed: rows.filter((row) => row.kind === 'diff-del').length,
    counted: rows.some((row) => row.kind === 'diff-hunk'),
  };
}

/** A diff's lines as DiffView shows them: without the `Index:` and `=====` lines jsdiff opens with. */
export function diffLines(diff: string): string[] {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .filter((line) => !line.startsWith('=====') && !line.startsWith('Index: '));
}

/** Rows whose first character is their +, - or space marker, kept in view beside the gutter. */
const MARKED_KINDS: ReadonlySet<DiffLineKind> = new Set(['diff-add', 'diff-del', 'diff-ctx']);

/** How many digits the largest line number among `rows` has. */
function numberDigits(rows: readonly DiffRow[]): number {
  const largest = rows.reduce((most, row) => Math.max(most, row.old ?? 0, row.new ?? 0), 0);
  return String(largest).length;
}

/**
 * A file's diff: a head naming the file (added, deleted or modified, lines added and removed) with
 * Copy diff, then its lines with the old and new line numbers in a gutter that neither a
 * selection nor a screen reader takes (the hunk headers say where each hunk is). The gutter and
 * each line's +/- marker stay put while a long line scrolls the diff sideways. The `---` and
 * `+++` lines are the head's; Copy diff copies the diff whole, headers and all. `counts`: false
 * where the file's row says its name, status and counts already, so the head holds only the fold.
 * `foldLines`: lines shown before the rest is folded behind "Show all".
 */
export function DiffView({
  diff,
  counts = true,
  foldLines = UI_DIFF_FOLD_LINES,
}: {
  diff: string;
  counts?: boolean;
  foldLines?: number;
}) {
  const lines = diffLines(diff);
  const folds = lines.length > foldLines;
  const [open, setOpen] = useState(!folds);
  const rows = diffRows(lines);
  const file = diffFileOf(rows);
  const shown = (open ? rows : rows.slice(0, foldLines)).filter((row) => row.kind !== 'diff-file');
  return (
    <div className="diff" data-testid="diff">
      {(counts || folds) && (
        <div className="tool-output-head diff-head">
          {counts && (
            <span className="diff-file-name" data-testid="diff-file">
              <span className={`badge change-${file.status}`}>{file.status}</span> <code>{file.path}</code>
              {file.counted && (
                <>
                  {' '}
                  <span className="diff-add-count">+{file.added}</span>{' '}
                  <span className="diff-del-count">−{file.removed}</span>
                </>
              )}
            </span>
          )}
          <span className="tool-output-actions">
            {folds && (
              <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
                {open ? 'Collapse' : `Show all ${lines.length} lines`}
              </button>
            )}
            {counts && <CopyButton text={diff} name="Copy diff" />}
          </span>
        </div>
      )}
      {/* The gutter's width, in digits of the diff's largest line number, places each line's sticky +/- after it. */}
      <pre className="diff-body" style={{ '--diff-digits': numberDigits(rows) } as CSSProperties}>
        <span className="diff-rows">
          {shown.map((row, index) => (
            <span key={index} className="diff-row">
              <span className="diff-gutter">
                <span className="diff-number" aria-hidden="true">
                  {row.old}
                </span>
                <span className="diff-number" aria-hidden="true">
                  {row.new}
                </span>
              </span>
              <span className={`diff-line ${row.kind}`}>
                {MARKED_KINDS.has(row.kind) ? (
                  <>
                    <span className="diff-marker">{row.text.slice(0, 1)}</span>
                    {row.text.slice(1)}
                  </>
                ) : (
                  row.text
                )}
                {'\n'}
              </span>
            </span>
          ))}
        </span>
      </pre>
    </div>
  );
}
