/**
 * `POST /agent/undo`: put back every file a finished run wrote with write_file/edit_file — the
 * earlier bytes written back, files it created removed — each through the file tools' own write
 * and remove, which the host checks and performs (atomic and descriptor-walked there, SEC-004: a
 * path swapped for a symlink is refused, never followed). Before anything is touched, every file is compared with what the run left; one that
 * holds anything else (a later run, a command, a person) refuses the whole undo with UNDO_CONFLICT
 * naming the files. A file already back as it was (a crashed or failed earlier undo) is left and
 * counted as done, so a second attempt finishes the job; a run undone before says so.
 *
 * What this does not catch: whatever run_command changed (not tracked; the answer counts the
 * run's commands so clients say so) and a process outside Bastion changing a file between the
 * comparison and the write of that file. Directories the run's writes created for a file it created
 * are removed after the files, deepest first, only while still empty (never one that held anything
 * or existed before the run; a symlink is never followed).
 */
import { sep } from 'node:path';
import type { ModelMessage } from 'ai';
import {
  isDiskFullError,
  UNDO_MAX_FINGERPRINT_BYTES,
  UNDO_MAX_NAMED_FILES,
  type AgentEvent,
  type AgentUndoResponse,
  type UndoFile,
} from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import type { ContainedPath } from '../workspaces/containment.js';
import { fingerprintContainedFile, type FileFingerprint } from '../workspaces/file-access.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import type { WorkspaceWriteCall } from '../workspaces/workspace-writer.js';
import type { KeptFile, UndoStore } from './undo-store.js';

export interface UndoDeps {
  undo: UndoStore;
  roots: WorkspaceRoots;
  /** Whether the session has a run going, or one waiting for an approval. */
  busy: (sessionId: string) => 'running' | 'approval-pending' | undefined;
  /** Commands the run ran (run_command results that were not refusals). */
  commandsOf: (runId: string) => number;
  /** Record the undo in the transcript (event + the model's note), inside the transaction that marks it. */
  record: (event: Extract<AgentEvent, { type: 'run-undone' }>, note: ModelMessage) => void;
}

export type Step =
  | { file: KeptFile; kind: 'restore' | 'remove'; target: ContainedPath; done: boolean }
  | { file: KeptFile; kind: 'blocked'; reason: 'too-large' | 'pruned' }
  | { file: KeptFile; kind: 'conflict' };
type Actionable = Extract<Step, { kind: 'restore' | 'remove' }>;

/** What a file holds: its fingerprint, or absent. */
export type FileState = FileFingerprint | 'absent';

function same(a: FileState, b: FileFingerprint | null): boolean {
  return a !== 'absent' && b !== null && a.sha256 !== null && a.size === b.size && a.sha256 === b.sha256;
}

/** What the file holds once its undo is done. */
export function priorState(file: KeptFile): FileState {
  return file.prior === 'absent' ? 'absent' : { size: file.priorBytes?.length ?? -1, sha256: file.priorSha256 };
}

/**
 * What undoing this file means now: write back, remove, already done, not possible, or changed
 * since. `now`, when given, is what the file will hold by then (an undo of a newer run planned
 * before it); otherwise the file is read.
 */
export function plan(file: KeptFile, roots: WorkspaceRoots, now?: FileState): Step {
  if (file.prior === 'too-large' || file.prior === 'pruned') return { file, kind: 'blocked', reason: file.prior };
  let target: ContainedPath;
  try {
    target = roots.resolve(file.root, file.path);
    now ??= fingerprintContainedFile(target, UNDO_MAX_FINGERPRINT_BYTES);
  } catch {
    // Not resolvable inside its workspace any more, or not a regular file: not what the run left.
    return { file, kind: 'conflict' };
  }
  if (file.prior === 'absent') {
    if (now === 'absent') return { file, kind: 'remove', target, done: true };
    return same(now, file.after) ? { file, kind: 'remove', target, done: false } : { file, kind: 'conflict' };
  }
  if (same(now, priorState(file) as FileFingerprint)) return { file, kind: 'restore', target, done: true };
  return same(now, file.after) ? { file, kind: 'restore', target, done: false } : { file, kind: 'conflict' };
}

