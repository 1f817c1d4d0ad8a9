/**
 * `bastion undo [--workspace DIR] [--home DIR] [--session ID] [--run ID] [--dry-run]`: put back the
 * files a run wrote with write_file/edit_file — by default the last run of the newest session in
 * this workspace — and print what was restored, removed, and could not be undone.
 * `bastion rewind [… --keep-files]`: take that session back to before its latest prompt (or the
 * prompt of --run) with the files its turns wrote put back, and print the prompt to send again.
 * Both go through the running Bastion when one owns the home (its control socket), else through a
 * host of their own. Exit 0 when done (or, with --dry-run, planned), 2 when there is nothing of
 * that name (no session in the workspace, --session or --run naming none, a session with no run
 * yet: as `changes` and `run --continue` exit), 1 when refused (the daemon's words: a file changed
 * since, a run going, already undone or rewound).
 */
import {
  askRunningHost,
  holderStatusSchema,
  resolveUserDataPath,
  rewindAnswerSchema,
  rewindRun,
  terminalLine,
  undoAnswerSchema,
  undoRun,
  type RewindRunAnswer,
  type RewindRunRequest,
  type UndoRunAnswer,
  type UndoRunRequest,
} from '@bastion/host';
import type { AgentRewindResponse, AgentUndoResponse, UndoFile } from '@bastion/protocol';
import { homeFlag, startOwningHost } from '../home-in-use.js';
import { checkedId, OTHER_FOLDER_HINT, parseCommandLine, WORKSPACE_OPTIONS } from '../usage.js';
import { enterWorkspace } from '../workspace.js';

const REASONS: Record<NonNullable<UndoFile['reason']>, string> = {
  'too-large': 'its earlier version was too large to keep',
  pruned: 'its earlier version was dropped to make room for newer runs',
  'changed-since': 'it changed since the run',
};

/** A file's line; `what` changed it ("the run", "those turns"). */
function describe(file: UndoFile, dryRun: boolean, what = 'the run'): string {
  const path = terminalLine(file.path);
  if (file.action === 'restore') return `  ${dryRun ? 'would restore' : 'restored'}  ${path}\n`;
  if (file.action === 'remove') return `  ${dryRun ? 'would remove' : 'removed'}   ${path} (${what} created it)\n`;
  const why = file.reason === undefined ? 'no earlier copy' : REASONS[file.reason].replace('the run', what);
  return `  not undone  ${path} (${why})\n`;
}

function report(sessionId: string, result: AgentUndoResponse): void {
  const what = `run ${result.run_id} of session ${sessionId}`;
  process.stdout.write(result.dry_run ? `Undo of ${what}, a dry run (nothing is changed):\n` : `Undid ${what}:\n`);
  process.stdout.write(result.files.map((file) => describe(file, result.dry_run)).join(''));
  if (result.commands > 0) {
    const commands = result.commands === 1 ? 'a command' : `${result.commands} commands`;
    process.stdout.write(`The run also ran ${commands}: undo does not restore what commands changed.\n`);
  }
}

/** What a rewind did (or, dry, would do): the turns, the prompt they start from, and each file. */
export function rewindReport(sessionId: string, result: AgentRewindResponse): string {
  const turns = result.turns === 1 ? '1 turn' : `${result.turns} turns`;
  const lines = [
    result.dry_run
      ? `Rewind of session ${sessionId} would take ${turns} out of the conversation, from this prompt (run ${result.run_id}) on:\n`
      : `Rewound session ${sessionId}: ${turns} out of the conversation, from this prompt (run ${result.run_id}) on:\n`,
    ...result.prompt.split('\n').map((line) => `  > ${terminalLine(line)}\n`),
    ...result.files.map((file) => describe(file, result.dry_run, 'those turns')),
  ];
  if (result.commands > 0) {
    const commands = result.commands === 1 ? 'a command' : `${result.commands} commands`;
    lines.push(`Those turns also ran ${commands}: what commands changed is never put back.\n`);
  }
  return lines.join('');
}

/**
 * The refusals of an undo or rewind that may come after some files were put back: a file that
 * could not be, or a full disk (the workspace's, or Bastion's own for its temp-file journal or
 * the record of the undo). Every other refusal comes before anything is touched.
 */
const STOPPED_PARTWAY: ReadonlySet<string> = new Set(['UNDO_FAILED', 'FS_DISK_FULL', 'STORAGE_FULL']);

/** The refusals that find nothing of the name given (or no session at all): exit 2, a mistake in what was asked. */
const NOTHING_NAMED: ReadonlySet<string> = new Set([
  'UNDO_NO_SESSION',
  'SESSION_NOT_FOUND',
  'UNDO_NO_RUN',
  'UNDO_RUN_NOT_FOUND',
  'REWIND_RUN_NOT_FOUND',
]);

export const KEEP_FILES_HINT = 'the conversation alone can still go back, leaving the files as they are';

type Refusal = Extract<UndoRunAnswer, { ok: false }>;

/**
 * Said after an undo of a run already undone: undo takes back one run, the last by default, so a
 * second undo is refused; rewind is how to go on back, the undone run's prompt first.
 */
const ALREADY_UNDONE_HINT =
  'to put back what earlier runs wrote, bastion rewind takes the session back a prompt at a time';

/**
 * An undo's or a rewind's refusal as other commands print a refusal of what they asked (`bastion:
 * OUTCOME: CODE: message`): the outcome the command says first, then the code and the daemon's
 * reason — without the outcome its message may open with (a conflict's `nothing was undone: …`),
 * which would put the code inside that sentence. `hint`, when given, follows on a line of its own.
 */
