/**
 * Test support: the built CLI run as a real process (to its exit, or on a real terminal), `run`'s
 * arguments against the scripted loopback endpoint, a `bastion start` holding a home, the CLIs a
 * test left running stopped after it, and temporary projects removed after it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { afterEach } from 'vitest';
import { DESKTOP_PAGE_KEY_FRAGMENT, HOST_IPC_PAGE_KEY_HEADER } from '@bastion/protocol';
import { DaemonClient, quoteArgv, type DaemonTarget } from '@bastion/host';
import { makeTempDir, SCRIPTED_MODEL, type ScriptedEndpoint } from '@bastion/test-support';

/** The built CLI (`npm run build` makes it). */
export const CLI = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the CLI with `args` to its exit, `stdin` (then end of input) on its standard input, typed in `cwd`. */
export function runCli(args: readonly string[], stdin = '', { cwd }: { cwd?: string } = {}): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'], cwd });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

export interface TerminalCli {
  /** The pid of `script`, which holds the terminal (the CLI is its child). */
  terminalPid: number;
  /** Type `keys` on the terminal. */
  type(keys: string): void;
  /** Everything the terminal showed so far. */
  shown(): string;
  /** The CLI's exit code, once the terminal closes. */
  closed: Promise<number | null>;
}

/**
 * Run the CLI with `args` on a real terminal (util-linux `script`), which the test types on.
 * `script` runs the command through `$SHELL -c`, or `/bin/sh -c` with no SHELL set; dash keeps itself
 * as the parent of a lone command, dies of the terminal's SIGINT and `script` reports 130. `exec`
 * makes the CLI the shell's own process, so Ctrl-C reaches the CLI alone and the exit code is its.
 * `stoppable`: the shell stays the CLI's parent instead (the exit code still the CLI's), for a test
 * that stops the CLI with SIGSTOP: `script` stops itself when its own child stops, and would then
 * pass on no key typed; a shell without job control does not.
 */
export function runCliInTerminal(args: readonly string[], { stoppable = false } = {}): TerminalCli {
  const line = quoteArgv([process.execPath, CLI, ...args]);
  const command = stoppable ? `${line}; exit $?` : `exec ${line}`;
  const child = spawn('script', ['-qefc', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  terminals.set(child, closed);
  void closed.then(() => terminals.delete(child));
  return { terminalPid: child.pid ?? -1, type: (keys) => child.stdin.write(keys), shown: () => shown, closed };
}

/** The terminals runCliInTerminal started that have not closed, with their close. */
const terminals = new Map<ChildProcess, Promise<number | null>>();

// A test that fails before its terminal closes would leave it running, and the CLI and sandbox under
// it: after every test of a file that imports this module, each one left is sent SIGTERM (`script`
// passes it to the CLI, which stops its host) and awaited.
afterEach(async () => {
  for (const [child, closed] of [...terminals]) {
    child.kill('SIGTERM');
    await closed;
  }
});

export interface TempProject {
  /** A fresh temporary folder holding the two below. */
  root: string;
  /** `<root>/home`, not made yet: the CLI makes it. */
  home: string;
  /** `<root>/ws`, an empty folder. */
  workspace: string;
}

/** A maker of temporary projects, each removed (with all the CLI wrote there) after its test. */
export function projectsRemovedAfterEachTest(): () => TempProject {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  return () => {
    const root = makeTempDir();
    roots.push(root);
    const workspace = join(root, 'ws');
    mkdirSync(workspace);
    return { root, home: join(root, 'home'), workspace };
  };
}

export interface ScriptedRun {
  /** A fresh temporary folder holding the two below. */
  root: string;
  /** `<root>/home`, not made yet: the CLI makes it. */
  home: string;
  /** `<root>/ws`, an empty folder. */
  workspace: string;
  /** `run --home <home> --workspace <workspace> --endpoint <endpoint> --model SCRIPTED_MODEL`: flags and PROMPT go after. */
  args: string[];
}

/** `bastion run`'s arguments for the scripted loopback `endpoint`, on a fresh home and workspace. */
export function scriptedRun(endpoint: ScriptedEndpoint): ScriptedRun {
  const root = makeTempDir();
  const home = join(root, 'home');
  const workspace = join(root, 'ws');
  mkdirSync(workspace);
  const args = [
    'run',
    '--home',
    home,
    '--workspace',
    workspace,
    '--endpoint',
    endpoint.baseUrl,
    '--model',
    SCRIPTED_MODEL,
  ];
  return { root, home, workspace, args };
}

/**
 * The list to push each long-running CLI a test starts onto: after the test, each one still
 * running gets SIGTERM (so it stops its host and sidecar first) and is waited for.
 */
export function stoppedAfterEachTest(): ChildProcess[] {
  const started: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of started.splice(0)) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
  return started;
}

/** What `bastion start --json` prints first. */
export interface ReadyLine {
  ui: string;
  pid: { host: number; sidecar: number };
}

/**
 * `bastion start --json --no-open` on `home` and `workspace` (and `args`), pushed onto `started`
 * (see stoppedAfterEachTest); `ready` resolves with its ready line, or rejects if it exits first.
 */
export function startHolder(
  started: ChildProcess[],
  home: string,
  workspace: string,
  args: readonly string[] = [],
): { child: ChildProcess; ready: Promise<ReadyLine> } {
  const child = spawn(
    process.execPath,
    [CLI, 'start', '--json', '--no-open', '--home', home, '--workspace', workspace, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  started.push(child);
  const ready = new Promise<ReadyLine>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line) as ReadyLine));
    child.once('exit', () => reject(new Error('the holder exited before ready')));
  });
  return { child, ready };
}

