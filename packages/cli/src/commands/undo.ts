/**
 * `bastion undo [--workspace DIR] [--home DIR] [--session ID] [--run ID] [--dry-run]`: put back the
 * files a run wrote with write_file/edit_file — by default the last run of the newest session in
 * this workspace — and print what was restored, removed, and could not be undone. Through the
 * running Bastion when one owns the home (its control socket), else through a host of its own.
 * Exit 0 when undone (or, with --dry-run, planned), 1 when refused (the daemon's words: a file
 * changed since, a run going, already undone).
 */
import {
  askRunningHost,
  holderStatusSchema,
  resolveUserDataPath,
  terminalLine,
  undoAnswerSchema,
  undoRun,
  type UndoRunAnswer,
  type UndoRunRequest,
} from '@bastion/host';
import type { AgentUndoResponse, UndoFile } from '@bastion/protocol';
import { homeFlag, startOwningHost } from '../home-in-use.js';
import { parseCommandLine, UsageError, WORKSPACE_OPTIONS } from '../usage.js';
import { enterWorkspace } from '../workspace.js';

const REASONS: Record<NonNullable<UndoFile['reason']>, string> = {
  'too-large': 'its earlier version was too large to keep',
  pruned: 'its earlier version was dropped to make room for newer runs',
  'changed-since': 'it changed since the run',
};

function describe(file: UndoFile, dryRun: boolean): string {
  const path = terminalLine(file.path);
  if (file.action === 'restore') return `  ${dryRun ? 'would restore' : 'restored'}  ${path}\n`;
  if (file.action === 'remove') return `  ${dryRun ? 'would remove' : 'removed'}   ${path} (the run created it)\n`;
  return `  not undone  ${path} (${file.reason === undefined ? 'no earlier copy' : REASONS[file.reason]})\n`;
}

function report(sessionId: string, result: AgentUndoResponse): void {
  const what = `run ${result.run_id} of session ${sessionId}`;
  process.stdout.write(result.dry_run ? `Undo of ${what} would:\n` : `Undid ${what}:\n`);
  process.stdout.write(result.files.map((file) => describe(file, result.dry_run)).join(''));
  if (result.commands > 0) {
    const commands = result.commands === 1 ? 'a command' : `${result.commands} commands`;
    process.stdout.write(`The run also ran ${commands}: undo does not restore what commands changed.\n`);
  }
}

/** Ask the Bastion that owns the home, if one runs; else start one of our own for the request. */
async function ask(
  userData: string,
  request: UndoRunRequest,
  home: string | undefined,
): Promise<UndoRunAnswer | undefined> {
  const holder = await askRunningHost(userData, { op: 'status' }, holderStatusSchema);
  if (holder) {
    const answer = await askRunningHost(userData, { op: 'undo', ...request }, undoAnswerSchema);
    if (answer) return 'refused' in answer ? { ok: false, ...answer.refused } : answer;
  }
  const host = await startOwningHost(
    { command: 'undo', userData, workspaces: [request.workspace] },
    `nothing was undone; use Undo in its UI (bastion open${homeFlag(home)}), or wait for it to stop`,
  );
  if (!host) return undefined;
  try {
    return await undoRun(host.client, request);
  } finally {
    await host.stop();
  }
}

export async function undoCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      ...WORKSPACE_OPTIONS,
      session: { type: 'string' },
      run: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0) throw new UsageError('undo takes no arguments');
  const userData = resolveUserDataPath(values.home);
  const workspace = enterWorkspace(values.workspace);
  const request: UndoRunRequest = {
    workspace,
    session_id: values.session,
    run_id: values.run,
    dry_run: values['dry-run'],
  };
  const answer = await ask(userData, request, values.home);
  if (!answer) return 2;
  if (!answer.ok) {
    process.stderr.write(`bastion: nothing was undone: ${terminalLine(`${answer.code}: ${answer.message}`)}\n`);
    return 1;
  }
  report(answer.session_id, answer.result);
  return 0;
}
