/**
 * `GET /sessions/:id/changes` through the real daemon app over real HTTP with real SQLite, the
 * model a scripted MockLanguageModelV3 calling write_file/edit_file: each file the session's
 * runs wrote, from before the first of them to now (later runs and the user's own edits
 * included), with a bounded diff; files back as they were and runs undone left out; a file whose
 * earlier version was not kept, one now binary and a link out of the workspace in a file's place
 * listed without a diff (nothing of the link's target read).
 */
import { symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionChangesResponse } from '@bastion/protocol';
import type { InProcessDaemon } from './support/in-process-daemon.js';
import { scriptedRuns } from './support/scripted-runs.js';
import { makeTempDir } from './support/temp-dir.js';

const { start, runScript } = scriptedRuns();

const changes = (d: InProcessDaemon, sessionId: string) =>
  d.request<SessionChangesResponse & { code?: string }>('GET', `/sessions/${sessionId}/changes`);

describe("a session's changes", () => {
  it('lists each file from before the first run that wrote it to now, with its diff and counts, in first-write order', async () => {
    const { d, session } = await start();
    writeFileSync(join(d.workspace, 'app.ts'), 'const a = 1;\nconst b = 2;\n');
    writeFileSync(join(d.workspace, 'gone.txt'), 'soon gone\n');
    await runScript(d, session.id, [
      { tool: 'edit_file', input: { path: 'app.ts', old_string: 'a = 1', new_string: 'a = 10' } },
      { tool: 'write_file', input: { path: 'docs/new.md', content: '# New\n' } },
      { tool: 'write_file', input: { path: 'gone.txt', content: 'rewritten\n' } },
    ]);
    await runScript(d, session.id, [
      { tool: 'edit_file', input: { path: 'app.ts', old_string: 'b = 2', new_string: 'b = 20' } },
    ]);
    // The user's own change after the runs counts too: the answer is what the files hold now.
    unlinkSync(join(d.workspace, 'gone.txt'));

    const answer = await changes(d, session.id);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ session_id: session.id, more: 0, commands: 0 });
    expect(answer.body.files).toEqual([
      {
        path: 'app.ts',
        status: 'modified',
        diff: expect.stringContaining('-const a = 1;\n-const b = 2;\n+const a = 10;\n+const b = 20;\n') as string,
        additions: 2,
        deletions: 2,
      },
      {
        path: 'docs/new.md',
        status: 'added',
        diff: expect.stringContaining('--- /dev/null\n+++ b/docs/new.md\n') as string,
        additions: 1,
        deletions: 0,
      },
      {
        path: 'gone.txt',
        status: 'deleted',
        diff: expect.stringContaining('--- a/gone.txt\n+++ /dev/null\n') as string,
        additions: 0,
        deletions: 1,
      },
    ]);
  });

  it('counts a removed line that starts with "-- " and an added line that starts with "++ " as a deletion and an addition', async () => {
    const { d, session } = await start();
    writeFileSync(join(d.workspace, 'schema.sql'), '-- old comment\nSELECT 1;\n');
    await runScript(d, session.id, [
      { tool: 'edit_file', input: { path: 'schema.sql', old_string: '-- old comment', new_string: '++ new line' } },
    ]);

    const [file] = (await changes(d, session.id)).body.files;
    expect(file?.diff).toContain('\n--- old comment\n+++ new line\n');
    expect(file).toMatchObject({ path: 'schema.sql', status: 'modified', additions: 1, deletions: 1 });
  });

  it('leaves out a file written back as it was and the files of a run undone', async () => {
    const { d, session } = await start();
    writeFileSync(join(d.workspace, 'same.txt'), 'one\n');
    await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'same.txt', content: 'two\n' } },
      { tool: 'write_file', input: { path: 'same.txt', content: 'one\n' } },
    ]);
    const undone = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'undone.txt', content: 'x\n' } },
    ]);
    expect((await d.request('POST', '/agent/undo', { session_id: session.id, run_id: undone })).status).toBe(200);

    expect((await changes(d, session.id)).body.files).toEqual([]);
  });

  it("still lists, without a diff, a file an undone run wrote whose earlier version it did not keep (its undo could not put it back); the run's kept file is gone from the list", async () => {
    const { d, session } = await start({ maxFileBytes: 16 });
    writeFileSync(join(d.workspace, 'small.txt'), 'small\n');
    writeFileSync(join(d.workspace, 'big.txt'), 'more than sixteen bytes of text\n');
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'small.txt', content: 'changed\n' } },
      { tool: 'write_file', input: { path: 'big.txt', content: 'short\n' } },
    ]);
    const undone = await d.request<{ files: { path: string; action: string }[] }>('POST', '/agent/undo', {
      session_id: session.id,
      run_id: runId,
    });
    expect(undone.body.files).toEqual([
      { path: 'small.txt', action: 'restore' },
      { path: 'big.txt', action: 'none', reason: 'too-large' },
    ]);

    expect((await changes(d, session.id)).body.files).toEqual([
      { path: 'big.txt', status: 'modified', no_diff: 'not-kept' },
    ]);
  });

  it('lists without a diff a file whose earlier version was not kept, one now binary, and a link out of the workspace in a file’s place, reading nothing of its target', async () => {
    const { d, session } = await start({ maxFileBytes: 16 });
    const outside = makeTempDir();
    writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE-CANARY\n');
    writeFileSync(join(d.workspace, 'big.txt'), 'more than sixteen bytes of text\n');
    await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'big.txt', content: 'short\n' } },
      { tool: 'write_file', input: { path: 'bin.dat', content: 'text\n' } },
      { tool: 'write_file', input: { path: 'linked.txt', content: 'text\n' } },
    ]);
    writeFileSync(join(d.workspace, 'bin.dat'), Buffer.from([0, 1, 2, 0xff]));
    unlinkSync(join(d.workspace, 'linked.txt'));
    symlinkSync(join(outside, 'secret.txt'), join(d.workspace, 'linked.txt'));

    const answer = await changes(d, session.id);
    expect(answer.body.files).toEqual([
      { path: 'big.txt', status: 'modified', no_diff: 'not-kept' },
      { path: 'bin.dat', status: 'added', no_diff: 'binary' },
      { path: 'linked.txt', status: 'added', no_diff: 'unreadable' },
    ]);
    expect(JSON.stringify(answer.body)).not.toContain('OUTSIDE-CANARY');
  });

  it('answers 404 SESSION_NOT_FOUND for a session that does not exist', async () => {
    const { d } = await start();
    expect(await changes(d, 'ses_0000000000000000')).toMatchObject({
      status: 404,
      body: { code: 'SESSION_NOT_FOUND' },
    });
  });
});
