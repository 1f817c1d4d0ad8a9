/**
 * `bastion undo` as real CLI processes against a real host and sidecar: a `bastion run` through
 * the scripted loopback endpoint edits one file and creates another; `bastion undo` (its own host
 * when none runs, the running `bastion start` through its control socket when one owns the home)
 * puts them back, prints each file, and prints the daemon's refusal in words with exit 1 (undo
 * and rewind exit 2 when there is no session or run of that name, as `changes` does); on a
 * workspace disk that is full (a real tmpfs, root only) it says the disk is full and stops.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedEndpoint, type ScriptedTurn } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { canMount, fillDisk, mountTmpfs } from '../../../test/support/tmpfs.js';
import {
  projectsRemovedAfterEachTest,
  runCli,
  scriptedRun,
  startHolder,
  stoppedAfterEachTest,
} from './support/cli-process.js';

const started = stoppedAfterEachTest();
const project = projectsRemovedAfterEachTest();
const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

const SCRIPT: ScriptedTurn[] = [
  { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'beta', new_string: 'gamma' } },
  { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made by the run\n' } },
  { kind: 'text', pieces: ['done'] },
];

/** A home and workspace where `bastion run` edited notes.md and created made.txt. */
async function afterRun(): Promise<{ home: string; workspace: string }> {
  const { home, workspace, args } = scriptedRun(await startEndpoint([...SCRIPT]));
  writeFileSync(join(workspace, 'notes.md'), 'alpha\nbeta\n');
  const run = await runCli([...args, 'edit the notes']);
  expect(run.stderr).not.toContain('run failed');
  expect(run.code).toBe(0);
  expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
  return { home, workspace };
}

