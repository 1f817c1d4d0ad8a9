/**
 * `bastion rewind` and chat's `/rewind` as real CLI processes against a real host and sidecar and
 * the scripted loopback endpoint: a run edits one file and creates another; rewind (its own host
 * when none runs, the running `bastion start` through its control socket when one owns the home)
 * puts them back, prints the prompt, and the next request to the model no longer holds that turn;
 * a file changed since is refused in words with nothing touched, and --keep-files still goes back.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startScriptedEndpoint, type ScriptedEndpoint, type ScriptedTurn } from '@bastion/test-support';
import { closedAfterEachTest } from '../../../test/support/per-test.js';
import { runCli, scriptedRun, startHolder, stoppedAfterEachTest } from './support/cli-process.js';

const started = stoppedAfterEachTest();
const startEndpoint = closedAfterEachTest(startScriptedEndpoint, (endpoint) => endpoint.close());

const EDIT: ScriptedTurn[] = [
  { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'beta', new_string: 'gamma' } },
  { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made by the run\n' } },
  { kind: 'text', pieces: ['Edited and made.'] },
];

/** The messages of the endpoint's latest request, as one string. */
const lastRequest = (endpoint: ScriptedEndpoint) => JSON.stringify(endpoint.seen.at(-1)?.body.messages ?? []);

/** A home and workspace where `bastion run` answered one prompt, then edited notes.md and created made.txt. */
async function afterRuns(script: ScriptedTurn[]) {
  const endpoint = await startEndpoint(script);
  const { home, workspace, args } = scriptedRun(endpoint);
  writeFileSync(join(workspace, 'notes.md'), 'alpha\nbeta\n');
  script.push({ kind: 'text', pieces: ['Hello.'] }, ...EDIT);
  expect((await runCli([...args, 'say hello'])).code).toBe(0);
  const edit = await runCli([...args, '--continue', 'edit the notes']);
  expect(edit.stderr).not.toContain('run failed');
  expect(edit.code).toBe(0);
  expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
  return { endpoint, home, workspace, args };
}

describe('bastion rewind', () => {
  it('with no Bastion running, goes back to before the newest session’s latest prompt with its files put back, and the next run does not send that turn', async () => {
    const script: ScriptedTurn[] = [];
    const { endpoint, home, workspace, args } = await afterRuns(script);
    const planned = await runCli(['rewind', '--dry-run', '--home', home, '--workspace', workspace]);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toMatch(
      /^Rewind of session ses_\S+ would take 1 turn out of the conversation, from this prompt \(run run_\S+\) on:\n {2}> edit the notes\n {2}would restore {2}notes\.md\n {2}would remove {3}made\.txt \(those turns created it\)\n$/,
    );
    expect(existsSync(join(workspace, 'made.txt'))).toBe(true);

    const rewound = await runCli(['rewind', '--home', home, '--workspace', workspace]);
    expect(rewound.stderr).toBe('');
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toMatch(
      /^Rewound session (ses_\S+): 1 turn out of the conversation, from this prompt \(run run_\S+\) on:\n {2}> edit the notes\n {2}restored {2}notes\.md\n {2}removed {3}made\.txt \(those turns created it\)\nContinue with: bastion run --session \1 PROMPT/,
    );
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\nbeta\n');
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);

    script.push({ kind: 'text', pieces: ['Fine.'] });
    expect((await runCli([...args, '--continue', 'leave the notes'])).code).toBe(0);
    expect(lastRequest(endpoint)).toContain('say hello');
    expect(lastRequest(endpoint)).toContain('leave the notes');
    expect(lastRequest(endpoint)).not.toContain('edit the notes');
    expect(lastRequest(endpoint)).not.toContain('Edited and made.');
  });

  it('through the running Bastion: a file changed since is refused as its outcome, code and reason (the outcome said once) with every file untouched, and --keep-files goes back leaving them', async () => {
    const { home, workspace } = await afterRuns([]);
    await startHolder(started, home, workspace).ready;
    writeFileSync(join(workspace, 'made.txt'), 'edited by a person\n');
    const refused = await runCli(['rewind', '--home', home, '--workspace', workspace]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'bastion: nothing was rewound: UNDO_CONFLICT: a file changed since those turns (made.txt)\n' +
        'bastion: with --keep-files the conversation alone can still go back, leaving the files as they are\n',
    );
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');

    const kept = await runCli(['rewind', '--keep-files', '--home', home, '--workspace', workspace]);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain('> edit the notes\n');
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('edited by a person\n');
    const requests = readFileSync(join(home, 'logs', 'host.log'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"event":"control.request"') && line.includes('"method":"rewind"'));
    expect(requests).toHaveLength(2);
  });
});

describe('/rewind in bastion chat', () => {
  it('takes the last prompt out of the conversation with its files put back, so the next line is sent without it', async () => {
    const script: ScriptedTurn[] = [];
    const { endpoint, workspace, args } = await afterRuns(script);
    script.push({ kind: 'text', pieces: ['Fine.'] });
    const chat = await runCli(['chat', '--continue', ...args.slice(1)], '/rewind\nleave the notes\n');
    expect(chat.code).toBe(0);
    expect(chat.stderr).toMatch(
      /Rewound session ses_\S+: 1 turn out of the conversation, from this prompt \(run run_\S+\) on:\n {2}> edit the notes\n/,
    );
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\nbeta\n');
    expect(lastRequest(endpoint)).toContain('leave the notes');
    expect(lastRequest(endpoint)).not.toContain('edit the notes');
  });

  it('a file changed since is refused as bastion rewind refuses it, the outcome said once, then how /rewind --keep-files still goes back; the file keeps its bytes', async () => {
    const { workspace, args } = await afterRuns([]);
    writeFileSync(join(workspace, 'made.txt'), 'edited by a person\n');
    const chat = await runCli(['chat', '--continue', ...args.slice(1)], '/rewind\n');
    expect(chat.code).toBe(0);
    expect(chat.stderr).toContain(
      'bastion: nothing was rewound: UNDO_CONFLICT: a file changed since those turns (made.txt)\n' +
        'bastion: with /rewind --keep-files the conversation alone can still go back, leaving the files as they are\n',
    );
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('edited by a person\n');
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
  });
});
