/**
 * `bastion changes` as real CLI processes against a real host and sidecar: a `bastion run` through
 * the scripted loopback endpoint edits one file and creates another; `bastion changes` (its own
 * host when none runs, the running `bastion start` through its control socket when one owns the
 * home) prints their diffs as a patch real git takes back, one line a file with --stat, the
 * daemon's answer with --json; a session's commands are counted, a diff line's escape sequence is
 * printed inert, and a session that is not there exits 2.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionChangesResponseSchema } from '@bastion/protocol';
import { startScriptedEndpoint, type ScriptedTurn } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import {
  demoInAuto,
  projectsRemovedAfterEachTest,
  runCli,
  scriptedRun,
  startHolder,
  stoppedAfterEachTest,
} from './support/cli-process.js';

const started = stoppedAfterEachTest();
const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());
const project = projectsRemovedAfterEachTest();

const SCRIPT: ScriptedTurn[] = [
  { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'beta', new_string: 'gamma' } },
  { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made by the run\n' } },
  { kind: 'text', pieces: ['done'] },
];

/** What `bastion changes` prints for SCRIPT's run: notes.md's edit, then made.txt made. */
const PATCH =
  '--- a/notes.md\n+++ b/notes.md\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n' +
  '--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1,1 @@\n+made by the run\n';

/** A home and workspace where `bastion run` (with `flags`) ran `script` with notes.md holding "alpha\nbeta\n". */
async function afterRun(script: ScriptedTurn[], ...flags: string[]): Promise<{ home: string; workspace: string }> {
  const { home, workspace, args } = scriptedRun(await startEndpoint([...script]));
  writeFileSync(join(workspace, 'notes.md'), 'alpha\nbeta\n');
  const run = await runCli([...args, ...flags, 'edit the notes']);
  expect(run.stderr).not.toContain('run failed');
  expect(run.code).toBe(0);
  return { home, workspace };
}

const changes = (home: string, workspace: string, ...flags: string[]) =>
  runCli(['changes', '--home', home, '--workspace', workspace, ...flags]);

