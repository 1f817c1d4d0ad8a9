/**
 * `bastion sessions [--workspace DIR | --all] [--search TEXT] [--home DIR] [--json]`: the sessions
 * that worked in this folder (every session with `--all`; with `--search`, only those whose title,
 * prompts or replies hold TEXT), newest first, CLI_SESSIONS_LISTED at most — each with
 * its id (for `bastion run --session`), when it last changed, how its last run ended, its model,
 * mode, (with `--all`) folder and title, under a heading line (`--json`: the session objects
 * alone). Through the running Bastion when one owns the home (its control socket), else through a
 * host of its own.
 *
 * `bastion sessions export ID [--home DIR]`: the session as the UI's Export writes it (markdown),
 * on stdout, made inert for a terminal. Through the running Bastion or a host of its own, as the
 * list is.
 */
import {
  CLI_SESSIONS_LISTED,
  CONTROL_MAX_EXPORT_ANSWER_BYTES,
  SESSION_SEARCH_MAX_CHARS,
  type Session,
  type WireError,
} from '@bastion/protocol';
import {
  askRunningHost,
  exportAnswerSchema,
  holderStatusSchema,
  resolveUserDataPath,
  sessionMarkdownIn,
  sessionsAnswerSchema,
  sessionsIn,
  terminalJson,
  terminalLine,
  terminalText,
} from '@bastion/host';
import { homeFlag, startOwningHost } from '../home-in-use.js';
import { localDateTime } from '../local-time.js';
import { closestName } from '../closest-name.js';
import { checkedId, parseCommandLine, unknownNameError, UsageError, WORKSPACE_OPTIONS } from '../usage.js';
import { enterWorkspace } from '../workspace.js';

type Listed = { ok: true; sessions: Session[] } | { ok: false; code: string; message: string };

/** Ask the Bastion that owns the home, if one runs; else start one of our own for the request. */
async function list(
  userData: string,
  workspace: string | undefined,
  home: string | undefined,
  search: string | undefined,
): Promise<Listed | undefined> {
  const limit = CLI_SESSIONS_LISTED + 1;
  if (await askRunningHost(userData, { op: 'status' }, holderStatusSchema)) {
    const answer = await askRunningHost(
      userData,
      {
        op: 'sessions',
        limit,
        ...(workspace === undefined ? {} : { workspace }),
        ...(search === undefined ? {} : { search }),
      },
      sessionsAnswerSchema,
    );
    if (answer) return 'refused' in answer ? { ok: false, ...answer.refused } : answer;
  }
  const host = await startOwningHost(
    { command: 'sessions', userData, workspaces: [] },
    `the sessions are in its UI (bastion open${homeFlag(home)}), or wait for it to stop`,
  );
  if (!host) return undefined;
  try {
    const found = await sessionsIn(host.client, workspace, limit, search);
    return found.ok ? found : { ok: false, ...found.error };
  } finally {
    await host.stop();
  }
}

/** How the session stands: waiting for an answer, or how its last run ended. */
function state(session: Session): string {
  if (session.approval_pending) return 'needs approval';
  return session.last_run?.status ?? 'no run yet';
}

/** The widest state() says, `needs approval`: the column keeps that width, whatever the states listed. */
const STATE_WIDTH = 14;

/**
 * The list as printed: a heading line naming each column, then a line a session, each column but
 * the title padded to the widest of its heading and what it shows, so the columns line up.
 */
function lines(sessions: readonly Session[], withFolder: boolean): string[] {
  // The session-markdown export names a session without a granted folder the same way.
  const folder = (session: Session) => session.workspace ?? 'no folder';
  const columns: { heading: string; text: (session: Session) => string; width?: number }[] = [
    { heading: 'ID', text: (session) => session.id },
    { heading: 'CHANGED', text: (session) => localDateTime(session.updated_at) },
    { heading: 'LAST RUN', text: state, width: STATE_WIDTH },
    { heading: 'MODEL', text: (session) => `${session.provider}/${session.model}` },
    { heading: 'MODE', text: (session) => session.mode },
    // Every folder's sessions are mixed in --all: each says where it works (run --session needs it as --workspace).
    ...(withFolder ? [{ heading: 'FOLDER', text: folder }] : []),
  ];
  const widths = columns.map((column) =>
    Math.max(column.width ?? 0, column.heading.length, ...sessions.map((session) => column.text(session).length)),
  );
  const row = (cells: string[], title: string) =>
    terminalLine([...cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)), title].join('  '));
  const heading = row(
    columns.map((column) => column.heading),
    'TITLE',
  );
  return [
    heading,
    ...sessions.map((session) =>
      row(
        columns.map((column) => column.text(session)),
        session.title === '' ? '(untitled)' : session.title,
      ),
    ),
  ];
}

