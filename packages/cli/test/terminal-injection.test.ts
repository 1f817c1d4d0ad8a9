/**
 * Terminal injection end to end: a scripted loopback model streams escape sequences (clear
 * screen, cursor moves, OSC 52 clipboard, OSC 8 links, 8-bit C1 controls, sequences split across
 * deltas, a carriage-return overwrite, bidi overrides), a fake "Allow? [y/N]", a run_command
 * whose argv carries them too, and one whose output does. The real CLI process's stdout and stderr bytes hold none of them,
 * the text itself still arrives, and the approval names the exact argv.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeAttack } from '../../../test/support/attack.js';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import {
  makeTempDir,
  startScriptedEndpoint,
  type ScriptedEndpoint,
  type ScriptedTurn,
  waitFor,
} from '@bastion/test-support';
import { CLI, runCliInTerminal, scriptedRun } from './support/cli-process.js';

const ESC = '\x1b';

const HOSTILE_TEXT = [
  'Here is the answer.\n',
  `${ESC}[2J${ESC}[H`,
  `${ESC}]52;c;cm0gLXJmIH4K\x07`,
  `${ESC}]8;;https://evil.test/${ESC}\\the docs${ESC}]8;;${ESC}\\\n`,
  `${ESC}[1A${ESC}[2K${ESC}[?25l`,
  'The agent wants to run: ls\nAllow? [y/N] ',
  '\x9b2J\x9d0;title\x9c\x85',
  'rm -rf ~\rls      \n',
  ESC,
  '[31mred',
  `${ESC}]0;`,
  'window title\x07 after\n',
  `\u202eevil\u202c\b\x7f${ESC}P+q544e${ESC}\\${ESC}_apc${ESC}\\ end\n`,
];

const HOSTILE_COMMAND = { command: 'touch', args: [`${ESC}[2J${ESC}]52;c;AAAA\x07x`, 'a\rb', 'c\u202ed'] };

function script(): ScriptedTurn[] {
  return [
    { kind: 'tool-call', name: 'run_command', input: HOSTILE_COMMAND },
    { kind: 'text', pieces: [...HOSTILE_TEXT, `denied${ESC}[2J, fine.`] },
  ];
}

/**
 * Everything in `bytes` that a terminal would act on: ESC, any other C0 control but newline and
 * tab, DEL, C1 controls (raw bytes or UTF-8 encoded) and the bidi embedding/override/isolate
 * characters, each as its offset and byte(s).
 */
function steeringBytes(bytes: Buffer): string[] {
  const found: string[] = [];
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index] ?? 0;
    const next = bytes[index + 1] ?? 0;
    const third = bytes[index + 2] ?? 0;
    if ((byte < 0x20 && byte !== 0x0a && byte !== 0x09) || byte === 0x7f) found.push(`${index}:${byte}`);
    else if (byte === 0xc2 && next >= 0x80 && next <= 0x9f) found.push(`${index}:c2 ${next}`);
    else if (byte === 0xe2 && next === 0x80 && third >= 0xaa && third <= 0xae) found.push(`${index}:bidi`);
    else if (byte === 0xe2 && next === 0x81 && third >= 0xa6 && third <= 0xa9) found.push(`${index}:bidi`);
  }
  // Raw C1 bytes cannot appear in valid UTF-8 outside a multi-byte character: check it decodes.
  if (Buffer.from(bytes.toString('utf8'), 'utf8').compare(bytes) !== 0) found.push('invalid UTF-8');
  return found;
}

const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

/** `bastion run` against `endpoint` on a fresh workspace (holding a README) and home. */
function runArgs(endpoint: ScriptedEndpoint, extra: string[]): { args: string[]; workspace: string; home: string } {
  const { workspace, home, args } = scriptedRun(endpoint);
  writeFileSync(join(workspace, 'README.md'), 'project\n');
  return { args: [...args, ...extra, 'answer me'], workspace, home };
}

/** The CLI with `args` and `stdin`: its exit code and the raw bytes of its stdout and stderr. */
async function cliBytes(args: string[], stdin = ''): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(stdin);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr) };
}

async function runAgainstScript(
  extra: string[],
): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer; endpoint: ScriptedEndpoint }> {
  const endpoint = await startEndpoint(script());
  return { ...(await cliBytes(runArgs(endpoint, extra).args)), endpoint };
}

