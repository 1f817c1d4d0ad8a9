/**
 * `bastion changes [--workspace DIR] [--home DIR] [--session ID] [--stat] [--json]`: what the file
 * tools (write_file, edit_file) of a session — by default the newest in this workspace — changed so
 * far, from before its first write to now. On stdout the unified diffs one after another (a patch
 * `git apply -R` takes back, when no diff was cut), a `#` line for a file without one; with --stat
 * one line a file; with --json the daemon's answer. The count of files and lines, and what the
 * patch leaves out (commands' changes, files past the bound, cut diffs), go to stderr so stdout
 * stays a patch. Through the running Bastion when one owns the home (its control socket), else
 * through a host of its own. Exit 0 when shown, 2 for no such session here, 1 when refused.
 */
import {
  CLI_CHANGES_STAT_PATH_CHARS,
  CONTROL_MAX_CHANGES_ANSWER_BYTES,
  isCutDiff,
  SESSION_CHANGES_MAX_FILES,
  type SessionChange,
  type SessionChangeNoDiff,
  type SessionChangesResponse,
} from '@bastion/protocol';
import {
  askRunningHost,
  changesAnswerSchema,
  holderStatusSchema,
  resolveUserDataPath,
  sessionChangesIn,
  terminalJson,
  terminalLine,
  terminalText,
  type SessionChangesAnswer,
  type SessionChangesRequest,
} from '@bastion/host';
import { homeFlag, startOwningHost } from '../home-in-use.js';
import { checkedId, OTHER_FOLDER_HINT, parseCommandLine, UsageError, WORKSPACE_OPTIONS } from '../usage.js';
import { enterWorkspace } from '../workspace.js';

/** Why a file is listed without a diff, in words. */
const NO_DIFF: Record<SessionChangeNoDiff, string> = {
  'not-kept': 'its earlier version was not kept',
  binary: 'it is not text',
  'too-large': 'it is too large to diff',
  unreadable: 'it cannot be read now',
  'not-compared': 'the diffs before it took the time one answer may spend; see it with git diff',
};

/**
 * A diff as it may reach a terminal, line for line: each line made inert by terminalText, a
 * carriage return within it shown as a space so the lines stay the diff's own. A line's final
 * carriage return (a CRLF file's) is kept: followed at once by the newline it cannot overwrite
 * anything, and `git apply` needs it to match the file.
 */
function inertDiff(diff: string): string {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const crlf = line.endsWith('\r');
      const body = crlf ? line.slice(0, -1) : line;
      return `${terminalText(body).replace(/\n/g, ' ')}${crlf ? '\r' : ''}\n`;
    })
    .join('');
}

/** What the answer leaves out: files past the bound and what the session's commands changed. */
function leftOut(changes: SessionChangesResponse): string {
  const lines: string[] = [];
  if (changes.more > 0)
    lines.push(`${changes.more} more changed files left out (only the first ${SESSION_CHANGES_MAX_FILES} are listed)`);
  if (changes.commands > 0) {
    const commands = changes.commands === 1 ? 'a command' : `${changes.commands} commands`;
    lines.push(`the session also ran ${commands}, whose changes are not shown`);
  }
  return lines.map((line) => `bastion: ${line}\n`).join('');
}

/** `bastion: N files changed, +A −D`, with how many of them have no diff. */
function summary(files: readonly SessionChange[]): string {
  const count = files.length === 1 ? '1 file changed' : `${files.length} files changed`;
  const sum = (key: 'additions' | 'deletions') => files.reduce((total, file) => total + (file[key] ?? 0), 0);
  const without = files.filter((file) => file.diff === undefined).length;
  return `bastion: ${count}, +${sum('additions')} −${sum('deletions')}${without > 0 ? ` (${without} without a diff)` : ''}\n`;
}

/** `--stat`: status, path, and the diff's line counts or why there is none, one line a file. */
function stat(files: readonly SessionChange[]): string {
  const paths = files.map((file) => terminalLine(file.path));
  const width = Math.min(CLI_CHANGES_STAT_PATH_CHARS, Math.max(...paths.map((path) => path.length)));
  return files
    .map((file, index) => {
      const counts =
        file.no_diff === undefined
          ? `+${file.additions ?? 0} −${file.deletions ?? 0}${file.diff !== undefined && isCutDiff(file.diff) ? ' (diff cut)' : ''}`
          : `no diff: ${NO_DIFF[file.no_diff]}`;
      return `${file.status.padEnd(8)}  ${(paths[index] ?? '').padEnd(width)}  ${counts}\n`;
    })
    .join('');
}