type Exported = { ok: true; markdown: string } | { ok: false; error: WireError };

/** The session's markdown from the Bastion that owns the home, if one runs; else from a host of our own. */
async function exported(id: string, home: string | undefined): Promise<Exported | undefined> {
  const userData = resolveUserDataPath(home);
  if (await askRunningHost(userData, { op: 'status' }, holderStatusSchema)) {
    const answer = await askRunningHost(
      userData,
      { op: 'session.export', session_id: id },
      exportAnswerSchema,
      CONTROL_MAX_EXPORT_ANSWER_BYTES,
    );
    if (answer) return 'refused' in answer ? { ok: false, error: answer.refused } : answer;
  }
  const host = await startOwningHost(
    { command: 'sessions', userData, workspaces: [] },
    `Export in its UI saves the session (bastion open${homeFlag(home)}), or wait for it to stop`,
  );
  if (!host) return undefined;
  try {
    return await sessionMarkdownIn(host.client, id, CONTROL_MAX_EXPORT_ANSWER_BYTES);
  } finally {
    await host.stop();
  }
}

/** `sessions export ID`: 0 with the markdown on stdout; 2 for an id that names no session or a home in use; 1 when reading failed. */
async function exportSession(id: string, home: string | undefined): Promise<number> {
  checkedId('export', id, 'session');
  const read = await exported(id, home);
  if (!read) return 2;
  if (read.ok) {
    process.stdout.write(terminalText(read.markdown));
    return 0;
  }
  if (read.error.code === 'SESSION_NOT_FOUND') {
    process.stderr.write(`bastion: no session ${id} (bastion sessions --all lists them)\n`);
    return 2;
  }
  process.stderr.write(
    `bastion: could not export the session: ${terminalLine(`${read.error.code}: ${read.error.message}`)}\n`,
  );
  return 1;
}

export async function sessionsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      ...WORKSPACE_OPTIONS,
      all: { type: 'boolean', default: false },
      search: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const search = values.search;
  if (search !== undefined && (search.trim() === '' || search.length > SESSION_SEARCH_MAX_CHARS))
    throw new UsageError(`--search takes 1 to ${SESSION_SEARCH_MAX_CHARS} characters`);
  if (positionals[0] === 'export') {
    if (positionals.length !== 2) throw new UsageError('sessions export takes one session ID');
    if (values.all || values.workspace !== undefined || values.json || search !== undefined)
      throw new UsageError('sessions export takes only --home');
    return exportSession(positionals[1] as string, values.home);
  }
  const [first] = positionals;
  // A word near `export` was meant as it; any other is a stray argument.
  if (first !== undefined && closestName(first, ['export']) !== undefined)
    throw unknownNameError('sessions command', first, ['export']);
  if (first !== undefined)
    throw new UsageError(`unexpected argument ${JSON.stringify(first)}: sessions takes only options, or export ID`);
  if (values.all && values.workspace !== undefined) throw new UsageError('--all and --workspace cannot be combined');
  const userData = resolveUserDataPath(values.home);
  const workspace = values.all ? undefined : enterWorkspace(values.workspace);
  const listed = await list(userData, workspace, values.home, search);
  if (!listed) return 2;
  if (!listed.ok) {
    process.stderr.write(
      `bastion: could not list the sessions: ${terminalLine(`${listed.code}: ${listed.message}`)}\n`,
    );
    return 1;
  }
  const shown = listed.sessions.slice(0, CLI_SESSIONS_LISTED);
  if (values.json) {
    for (const session of shown) process.stdout.write(`${terminalJson(session)}\n`);
    return 0;
  }
  if (shown.length === 0) {
    process.stderr.write(
      search !== undefined
        ? `bastion: no session${values.all ? '' : ' of this folder'} mentions ${terminalLine(JSON.stringify(search))}${values.all ? '' : ' (--all looks in every one)'}\n`
        : values.all
          ? 'bastion: no sessions yet\n'
          : 'bastion: no session has worked in this folder yet (--all lists every one)\n',
    );
    return 0;
  }
  process.stdout.write(
    lines(shown, values.all)
      .map((text) => `${text}\n`)
      .join(''),
  );
  if (listed.sessions.length > shown.length)
    process.stdout.write(`… older sessions not shown (the UI lists every one)\n`);
  process.stderr.write(
    values.all
      ? 'bastion: continue one in its folder with bastion run --workspace FOLDER --session ID PROMPT\n'
      : 'bastion: continue one with bastion run --session ID PROMPT, the newest with bastion run --continue PROMPT\n',
  );
  return 0;
}