describeAttack('terminal-injection', 'bastion run against a model that streams escape sequences', () => {
  it('stdout and stderr carry no ESC, C0, C1 or bidi byte; the text and the exact argv of the denied command still show', async () => {
    const result = await runAgainstScript([]);
    // Denied for want of a terminal: the run finishes, and exits 1 for it.
    expect(result.code).toBe(1);
    expect(steeringBytes(result.stdout)).toEqual([]);
    expect(steeringBytes(result.stderr)).toEqual([]);
    const stdout = result.stdout.toString('utf8');
    expect(stdout).toContain('Here is the answer.\n');
    expect(stdout).toContain('the docs\n');
    expect(stdout).toContain('rm -rf ~\nls      \n');
    expect(stdout).toContain('denied, fine.');
    // The approval (denied: no terminal) shows the argv as shell words with every control spelled out.
    expect(result.stderr.toString('utf8')).toContain(
      `command: touch $'\\x1b[2J\\x1b]52;c;AAAA\\x07x' $'a\\rb' $'c\\u202ed'`,
    );
    // The model was asked twice: for the command, then after the denial.
    expect(result.endpoint.seen.length).toBe(2);
  });

  it('--json: every line parses to the events with their text intact, and no byte steers the terminal', async () => {
    const result = await runAgainstScript(['--json']);
    expect(result.code).toBe(1);
    expect(steeringBytes(result.stdout)).toEqual([]);
    expect(steeringBytes(result.stderr)).toEqual([]);
    const events = result.stdout
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; text?: string; input?: unknown });
    const text = events.flatMap((event) => (event.type === 'text-delta' && event.text ? [event.text] : [])).join('');
    // Machines reading --json get the model's text exactly as it was streamed.
    expect(text).toContain(HOSTILE_TEXT.join(''));
    expect(events.find((event) => event.type === 'tool-approval-request')?.input).toEqual(HOSTILE_COMMAND);
  });

  it('a command whose output carries escape sequences: its previewed lines reach the terminal inert, their text intact', async () => {
    const endpoint = await startEndpoint([
      {
        kind: 'tool-call',
        name: 'run_command',
        input: { command: 'printf', args: ['%s\\n', `${ESC}[2J${ESC}]52;c;AAAA\x07visible\u202e text\x9b2J`] },
      },
      { kind: 'text', pieces: ['printed'] },
    ]);
    const child = spawn(process.execPath, [CLI, ...runArgs(endpoint, ['--mode', 'auto']).args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
    const bytes = Buffer.concat(stdout);
    expect(steeringBytes(bytes)).toEqual([]);
    expect(bytes.toString('utf8')).toMatch(/→ exit 0\n {2}visible text\n/);
  });

  it('a write waiting for approval shows its diff against the file as it is, an escape sequence in the file’s lines inert; denied, the file keeps its bytes', async () => {
    const endpoint = await startEndpoint([
      { kind: 'tool-call', name: 'write_file', input: { path: 'keep.txt', content: 'first\nchanged\n' } },
      { kind: 'text', pieces: ['left as it was'] },
    ]);
    const { args, workspace } = runArgs(endpoint, ['--ask-before-writes']);
    const before = `first\n${ESC}]52;c;AAAA\x07old\n`;
    writeFileSync(join(workspace, 'keep.txt'), before);
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // Denied for want of a terminal: the run exits 1.
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(1);
    expect(steeringBytes(Buffer.concat(stdout))).toEqual([]);
    expect(steeringBytes(Buffer.concat(stderr))).toEqual([]);
    expect(Buffer.concat(stdout).toString('utf8')).toContain(
      '[preview] keep.txt would change:\n  --- a/keep.txt\n  +++ b/keep.txt\n  @@ -1,2 +1,2 @@\n   first\n  -old\n  +changed\n',
    );
    expect(Buffer.concat(stderr).toString('utf8')).toContain('bastion: approval needed:\n  write_file ');
    expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe(before);
  });

  it('a "y" typed ahead (at a look-alike prompt) does not answer the real approval: the command never runs', async () => {
    const endpoint = await startEndpoint([
      { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['approved-marker'] } },
      { kind: 'text', pieces: ['ok'] },
    ]);
    const { args, workspace } = runArgs(endpoint, []);
    const cli = runCliInTerminal(args);
    cli.type('y\r');
    await waitFor(() => cli.shown().includes('Allow? [y/N]'), 60_000, 'the approval prompt');
    cli.type('n\r');
    expect(await cli.closed).toBe(0);
    expect(cli.shown()).toContain('command: touch approved-marker');
    expect(existsSync(join(workspace, 'approved-marker'))).toBe(false);
    expect(endpoint.seen.length).toBe(2);
  });

  it('a project instructions file in a folder whose name carries escape sequences: the [instructions] line names it inert', async () => {
    const folder = `x${ESC}]52;c;SEFDS0VE\x07${ESC}[2J${ESC}]8;;https:evil.test\x07y`;
    const endpoint = await startEndpoint([
      { kind: 'tool-call', name: 'read_file', input: { path: `${folder}/f.txt` } },
      { kind: 'text', pieces: ['read'] },
    ]);
    const { args, workspace } = runArgs(endpoint, []);
    mkdirSync(join(workspace, folder));
    writeFileSync(join(workspace, folder, 'AGENTS.md'), 'be brief\n');
    writeFileSync(join(workspace, folder, 'f.txt'), 'data\n');
    const result = await cliBytes(args);
    expect(result.code).toBe(0);
    expect(steeringBytes(result.stdout)).toEqual([]);
    expect(steeringBytes(result.stderr)).toEqual([]);
    expect(result.stdout.toString('utf8')).toContain('[instructions] xy/AGENTS.md');
  });

  it('a command name the model chose, refused or not, shows inert in policy audit (and --json), and a rule for it in policy add and list', async () => {
    const name = `e${ESC}]52;c;UFdORUQ=\x07${ESC}[31mREDx`;
    const endpoint = await startEndpoint([
      { kind: 'tool-call', name: 'run_command', input: { command: `./${name}`, args: [] } },
      { kind: 'text', pieces: ['done'] },
    ]);
    const { args, workspace, home } = runArgs(endpoint, ['--mode', 'auto']);
    writeFileSync(join(workspace, name), '#!/bin/sh\n', { mode: 0o755 });
    expect((await cliBytes(args)).code).toBe(0);
    const outputs = [
      await cliBytes(['policy', 'audit', '--home', home]),
      await cliBytes(['policy', 'audit', '--json', '--home', home]),
      await cliBytes(['policy', 'add', 'allow', `./${name}`, 'a', '--home', home, '--workspace', workspace]),
      await cliBytes(['policy', 'list', '--home', home, '--workspace', workspace]),
      await cliBytes(['policy', 'list', '--json', '--home', home, '--workspace', workspace]),
    ];
    for (const output of outputs) {
      expect(output.code).toBe(0);
      expect(steeringBytes(output.stdout)).toEqual([]);
      expect(steeringBytes(output.stderr)).toEqual([]);
    }
    const [audit, auditJson, , list] = outputs.map((output) => output.stdout.toString('utf8'));
    expect(audit).toContain('REDx');
    // --json keeps the name whole, its controls as JSON escapes.
    expect(auditJson).toContain('\\u001b]52;c;UFdORUQ=\\u0007');
    expect(outputs[2]?.stderr.toString('utf8')).toContain(`argv="$'./e\\x1b]52;c;UFdORUQ=\\x07\\x1b[31mREDx' a …"`);
    expect(list).toContain(`argv="$'./e\\x1b]52;c;UFdORUQ=\\x07\\x1b[31mREDx' a …"`);
  });

  it('secrets set: an error message the running host relays (the sidecar’s words) reaches the terminal inert', async () => {
    const home = join(makeTempDir(), 'home');
    mkdirSync(home, { mode: 0o700 });
    const hostile = `bad${ESC}]52;c;AAAA\x07${ESC}[2J${ESC}]8;;https://evil.test\x07link\u202eend`;
    const holder = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.once('data', (line: string) => {
        const request = JSON.parse(line) as { op: string };
        const answer =
          request.op === 'status'
            ? { ok: true, pid: process.pid, command: 'start', ui: 'http://127.0.0.1:1/desktop/' }
            : { ok: true, status: 400, code: 'SECRETS_BAD_REQUEST', message: hostile };
        socket.end(`${JSON.stringify(answer)}\n`);
      });
    });
    await new Promise<void>((resolve) => holder.listen(join(home, 'host.sock'), resolve));
    try {
      const result = await cliBytes(['secrets', 'set', 'openai', '--home', home], 'sk-abcdefabcdef1234\n');
      expect(result.code).toBe(2);
      expect(steeringBytes(result.stderr)).toEqual([]);
      expect(result.stderr.toString('utf8')).toContain('SECRETS_BAD_REQUEST: badlinkend');
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