export function toWire(step: Step): UndoFile {
  switch (step.kind) {
    case 'restore':
    case 'remove':
      return { path: step.file.path, action: step.kind };
    case 'blocked':
      return { path: step.file.path, action: 'none', reason: step.reason };
    case 'conflict':
      return { path: step.file.path, action: 'none', reason: 'changed-since' };
  }
}

/** `a, b, c and 4 more`: at most UNDO_MAX_NAMED_FILES names. */
export function nameFiles(paths: readonly string[]): string {
  const named = paths.slice(0, UNDO_MAX_NAMED_FILES).join(', ');
  return paths.length > UNDO_MAX_NAMED_FILES ? `${named} and ${paths.length - UNDO_MAX_NAMED_FILES} more` : named;
}

function assertUndoable(deps: UndoDeps, sessionId: string, runId: string): void {
  const run = deps.undo.run(runId);
  if (!run || run.sessionId !== sessionId) throw new DaemonError('UNDO_RUN_NOT_FOUND', 'no such run in this session');
  const busy = deps.busy(sessionId);
  if (busy === 'running' || run.status === 'running') {
    throw new DaemonError('RUN_ACTIVE', 'a run is active in this session: stop it or let it finish before undoing');
  }
  if (busy === 'approval-pending') {
    throw new DaemonError('APPROVAL_PENDING', 'a tool call waits for approval: answer it or stop the run first');
  }
  if (run.undoneAt !== null) throw new DaemonError('UNDO_ALREADY_DONE', 'this run was already undone');
}

function noteFor(event: Extract<AgentEvent, { type: 'run-undone' }>): ModelMessage {
  const lines = [
    `[Bastion] The user undid the changes of an earlier run (${event.run_id}): the files it wrote are back as they were before it.`,
  ];
  if (event.restored.length > 0) lines.push(`Restored: ${event.restored.join(', ')}.`);
  if (event.removed.length > 0) lines.push(`Removed (that run created them): ${event.removed.join(', ')}.`);
  if (event.not_undone.length > 0) lines.push(`Not undone (no earlier copy was kept): ${event.not_undone.join(', ')}.`);
  if (event.commands > 0) lines.push('What its commands changed was not undone.');
  lines.push('Read a file again before relying on its contents.');
  return { role: 'user', content: [{ type: 'text', text: lines.join('\n') }] };
}

/** Remove the directories the run created for the files it created, deepest first, each only while empty. */
async function removeCreatedDirectories(
  roots: WorkspaceRoots,
  steps: readonly Actionable[],
  call: WorkspaceWriteCall,
): Promise<void> {
  const dirs = new Map<string, { root: string; path: string }>();
  for (const step of steps) {
    if (step.kind !== 'remove') continue;
    for (const path of step.file.createdDirs) dirs.set(`${step.file.root}\0${path}`, { root: step.file.root, path });
  }
  const deepestFirst = [...dirs.values()].sort((a, b) => b.path.split(sep).length - a.path.split(sep).length);
  for (const dir of deepestFirst) {
    try {
      await roots.writer.removeEmptyDirectory(roots.resolve(dir.root, dir.path), call);
    } catch {
      // Not resolvable inside its workspace any more, or refused by the host: left where it is.
    }
  }
}

export const isActionable = (step: Step): step is Actionable => step.kind === 'restore' || step.kind === 'remove';

/**
 * Write back or remove each file of one run (through the host, whose rules see them as
 * write_file), then the directories the run created for them. A file that cannot be put back
 * stops it with UNDO_FAILED (FS_DISK_FULL or STORAGE_FULL when a disk is full), saying `then`
 * about the rest.
 */
