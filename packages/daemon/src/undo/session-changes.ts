/**
 * A session's changes (`GET /sessions/:id/changes`): each file its file tools wrote, from what undo
 * kept of it before the session's first write (undo-store.ts) to what it holds now, read through
 * workspace containment. A file back as it was is left out; one whose earlier version was not kept
 * is listed without a diff. Runs undone do not count. What `run_command` changed is not tracked:
 * the answer counts the commands instead. Diffs are worked out for SESSION_CHANGES_DIFF_BUDGET_MS
 * at most, the daemon serving other requests between files; files after that are listed without.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  DIFF_SKIPPED_NOTE,
  SESSION_CHANGES_DIFF_BUDGET_MS,
  SESSION_CHANGES_MAX_FILES,
  type SessionChange,
  type SessionChangesResponse,
} from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import { boundedDiff } from '../tools/edit-diff.js';
import { readContainedFile } from '../workspaces/file-access.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import type { UndoStore } from './undo-store.js';

/** What a file holds now: its bytes (null when it is gone), or why they cannot be compared. */
type Now = { bytes: Buffer | null } | { noDiff: 'too-large' | 'unreadable' };

function readNow(roots: WorkspaceRoots, root: string, path: string): Now {
  try {
    const target = roots.resolve(root, path);
    if (!target.exists) return { bytes: null };
    const read = readContainedFile(target);
    return read.truncated ? { noDiff: 'too-large' } : { bytes: read.content };
  } catch {
    // Containment refused it (a link out of the workspace in its place), or it cannot be opened.
    return { noDiff: 'unreadable' };
  }
}

const isText = (bytes: Buffer | null): boolean => bytes === null || !bytes.includes(0);

/**
 * Lines one file's unified diff adds and removes. Its `---`/`+++` headers come before its first
 * hunk; after it a line `--- x` is a removed line `-- x` (an SQL or Lua comment), not a header.
 */
function countLines(diff: string): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  let inHunks = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) inHunks = true;
    else if (!inHunks) continue;
    else if (line.startsWith('+')) additions += 1;
    else if (line.startsWith('-')) deletions += 1;
  }
  return { additions, deletions };
}

/**
 * `listed`: false for a file past SESSION_CHANGES_MAX_FILES, only counted: its diff is not worked
 * out; `compare`: false once the answer's time for diffs is spent.
 */
function change(
  path: string,
  prior: { kept: false } | { kept: true; bytes: Buffer | null },
  now: Now,
  listed: boolean,
  compare: boolean,
): SessionChange | undefined {
  if ('noDiff' in now) {
    return { path, status: prior.kept && prior.bytes === null ? 'added' : 'modified', no_diff: now.noDiff };
  }
  const gone = now.bytes === null;
  if (!prior.kept) return { path, status: gone ? 'deleted' : 'modified', no_diff: 'not-kept' };
  if (prior.bytes === null && gone) return undefined;
  if (prior.bytes !== null && now.bytes !== null && prior.bytes.equals(now.bytes)) return undefined;
  const status = prior.bytes === null ? 'added' : gone ? 'deleted' : 'modified';
  if (!isText(prior.bytes) || !isText(now.bytes)) return { path, status, no_diff: 'binary' };
  if (!listed) return { path, status };
  if (!compare) return { path, status, no_diff: 'not-compared' };
  const diff = boundedDiff(path, prior.bytes?.toString('utf8') ?? null, now.bytes?.toString('utf8') ?? '');
  if (diff.endsWith(`${DIFF_SKIPPED_NOTE}\n`)) return { path, status, no_diff: 'too-large' };
  // A deleted file's diff goes to /dev/null, as git's does.
  const shown = gone ? diff.replace(`\n+++ b/${path}\n`, '\n+++ /dev/null\n') : diff;
  return { path, status, diff: shown, ...countLines(shown) };
}

/** `diffBudgetMs`: SESSION_CHANGES_DIFF_BUDGET_MS unless a test sets it. */
export async function sessionChanges(
  deps: { undo: UndoStore; roots: WorkspaceRoots; diffBudgetMs?: number },
  session: { id: string; workspace: string | null },
): Promise<SessionChangesResponse> {
  if (session.workspace !== null && !deps.roots.isGranted(session.workspace)) {
    throw new DaemonError('WORKSPACE_NOT_GRANTED', "the session's folder is not open in this Bastion");
  }
  const files: SessionChange[] = [];
  let more = 0;
  const diffsUntil = performance.now() + (deps.diffBudgetMs ?? SESSION_CHANGES_DIFF_BUDGET_MS);
  for (const kept of deps.undo.sessionFiles(session.id)) {
    const prior =
      kept.prior === 'file'
        ? { kept: true as const, bytes: kept.priorBytes }
        : kept.prior === 'absent'
          ? { kept: true as const, bytes: null }
          : { kept: false as const };
    const listed = files.length < SESSION_CHANGES_MAX_FILES;
    const compare = performance.now() < diffsUntil;
    const found = change(kept.path, prior, readNow(deps.roots, kept.root, kept.path), listed, compare);
    // One file's diff can take a large part of a second: other requests go between files.
    await nextTurn();
    if (found === undefined) continue;
    if (listed) files.push(found);
    else more += 1;
  }
  return { session_id: session.id, files, more, commands: deps.undo.sessionCommands(session.id) };
}