/** Each session's stored user messages (their stored form, holding the prompt's text), oldest first. */
export function userMessagesBySession(home: string): Map<string, string[]> {
  const db = new Database(join(home, 'sessions.db'), { readonly: true });
  try {
    const rows = db
      .prepare("SELECT session_id, content FROM messages WHERE role = 'user' ORDER BY session_id, seq")
      .all() as { session_id: string; content: string }[];
    const messages = new Map<string, string[]>();
    for (const row of rows) messages.set(row.session_id, [...(messages.get(row.session_id) ?? []), row.content]);
    return messages;
  } finally {
    db.close();
  }
}

/** `command`'s arguments on the demo model in auto mode, in a home and workspace of the test's. */
export const demoInAuto = (command: 'run' | 'chat', home: string, workspace: string) => [
  command,
  '--home',
  home,
  '--workspace',
  workspace,
  '--mode',
  'auto',
  '--provider',
  'demo',
];

/**
 * A second client of the daemon's HTTP API on the Bastion running on `home` (`bastion start`, or
 * the host of a `bastion run` going), reached as a browser tab reaches it: a launch link from
 * `bastion open`, redeemed for the session cookie and page key, which ask host IPC's
 * agent.server-info for the sidecar's port and password.
 */
export async function secondDaemonClient(home: string): Promise<DaemonClient> {
  const { target, uiOrigin } = await secondDaemonTarget(home);
  return new DaemonClient({ target: () => Promise.resolve(target), uiOrigin });
}

/** What secondDaemonClient reaches the daemon with: its port and password, and the UI's origin its requests name. */
export async function secondDaemonTarget(home: string): Promise<{ target: DaemonTarget; uiOrigin: string }> {
  const opened = await runCli(['open', '--json', '--home', home]);
  if (opened.code !== 0) throw new Error(`bastion open failed: ${opened.stderr}`);
  const { launch } = JSON.parse(opened.stdout) as { launch: string };
  const uiOrigin = new URL(launch).origin;
  const launched = await fetch(launch, { redirect: 'manual' });
  const cookie = (launched.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const fragment = new URL(launched.headers.get('location') ?? '', uiOrigin).hash;
  const pageKey = new URLSearchParams(fragment.slice(1)).get(DESKTOP_PAGE_KEY_FRAGMENT) ?? '';
  const info = await fetch(`${uiOrigin}/_host/ipc/agent.server-info`, {
    method: 'POST',
    headers: {
      cookie,
      [HOST_IPC_PAGE_KEY_HEADER]: pageKey,
      origin: uiOrigin,
      referer: `${uiOrigin}/desktop/`,
      'content-type': 'application/json',
    },
    body: '{}',
  });
  if (info.status !== 200) throw new Error(`agent.server-info answered ${info.status}`);
  const target = (await info.json()) as DaemonTarget;
  return { target, uiOrigin };
}
