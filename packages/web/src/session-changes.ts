/**
 * What the Changes view says about a session's changes (`sessions.changes`): its summary line, a
 * sentence for each file shown without a diff, the notes on what it leaves out, the patch Copy
 * patch copies, and a failure to read them in words.
 */
import { isCutDiff } from '@bastion/protocol';
import type { SessionChange, SessionChangesResponse } from '@bastion/bridge';
import { describeError, errorCode } from './bastion.js';
import { plural } from './image-attachment.js';

/** How many files the session changed, those left out of the list included (the header's count). */
function changedFileCount(changes: SessionChangesResponse): number {
  return changes.files.length + changes.more;
}

/** The header's "Changes (3)", once the count is known. */
export function changesLabel(changes: SessionChangesResponse | undefined): string {
  return changes === undefined ? 'Changes' : `Changes (${changedFileCount(changes)})`;
}

/** "3 files changed, +12 −4" over the files listed; a session that changed none says so. */
export function changesSummary(changes: SessionChangesResponse): string {
  if (changes.files.length === 0) return 'No file changed by the agent’s file tools yet.';
  let additions = 0;
  let deletions = 0;
  for (const file of changes.files) {
    additions += file.additions ?? 0;
    deletions += file.deletions ?? 0;
  }
  return `${plural(changes.files.length, 'file')} changed, +${additions} −${deletions}`;
}

const NO_DIFF_SENTENCES: Record<NonNullable<SessionChange['no_diff']>, string> = {
  'not-kept':
    'No diff: its version from before the session was not kept (too large to keep, or dropped to make room for newer runs).',
  binary: 'No diff: it is a binary file, or was one before the session.',
  'too-large': 'No diff: the file or the change is too large to show.',
  unreadable: 'No diff: the file cannot be read now (a link out of the workspace in its place, or its permissions).',
  'not-compared':
    'No diff: working out the diffs of the files before it took the time one answer may spend (see it with git diff).',
};

/** Why a file is listed without a diff, in a sentence (a reason the app does not know: only that there is none). */
export function noDiffSentence(reason: SessionChange['no_diff']): string {
  return (reason === undefined ? undefined : NO_DIFF_SENTENCES[reason]) ?? 'No diff to show.';
}

/** That the session's commands changed what is not shown here; undefined when it ran none. */
export function commandsNote(commands: number): string | undefined {
  if (commands === 0) return undefined;
  const ran = commands === 1 ? 'a command; what it changed' : `${commands} commands; what they changed`;
  return `This session also ran ${ran} is not shown here — check git status.`;
}

/** That files beyond the list's bound are left out; undefined when none are. */
export function moreNote(more: number): string | undefined {
  if (more === 0) return undefined;
  return `${plural(more, 'more file')} changed ${more === 1 ? 'is' : 'are'} not listed here.`;
}

/** Every diff listed, one after the other, as one patch (each ending in a newline). */
export function changesPatch(files: readonly SessionChange[]): string {
  return files
    .flatMap((file) => (file.diff === undefined ? [] : [file.diff.endsWith('\n') ? file.diff : `${file.diff}\n`]))
    .join('');
}

/** What the patch leaves out or holds cut, in a sentence; undefined when it holds every file whole. */
export function patchGapNote(files: readonly SessionChange[]): string | undefined {
  const without = files.filter((file) => file.diff === undefined).length;
  const cut = files.filter((file) => file.diff !== undefined && isCutDiff(file.diff)).length;
  const gaps = [
    without === 0 ? '' : `leaves out ${plural(without, 'file')} shown without a diff`,
    cut === 0
      ? ''
      : `holds ${plural(cut, 'diff')} cut short, which will not apply as ${cut === 1 ? 'it is' : 'they are'}`,
  ].filter((gap) => gap !== '');
  return gaps.length === 0 ? undefined : `The patch ${gaps.join(' and ')}.`;
}

const FAILURE_SENTENCES: Record<string, string> = {
  SESSION_NOT_FOUND: 'This session no longer exists, so it has no changes to show.',
  WORKSPACE_NOT_GRANTED: 'This session’s folder is not open in this Bastion, so its files cannot be read.',
  UNREACHABLE: 'The agent could not be reached to read the changes. It may be restarting: try again in a moment.',
};

/** Why the changes could not be read, in a sentence (a code the app does not know: its message and code). */
export function changesFailure(error: unknown): string {
  const sentence = FAILURE_SENTENCES[errorCode(error) ?? ''];
  return sentence ?? `The changes could not be read: ${describeError(error)}`;
}