describe('bastion changes', () => {
  it('with no Bastion running, prints both files’ diffs as a patch that git apply -R takes back to the original files', async () => {
    const { home, workspace } = await afterRun(SCRIPT);
    const shown = await changes(home, workspace);
    expect(shown.stderr).toBe('bastion: 2 files changed, +2 −1\n');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(PATCH);

    const patchFile = join(workspace, '..', 'x.patch');
    writeFileSync(patchFile, shown.stdout);
    execFileSync('git', ['apply', '-R', patchFile], { cwd: workspace });
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\nbeta\n');
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);
  });

  it('--stat prints status, path and line counts one line a file; --json prints the daemon’s answer as one object', async () => {
    const { home, workspace } = await afterRun(SCRIPT);
    const stat = await changes(home, workspace, '--stat');
    expect(stat.code).toBe(0);
    expect(stat.stdout).toBe('modified  notes.md  +1 −1\nadded     made.txt  +1 −0\n');
    expect(stat.stderr).toBe('bastion: 2 files changed, +2 −1\n');

    const json = await changes(home, workspace, '--json');
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    expect(json.stdout.split('\n')).toHaveLength(2);
    const answer = sessionChangesResponseSchema.parse(JSON.parse(json.stdout));
    expect(answer).toMatchObject({ more: 0, commands: 0 });
    expect(answer.files).toEqual([
      { path: 'notes.md', status: 'modified', diff: expect.any(String), additions: 1, deletions: 1 },
      { path: 'made.txt', status: 'added', diff: expect.any(String), additions: 1, deletions: 0 },
    ]);
    expect(answer.files.map((file) => file.diff).join('')).toBe(PATCH);
  });

  it('a session whose file tools changed nothing says so on stderr with exit 0, and counts the command it ran', async () => {
    const { home, workspace } = project();
    const run = await runCli([...demoInAuto('run', home, workspace), '$ touch x']);
    expect(run.code).toBe(0);
    expect(existsSync(join(workspace, 'x'))).toBe(true);
    const shown = await changes(home, workspace);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe('');
    expect(shown.stderr).toBe(
      "bastion: no file changed by this session's file tools\n" +
        'bastion: the session also ran a command, whose changes are not shown\n',
    );
  });

  it('counts the commands a session ran after its file changes, on stderr below the patch', async () => {
    const { home, workspace } = await afterRun(
      [
        ...SCRIPT.slice(0, 2),
        { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['by-command'] } },
        { kind: 'text', pieces: ['done'] },
      ],
      '--mode',
      'auto',
    );
    expect(existsSync(join(workspace, 'by-command'))).toBe(true);
    const shown = await changes(home, workspace);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(PATCH);
    expect(shown.stderr).toBe(
      'bastion: 2 files changed, +2 −1\nbastion: the session also ran a command, whose changes are not shown\n',
    );
  });

  it('prints a diff line holding an escape sequence inert, and says that file’s diff does not apply as shown', async () => {
    const { home, workspace } = await afterRun([
      { kind: 'tool-call', name: 'write_file', input: { path: 'esc.txt', content: 'a\u001b]52;c;cHduZWQ=\u0007b\n' } },
      { kind: 'text', pieces: ['done'] },
    ]);
    const shown = await changes(home, workspace);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain('\u001b');
    expect(shown.stdout).not.toContain('\u0007');
    expect(shown.stdout).toBe('--- /dev/null\n+++ b/esc.txt\n@@ -0,0 +1,1 @@\n+ab\n');
    expect(shown.stderr).toBe(
      'bastion: 1 file changed, +1 −0\n' +
        'bastion: the diff of esc.txt holds control characters, left out above: it does not apply as shown\n',
    );
  });

  it('says on stderr that a diff was cut at its bound, and prints a # line saying why for a file without a diff', async () => {
    // 500 lines of 100 characters: a diff past TOOL_DIFF_MAX_CHARS, cut; 1 200 lines: past
    // TOOL_DIFF_MAX_EDIT_LENGTH, not computed.
    const long = Array.from({ length: 500 }, (_, line) => `${String(line).padStart(99, '.')}\n`).join('');
    const many = Array.from({ length: 1_200 }, (_, line) => `${line}\n`).join('');
    const { home, workspace } = await afterRun([
      { kind: 'tool-call', name: 'write_file', input: { path: 'long.txt', content: long } },
      { kind: 'tool-call', name: 'write_file', input: { path: 'many.txt', content: many } },
      { kind: 'text', pieces: ['done'] },
    ]);
    const shown = await changes(home, workspace);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^--- \/dev\/null\n\+\+\+ b\/long\.txt\n@@ -0,0 \+1,500 @@\n/);
    expect(shown.stdout).toMatch(/\n# many\.txt: added, no diff \(it is too large to diff\)\n$/);
    expect(shown.stderr).toMatch(/^bastion: 2 files changed, \+\d+ −0 \(1 without a diff\)\n/);
    expect(shown.stderr).toContain(
      'bastion: the diff of long.txt was cut at its bound: this patch is not whole, do not apply it\n',
    );
    const stat = await changes(home, workspace, '--stat');
    expect(stat.stdout).toMatch(
      /^added {5}long\.txt {2}\+\d+ −0 \(diff cut\)\nadded {5}many\.txt {2}no diff: it is too large to diff\n$/,
    );
  });

  it('--help prints changes’ synopsis and paragraph, the top-level help lists it, and --stat with --json exits 2 starting nothing', async () => {
    const help = await runCli(['changes', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /^Usage:\n {2}bastion changes \[--workspace DIR\] \[--home DIR\] \[--session ID\] \[--stat\] \[--json\]\n/,
    );
    expect(help.stdout).toContain('\nchanges: what the file tools (write_file, edit_file) of a session changed so far');
    expect((await runCli(['--help'])).stdout).toMatch(
      /\n {2}changes {4}the diff of what a session's file tools changed\n/,
    );
    const { home, workspace } = project();
    const both = await changes(home, workspace, '--stat', '--json');
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^bastion: --stat and --json cannot be combined\n\nUsage:\n {2}bastion changes /);
    expect(existsSync(home)).toBe(false);
  });

  it('exits 2 for --session naming a session that does not exist, or one that works in another folder', async () => {
    const { home, workspace } = await afterRun(SCRIPT);
    const missing = await changes(home, workspace, '--session', 'ses_00000000000000000000000000');
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(
      'bastion: no session ses_00000000000000000000000000 (bastion sessions --all lists them)\n',
    );
    expect(missing.code).toBe(2);

    const { session_id: id } = sessionChangesResponseSchema.parse(
      JSON.parse((await changes(home, workspace, '--json')).stdout),
    );
    const { workspace: other } = project();
    const elsewhere = await changes(home, other, '--session', id);
    expect(elsewhere.stdout).toBe('');
    expect(elsewhere.stderr).toBe(
      `bastion: session ${id} works in ${workspace}, not in this one (--workspace names the folder to look in)\n`,
    );
    expect(elsewhere.code).toBe(2);
  });

  it('goes through the running Bastion’s control socket with the same answer', async () => {
    const { home, workspace } = await afterRun(SCRIPT);
    await startHolder(started, home, workspace).ready;
    const shown = await changes(home, workspace);
    expect(shown.stderr).toBe('bastion: 2 files changed, +2 −1\n');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toBe(PATCH);
    const stat = await changes(home, workspace, '--stat');
    expect(stat.stdout).toBe('modified  notes.md  +1 −1\nadded     made.txt  +1 −0\n');
    // Both answers came from the holder: two session.changes requests on its control socket.
    const requests = readFileSync(join(home, 'logs', 'host.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"event":"control.request"') && line.includes('"method":"session.changes"'));
    expect(requests).toHaveLength(2);
  });
});