describe('bastion undo', () => {
  it('with no Bastion running, undoes the last run of the workspace’s newest session and prints each file; a second undo exits 1, its refusal a line of its own and the next naming bastion rewind to go further back', async () => {
    const { home, workspace } = await afterRun();
    const planned = await runCli(['undo', '--dry-run', '--home', home, '--workspace', workspace]);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(
      /^Undo of run run_\S+ of session ses_\S+, a dry run \(nothing is changed\):\n {2}would restore {2}notes\.md\n {2}would remove {3}made\.txt \(the run created it\)\n$/,
    );
    expect(existsSync(join(workspace, 'made.txt'))).toBe(true);

    const undone = await runCli(['undo', '--home', home, '--workspace', workspace]);
    expect(undone.stderr).toBe('');
    expect(undone.code).toBe(0);
    expect(undone.stdout).toMatch(
      /^Undid run run_\S+ of session ses_\S+:\n {2}restored {2}notes\.md\n {2}removed {3}made\.txt/,
    );
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\nbeta\n');
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);

    const again = await runCli(['undo', '--home', home, '--workspace', workspace]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      'bastion: nothing was undone: UNDO_ALREADY_DONE: this run was already undone\n' +
        'bastion: to put back what earlier runs wrote, bastion rewind takes the session back a prompt at a time\n',
    );
    // The command it names goes on back: the undone run's prompt leaves the conversation.
    const rewound = await runCli(['rewind', '--home', home, '--workspace', workspace]);
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toMatch(
      /^Rewound session ses_\S+: 1 turn out of the conversation, from this prompt \(run run_\S+\) on:\n {2}> edit the notes\n/,
    );
  });

  it.each([
    ['undo', 'undone', 'UNDO_RUN_NOT_FOUND: no such run in this session'],
    ['rewind', 'rewound', 'REWIND_RUN_NOT_FOUND: no prompt of this session started that run'],
  ])(
    'bastion %s exits 2, as changes does, when no session worked in the workspace or --session or --run names none',
    async (command, done, noSuchRun) => {
      const { home, workspace } = project();
      const nothing = `bastion: nothing was ${done}: `;
      const none = await runCli([command, '--home', home, '--workspace', workspace]);
      expect(none.stderr).toBe(`${nothing}UNDO_NO_SESSION: no session has worked in this workspace\n`);
      expect(none.code).toBe(2);
      expect((await runCli(['changes', '--home', home, '--workspace', workspace])).code).toBe(2);
      const missing = await runCli([command, '--home', home, '--workspace', workspace, '--session', 'ses_AAAAAAAA']);
      expect(missing.stderr).toBe(`${nothing}SESSION_NOT_FOUND: no such session\n`);
      expect(missing.code).toBe(2);
      const ran = await afterRun();
      const noRun = await runCli([command, '--home', ran.home, '--workspace', ran.workspace, '--run', 'run_AAAAAAAA']);
      expect(noRun.stderr).toBe(`${nothing}${noSuchRun}\n`);
      expect(noRun.code).toBe(2);
      expect(readFileSync(join(ran.workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
    },
  );

  it.each([
    ['undo', 'undone'],
    ['rewind', 'rewound'],
  ])(
    'bastion %s --session of a session that works in another folder exits 2 naming that folder, as changes does, and touches neither folder',
    async (command, done) => {
      const ran = await afterRun();
      const sessions = await runCli(['sessions', '--home', ran.home, '--workspace', ran.workspace, '--json']);
      const id = (JSON.parse(sessions.stdout.trim().split('\n')[0] as string) as { id: string }).id;
      const other = join(dirname(ran.workspace), `${basename(ran.workspace)}-other`);
      mkdirSync(other);
      try {
        // The same bytes the run left, so only the session's folder can tell them apart.
        writeFileSync(join(other, 'notes.md'), 'alpha\ngamma\n');
        const refused = await runCli([command, '--home', ran.home, '--workspace', other, '--session', id]);
        expect(refused.stderr).toBe(
          `bastion: nothing was ${done}: UNDO_NO_SESSION: session ${id} works in ${realpathSync(ran.workspace)}, not in this one (--workspace names the folder to look in)\n`,
        );
        expect(refused.code).toBe(2);
        expect(readFileSync(join(other, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
        expect(readdirSync(other)).toEqual(['notes.md']);
        expect(readFileSync(join(ran.workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
        expect(existsSync(join(ran.workspace, 'made.txt'))).toBe(true);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    },
  );

  it('takes a relative --home and --workspace from where it was typed, as run does: undo, rewind and changes find the run, and no data folder is made in the workspace', async () => {
    const { home, workspace } = await afterRun();
    const typedIn = { cwd: dirname(home) };
    const relative = ['--home', basename(home), '--workspace', basename(workspace)];
    const undo = await runCli(['undo', '--dry-run', ...relative], '', typedIn);
    expect(undo.stdout).toMatch(/would restore {2}notes\.md/);
    expect(undo.code).toBe(0);
    const rewind = await runCli(['rewind', '--dry-run', ...relative], '', typedIn);
    expect(rewind.stdout).toContain('> edit the notes');
    expect(rewind.code).toBe(0);
    const changes = await runCli(['changes', '--stat', ...relative], '', typedIn);
    expect(changes.stdout).toContain('notes.md');
    expect(changes.code).toBe(0);
    expect(readdirSync(workspace).sort()).toEqual(['made.txt', 'notes.md']);
  });

  it('goes through the running Bastion’s control socket, and prints a refusal as its outcome, code and reason, the outcome said once, with every file untouched', async () => {
    const { home, workspace } = await afterRun();
    await startHolder(started, home, workspace).ready;
    writeFileSync(join(workspace, 'made.txt'), 'edited by a person\n');
    const refused = await runCli(['undo', '--home', home, '--workspace', workspace]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'bastion: nothing was undone: UNDO_CONFLICT: a file changed since the run (made.txt)\n',
    );
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');

    writeFileSync(join(workspace, 'made.txt'), 'made by the run\n');
    const undone = await runCli(['undo', '--home', home, '--workspace', workspace]);
    expect(undone.code).toBe(0);
    expect(undone.stdout).toContain('restored  notes.md');
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\nbeta\n');
    // Both answers came from the holder: two undo requests on its control socket.
    const requests = readFileSync(join(home, 'logs', 'host.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"event":"control.request"') && line.includes('"method":"undo"'));
    expect(requests).toHaveLength(2);
  });
});

describe.skipIf(!canMount)('bastion undo on a full disk (skipped unless root: mounting a tmpfs needs root)', () => {
  it('says the undo stopped partway with FS_DISK_FULL naming the file, which keeps its bytes; after space is freed it finishes', async () => {
    const disk = mountTmpfs('1m');
    try {
      const { home, workspace: made, args } = scriptedRun(await startEndpoint([...SCRIPT]));
      const workspace = join(realpathSync(disk.path), 'ws');
      mkdirSync(workspace);
      writeFileSync(join(workspace, 'notes.md'), 'alpha\nbeta\n');
      const run = await runCli([...args.map((arg) => (arg === made ? workspace : arg)), 'edit the notes']);
      expect(run.code, run.stderr).toBe(0);
      const filler = join(disk.path, 'filler');
      fillDisk(filler);

      const full = await runCli(['undo', '--home', home, '--workspace', workspace]);
      expect(full.code).toBe(1);
      // Its last line; the host it started warns of the refused write before it.
      expect(full.stderr.trimEnd().split('\n').at(-1)).toBe(
        'bastion: the undo stopped partway: FS_DISK_FULL: notes.md could not be put back: the disk holding it is full; the files before it were put back — free some space; undo again to finish',
      );
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
      expect(readdirSync(workspace).sort()).toEqual(['made.txt', 'notes.md']);

      rmSync(filler);
      const undone = await runCli(['undo', '--home', home, '--workspace', workspace]);
      expect(undone.code, undone.stderr).toBe(0);
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\nbeta\n');
      expect(readdirSync(workspace)).toEqual(['notes.md']);
    } finally {
      disk.unmount();
    }
  });
});
