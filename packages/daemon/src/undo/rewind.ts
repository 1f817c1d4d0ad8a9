/**
 * `POST /agent/rewind`: take a session back to before one of its prompts, as a user does to ask
 * again differently. The prompt and every message after it leave what the model is sent (a row in
 * `context_rewinds`; the messages and events stay stored, and the UI shows them as rewound). With
 * `files`, every file those turns wrote with write_file/edit_file is first put back as it was
 * before them: the runs are planned newest first, each against what the file will hold once the
 * newer ones are undone, and one file holding anything else refuses the whole rewind with
 * UNDO_CONFLICT before anything is touched. Then each run is undone as `POST /agent/undo` does it
 * (through the host's checked writes) and marked undone.
 *
 * What this does not catch: what the turns' commands changed (counted in the answer), and a
 * process outside Bastion changing a file between the plan and its write. A turn a compaction
 * summarised cannot be rewound (REWIND_SUMMARISED): its summary would still carry it.
 */
import { type AgentEvent, type AgentRewindResponse, type AgentStreamEvent, type UndoFile } from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import type { Transcript } from '../storage/transcript.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import {
  isActionable,
  markPutBack,
  nameFiles,
  plan,
  priorState,
  putBack,
  toWire,
  type FileState,
  type Step,
} from './run-undo.js';
import type { UndoStore } from './undo-store.js';

export interface RewindDeps {
  undo: UndoStore;
  roots: WorkspaceRoots;
  transcript: Transcript;
  /** Whether the session has a run going, or one waiting for an approval. */
  busy: (sessionId: string) => 'running' | 'approval-pending' | undefined;
  /** Commands the run ran (run_command results that were not refusals). */
  commandsOf: (runId: string) => number;
  /** Record the rewind (the transcript's row, through `transcript.rewind`) and its event, in one transaction. */
  record: (event: Extract<AgentEvent, { type: 'context-rewound' }>, fromSeq: number) => AgentStreamEvent;
}

type Rewound = Extract<AgentEvent, { type: 'context-rewound' }>;

/**
 * The put-back of every file of `runs` (newest first): each run's steps, and each file once with
 * the outcome of its oldest step — or, when any of its steps cannot go through, that step.
 */
function planPutBack(deps: RewindDeps, runs: readonly string[]): { steps: Map<string, Step[]>; files: UndoFile[] } {
  const state = new Map<string, FileState>();
  const outcome = new Map<string, Step>();
  const steps = new Map<string, Step[]>();
  for (const runId of runs) {
    const runSteps = deps.undo.files(runId).map((file) => {
      const key = `${file.root}\0${file.path}`;
      const step = plan(file, deps.roots, state.get(key));
      if (isActionable(step)) state.set(key, priorState(file));
      const earlier = outcome.get(key);
      if (earlier === undefined || isActionable(earlier)) outcome.set(key, step);
      return step;
    });
    steps.set(runId, runSteps);
  }
  return { steps, files: [...outcome.values()].map(toWire) };
}

/**
 * Rewind the session to before the prompt of `runId` (its latest prompt still in the conversation
 * when undefined), or with `dryRun` say what that would do.
 */
export async function rewindSession(
  deps: RewindDeps,
  request: { sessionId: string; runId: string | undefined; files: boolean; dryRun: boolean },
): Promise<{ answer: AgentRewindResponse; recorded: AgentStreamEvent | undefined }> {
  const { sessionId, dryRun } = request;
  const runId = request.runId ?? deps.transcript.latestPromptRun(sessionId);
  if (runId === undefined) {
    throw new DaemonError('REWIND_RUN_NOT_FOUND', 'no prompt of this session is left to go back to');
  }
  const point = deps.transcript.rewindPoint(sessionId, runId);
  if (!point) throw new DaemonError('REWIND_RUN_NOT_FOUND', 'no prompt of this session started that run');
  const busy = deps.busy(sessionId);
  if (busy === 'running') {
    throw new DaemonError('RUN_ACTIVE', 'a run is active in this session: stop it or let it finish before rewinding');
  }
  if (busy === 'approval-pending') {
    throw new DaemonError('APPROVAL_PENDING', 'a tool call waits for approval: answer it or stop the run first');
  }
  if (point.rewound) throw new DaemonError('REWIND_ALREADY_DONE', 'that prompt was already rewound');
  if (point.summarised) {
    throw new DaemonError(
      'REWIND_SUMMARISED',
      'the turns from that prompt on were summarised into the session’s context (compacted); rewind to a prompt after the summary',
    );
  }
  const runs = deps.undo.runsFrom(sessionId, runId);
  const commands = runs.reduce((sum, run) => sum + deps.commandsOf(run.id), 0);
  const putting = request.files
    ? planPutBack(
        deps,
        runs.filter((run) => !run.undone).map((run) => run.id),
      )
    : undefined;
  const answer: AgentRewindResponse = {
    run_id: runId,
    dry_run: dryRun,
    turns: deps.transcript.promptsFrom(sessionId, point.seq),
    prompt: point.text,
    ...(point.mcpPrompt === undefined ? {} : { mcp_prompt: point.mcpPrompt }),
    files: putting?.files ?? [],
    commands,
  };
  if (dryRun) return { answer, recorded: undefined };

  if (putting) {
    const conflicts = answer.files.filter((file) => file.reason === 'changed-since').map((file) => file.path);
    if (conflicts.length > 0) {
      throw new DaemonError(
        'UNDO_CONFLICT',
        `nothing was rewound: ${conflicts.length === 1 ? 'a file' : `${conflicts.length} files`} changed since those turns (${nameFiles(conflicts)})`,
      );
    }
    for (const [id, steps] of putting.steps) {
      if (steps.length === 0) continue;
      await putBack(
        deps.roots,
        steps.filter(isActionable),
        { sessionId, runId: id },
        'the conversation was not rewound; rewind again to finish',
      );
      markPutBack(deps.undo, id, () => {}, 'rewind');
    }
  }
  const event: Rewound = {
    type: 'context-rewound',
    run_id: runId,
    turns: answer.turns,
    files: request.files,
    restored: answer.files.filter((file) => file.action === 'restore').map((file) => file.path),
    removed: answer.files.filter((file) => file.action === 'remove').map((file) => file.path),
    not_undone: answer.files.filter((file) => file.action === 'none').map((file) => file.path),
    commands,
  };
  return { answer, recorded: deps.record(event, point.seq) };
}
