/**
 * The last line of a bounded diff (the daemon's tools/edit-diff.ts) that is not whole: a `\` note,
 * as unified diffs mark what is not a line of the file. Zod-free: the page and the CLI read it.
 */
export const DIFF_TRUNCATED_NOTE = '\\ diff truncated';
export const DIFF_SKIPPED_NOTE = '\\ diff not computed: the change is too large';
export const DIFF_PREVIOUS_UNKNOWN_NOTE = '\\ diff not computed: the previous content was binary or too large';

/** Whether `diff` was cut at its bound (it ends with DIFF_TRUNCATED_NOTE), so it does not apply as it is. */
export function isCutDiff(diff: string): boolean {
  return diff.trimEnd().endsWith(DIFF_TRUNCATED_NOTE);
}