export function refusalLines(outcome: string, answer: { code: string; message: string }, hint?: string): string {
  const reason = answer.message.startsWith(`${outcome}: `) ? answer.message.slice(outcome.length + 2) : answer.message;
  const line = `bastion: ${outcome}: ${terminalLine(`${answer.code}: ${reason}`)}\n`;
  return hint === undefined ? line : `${line}bastion: ${hint}\n`;
}

/**
 * A refusal's lines; one of a named session that works in another folder says how to name that
 * folder, and one of a run already undone how to go further back.
 */
function refusal(outcome: string, answer: Refusal, sessionNamed: boolean): string {
  const otherFolder = sessionNamed && answer.code === 'UNDO_NO_SESSION';
  const named = otherFolder ? { ...answer, message: `${answer.message}${OTHER_FOLDER_HINT}` } : answer;
  return refusalLines(outcome, named, answer.code === 'UNDO_ALREADY_DONE' ? ALREADY_UNDONE_HINT : undefined);
}

/**
 * Ask the Bastion that owns the home, if one runs (control request `op`); else start one of our
 * own for the request (`local`).
 */
async function ask<A extends { ok: true }>(
  userData: string,
  home: string | undefined,
  workspace: string,
  through: {
    op: 'undo' | 'rewind';
    control: () => Promise<A | { ok: true; refused: Omit<Refusal, 'ok'> } | undefined>;
    local: (host: NonNullable<Awaited<ReturnType<typeof startOwningHost>>>) => Promise<A | Refusal>;
  },
): Promise<A | Refusal | undefined> {
  const holder = await askRunningHost(userData, { op: 'status' }, holderStatusSchema);
  if (holder) {
    const answer = await through.control();
    if (answer) return 'refused' in answer ? { ok: false, ...answer.refused } : answer;
  }
  const done = through.op === 'undo' ? 'undone' : 'rewound';
  const button = through.op === 'undo' ? 'Undo' : 'Rewind';
  const host = await startOwningHost(
    { command: through.op, userData, workspaces: [workspace] },
    `nothing was ${done}; use ${button} in its UI (bastion open${homeFlag(home)}), or wait for it to stop`,
  );
  if (!host) return undefined;
  try {
    return await through.local(host);
  } finally {
    await host.stop();
  }
}

/** The options undo and rewind share: where, which session and run, and --dry-run. */
const TARGET_OPTIONS = {
  ...WORKSPACE_OPTIONS,
  session: { type: 'string' },
  run: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
} as const;

/** What a parsed undo or rewind command line names: its data folder, its workspace and its request. */
function target(values: {
  home?: string | undefined;
  workspace?: string | undefined;
  session?: string | undefined;
  run?: string | undefined;
  'dry-run': boolean;
}): { userData: string; request: UndoRunRequest } {
  // Before entering the workspace: a relative --home is where the command was typed, not in the workspace.
  const userData = resolveUserDataPath(values.home);
  const request = {
    workspace: enterWorkspace(values.workspace),
    session_id: values.session === undefined ? undefined : checkedId('--session', values.session, 'session'),
    run_id: values.run === undefined ? undefined : checkedId('--run', values.run, 'run'),
    dry_run: values['dry-run'],
  };
  return { userData, request };
}

export async function undoCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine({ args: argv, options: TARGET_OPTIONS });
  const { userData, request } = target(values);
  const answer = await ask<Extract<UndoRunAnswer, { ok: true }>>(userData, values.home, request.workspace, {
    op: 'undo',
    control: () => askRunningHost(userData, { op: 'undo', ...request }, undoAnswerSchema),
    local: (host) => undoRun(host.client, request),
  });
  if (!answer) return 2;
  if (!answer.ok) {
    // These stop partway (the message says which files were put back); the rest touch nothing.
    const outcome = STOPPED_PARTWAY.has(answer.code) ? 'the undo stopped partway' : 'nothing was undone';
    process.stderr.write(refusal(outcome, answer, request.session_id !== undefined));
    return NOTHING_NAMED.has(answer.code) ? 2 : 1;
  }
  report(answer.session_id, answer.result);
  return 0;
}

export async function rewindCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args: argv,
    options: { ...TARGET_OPTIONS, 'keep-files': { type: 'boolean', default: false } },
  });
  const { userData, request: where } = target(values);
  const request: RewindRunRequest = { ...where, files: !values['keep-files'] };
  const answer = await ask<Extract<RewindRunAnswer, { ok: true }>>(userData, values.home, request.workspace, {
    op: 'rewind',
    control: () => askRunningHost(userData, { op: 'rewind', ...request }, rewindAnswerSchema),
    local: (host) => rewindRun(host.client, request),
  });
  if (!answer) return 2;
  if (!answer.ok) {
    const outcome = STOPPED_PARTWAY.has(answer.code) ? 'the rewind stopped partway' : 'nothing was rewound';
    process.stderr.write(refusal(outcome, answer, request.session_id !== undefined));
    if (answer.code === 'UNDO_CONFLICT') {
      process.stderr.write(`bastion: with --keep-files ${KEEP_FILES_HINT}\n`);
    }
    return NOTHING_NAMED.has(answer.code) ? 2 : 1;
  }
  process.stdout.write(rewindReport(answer.session_id, answer.result));
  if (!answer.result.dry_run) {
    const id = answer.session_id;
    process.stdout.write(`Continue with: bastion run --session ${id} PROMPT (or bastion chat --session ${id})\n`);
  }
  return 0;
}