/** The changes as `--stat` shows them, with their summary and what they leave out (chat's `/changes`). */
export function changesStat(changes: SessionChangesResponse): string {
  if (changes.files.length === 0) return `bastion: no file changed by this session's file tools\n${leftOut(changes)}`;
  return stat(changes.files) + summary(changes.files) + leftOut(changes);
}

/**
 * The diffs one after another, a `#` line for a file without one; and, for stderr, each diff the
 * patch does not hold as the file is: cut at the daemon's bound, or altered to be inert.
 */
function patch(files: readonly SessionChange[]): { text: string; warnings: string } {
  const warnings: string[] = [];
  const text = files
    .map((file) => {
      const path = terminalLine(file.path);
      if (file.diff === undefined) {
        const why = file.no_diff === undefined ? 'none given' : NO_DIFF[file.no_diff];
        return `# ${path}: ${file.status}, no diff (${why})\n`;
      }
      if (isCutDiff(file.diff))
        warnings.push(`the diff of ${path} was cut at its bound: this patch is not whole, do not apply it`);
      const shown = inertDiff(file.diff);
      if (shown !== (file.diff.endsWith('\n') ? file.diff : `${file.diff}\n`))
        warnings.push(`the diff of ${path} holds control characters, left out above: it does not apply as shown`);
      return shown;
    })
    .join('');
  return { text, warnings: warnings.map((line) => `bastion: ${line}\n`).join('') };
}

/** Ask the Bastion that owns the home, if one runs; else start one of our own for the request. */
async function changesOf(
  userData: string,
  home: string | undefined,
  request: SessionChangesRequest,
): Promise<SessionChangesAnswer | undefined> {
  if (await askRunningHost(userData, { op: 'status' }, holderStatusSchema)) {
    const answer = await askRunningHost(
      userData,
      { op: 'session.changes', ...request },
      changesAnswerSchema,
      CONTROL_MAX_CHANGES_ANSWER_BYTES,
    );
    if (answer) return 'refused' in answer ? { ok: false, ...answer.refused } : answer;
  }
  const host = await startOwningHost(
    { command: 'changes', userData, workspaces: [request.workspace] },
    `the session's Changes panel in its UI shows them (bastion open${homeFlag(home)}), or wait for it to stop`,
  );
  if (!host) return undefined;
  try {
    return await sessionChangesIn(host.client, request);
  } finally {
    await host.stop();
  }
}

export async function changesCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine({
    args: argv,
    options: {
      ...WORKSPACE_OPTIONS,
      session: { type: 'string' },
      stat: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  if (values.stat && values.json) throw new UsageError('--stat and --json cannot be combined');
  const id = values.session === undefined ? undefined : checkedId('--session', values.session, 'session');
  // Before entering the workspace: a relative --home is where the command was typed, not in the workspace.
  const userData = resolveUserDataPath(values.home);
  const request = { workspace: enterWorkspace(values.workspace), session_id: id };
  const answer = await changesOf(userData, values.home, request);
  if (!answer) return 2;
  if (!answer.ok) {
    if (answer.code === 'SESSION_NOT_FOUND' && id !== undefined) {
      process.stderr.write(`bastion: no session ${id} (bastion sessions --all lists them)\n`);
      return 2;
    }
    if (answer.code === 'UNDO_NO_SESSION') {
      const hint = id === undefined ? '' : OTHER_FOLDER_HINT;
      process.stderr.write(`bastion: ${terminalLine(answer.message)}${hint}\n`);
      return 2;
    }
    process.stderr.write(
      `bastion: could not read the session's changes: ${terminalLine(`${answer.code}: ${answer.message}`)}\n`,
    );
    return 1;
  }
  const { changes } = answer;
  if (values.json) {
    process.stdout.write(`${terminalJson(changes)}\n`);
    return 0;
  }
  if (changes.files.length === 0) {
    process.stderr.write(changesStat(changes));
    return 0;
  }
  if (values.stat) {
    process.stdout.write(stat(changes.files));
    process.stderr.write(summary(changes.files) + leftOut(changes));
    return 0;
  }
  const { text, warnings } = patch(changes.files);
  process.stdout.write(text);
  process.stderr.write(summary(changes.files) + warnings + leftOut(changes));
  return 0;
}