export async function putBack(
  roots: WorkspaceRoots,
  steps: readonly Actionable[],
  run: { sessionId: string; runId: string },
  then: string,
): Promise<void> {
  const call: WorkspaceWriteCall = { tool: 'write_file', ...run };
  for (const step of steps) {
    if (step.done) continue;
    // Only over the bytes the run left, as plan() found them: an edit made since is kept.
    const asPlanned = { ...call, shownSha256: step.file.after?.sha256 ?? undefined };
    try {
      if (step.kind === 'remove') await roots.writer.remove(step.target, asPlanned);
      else await roots.writer.write(step.target, step.file.priorBytes ?? Buffer.alloc(0), asPlanned);
    } catch (cause) {
      const code = (cause as { code?: unknown }).code;
      // A full disk keeps its own code, so clients can say what to do: free space, then go on.
      if (code === 'FS_DISK_FULL' || code === 'STORAGE_FULL') {
        const disk = code === 'FS_DISK_FULL' ? 'the disk holding it' : "the disk holding Bastion's data";
        throw new DaemonError(
          code,
          `${step.file.path} could not be put back: ${disk} is full; the files before it were put back — free some space; ${then}`,
          { cause },
        );
      }
      const why =
        code === 'FS_CHANGED_SINCE_SHOWN'
          ? 'changed while this was being done and was left as it is'
          : `could not be put back${typeof code === 'string' ? ` (${code})` : ''}`;
      throw new DaemonError('UNDO_FAILED', `${step.file.path} ${why}; the files before it were put back — ${then}`, {
        cause,
      });
    }
  }
  await removeCreatedDirectories(roots, steps, call);
}

/**
 * Mark a run undone once all its files are put back. On a full data disk (SQLite cannot commit)
 * the answer says the files are back: they stay so, and the next attempt, once space is freed,
 * finds each done and records it.
 */
export function markPutBack(undo: UndoStore, runId: string, record: () => void, action: 'undo' | 'rewind'): void {
  try {
    undo.markUndone(runId, record);
  } catch (error) {
    if (!isDiskFullError(error)) throw error;
    throw new DaemonError(
      'STORAGE_FULL',
      `the files were put back, but the ${action} could not be recorded: the disk holding Bastion's data is full — free some space; ${action} again to finish`,
      { cause: error },
    );
  }
}

/** Undo a finished run (or, with `dryRun`, say what that would do and touch nothing). */
export async function undoRun(
  deps: UndoDeps,
  request: { sessionId: string; runId: string; dryRun: boolean },
): Promise<AgentUndoResponse> {
  const { sessionId, runId, dryRun } = request;
  assertUndoable(deps, sessionId, runId);
  const commands = deps.commandsOf(runId);
  const files = deps.undo.files(runId);
  if (files.length === 0) {
    const also = commands > 0 ? '; undo does not restore what its commands changed' : '';
    throw new DaemonError('UNDO_NOTHING', `this run changed no file with write_file or edit_file${also}`);
  }
  const steps = files.map((file) => plan(file, deps.roots));
  const answer = { run_id: runId, dry_run: dryRun, files: steps.map(toWire), commands };
  if (dryRun) return answer;

  const conflicts = steps.filter((step) => step.kind === 'conflict').map((step) => step.file.path);
  if (conflicts.length > 0) {
    throw new DaemonError(
      'UNDO_CONFLICT',
      `nothing was undone: ${conflicts.length === 1 ? 'a file' : `${conflicts.length} files`} changed since the run (${nameFiles(conflicts)})`,
    );
  }
  const actionable = steps.filter(isActionable);
  if (actionable.length === 0) {
    throw new DaemonError(
      'UNDO_NOTHING',
      `no file of this run can be undone: no earlier copy was kept (${nameFiles(files.map((file) => file.path))})`,
    );
  }
  await putBack(deps.roots, actionable, { sessionId, runId }, 'undo again to finish');
  const event: Extract<AgentEvent, { type: 'run-undone' }> = {
    type: 'run-undone',
    run_id: runId,
    restored: actionable.filter((step) => step.kind === 'restore').map((step) => step.file.path),
    removed: actionable.filter((step) => step.kind === 'remove').map((step) => step.file.path),
    not_undone: steps.filter((step) => step.kind === 'blocked').map((step) => step.file.path),
    commands,
  };
  markPutBack(deps.undo, runId, () => deps.record(event, noteFor(event)), 'undo');
  return answer;
}
