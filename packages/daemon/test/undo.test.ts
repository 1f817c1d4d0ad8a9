/**
 * Undo (issue 18 §6) through the real daemon app over real HTTP with real SQLite, the model a
 * scripted MockLanguageModelV3 calling write_file/edit_file: bytes restored exactly (a binary
 * file included), created files removed (with the directories the run created for them, only while empty), the refusals (changed since, run active, already undone)
 * touching nothing, the per-file and per-session bounds (not kept, pruned oldest first) saying
 * so, a directory swapped for a symlink never followed, and the model told on its next turn.
 */
import {
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentUndoResponse, Session } from '@bastion/protocol';
import type { InProcessDaemon } from './support/in-process-daemon.js';
import { scriptedRuns } from './support/scripted-runs.js';
import { makeTempDir } from './support/temp-dir.js';

const { turns, prompts, isNewEnd, start, runScript } = scriptedRuns();

function undo(d: InProcessDaemon, sessionId: string, runId: string, dryRun = false) {
  return d.request<AgentUndoResponse & { code?: string; message?: string }>('POST', '/agent/undo', {
    session_id: sessionId,
    run_id: runId,
    ...(dryRun ? { dry_run: true } : {}),
  });
}

const BINARY = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 10, 13, 0, 0x7f, 0xc3]);

describe('undo of a run', () => {
  it('restores an overwritten binary file and an edited file byte for byte, and removes a created file', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    writeFileSync(join(ws, 'logo.bin'), BINARY);
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/app.ts'), 'const a = 1;\nconst b = 2;\r\n');
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'logo.bin', content: 'text now' } },
      { tool: 'edit_file', input: { path: 'src/app.ts', old_string: 'b = 2', new_string: 'b = 3' } },
      { tool: 'edit_file', input: { path: 'src/app.ts', old_string: 'a = 1', new_string: 'a = 0' } },
      { tool: 'write_file', input: { path: 'new/created.txt', content: 'fresh' } },
    ]);
    expect(readFileSync(join(ws, 'src/app.ts'), 'utf8')).toBe('const a = 0;\nconst b = 3;\r\n');

    const plan = await undo(d, session.id, runId, true);
    expect(plan.status).toBe(200);
    expect(plan.body).toEqual({
      run_id: runId,
      dry_run: true,
      commands: 0,
      files: [
        { path: 'logo.bin', action: 'restore' },
        { path: 'src/app.ts', action: 'restore' },
        { path: join('new', 'created.txt'), action: 'remove' },
      ],
    });
    // A dry run touches nothing.
    expect(readFileSync(join(ws, 'logo.bin'), 'utf8')).toBe('text now');

    const stream = d.collect(session.id, (event) => event.type === 'run-undone');
    const done = await undo(d, session.id, runId);
    expect(done.status).toBe(200);
    expect(done.body.dry_run).toBe(false);
    expect(readFileSync(join(ws, 'logo.bin')).equals(BINARY)).toBe(true);
    expect(readFileSync(join(ws, 'src/app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\r\n');
    expect(existsSync(join(ws, 'new/created.txt'))).toBe(false);
    expect((await stream).at(-1)?.event).toEqual({
      type: 'run-undone',
      run_id: runId,
      restored: ['logo.bin', 'src/app.ts'],
      removed: [join('new', 'created.txt')],
      not_undone: [],
      commands: 0,
    });
    // The model is told on its next turn.
    turns.push({ text: 'ok' });
    const next = d.collect(session.id, isNewEnd);
    await d.request('POST', '/agent/run', { session_id: session.id, message: 'what now?' });
    await next;
    const seen = JSON.stringify(prompts.at(-1));
    expect(seen).toContain('[Bastion] The user undid the changes of an earlier run');
    expect(seen).toContain('Restored: logo.bin, src/app.ts.');
  });

  it('says a second undo of the same run was already done, and changes nothing', async () => {
    const { d, session } = await start();
    writeFileSync(join(d.workspace, 'a.txt'), 'one');
    const runId = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'a.txt', content: 'two' } }]);
    expect((await undo(d, session.id, runId)).status).toBe(200);
    writeFileSync(join(d.workspace, 'a.txt'), 'mine now');
    expect(await undo(d, session.id, runId)).toEqual({
      status: 409,
      body: { code: 'UNDO_ALREADY_DONE', message: 'this run was already undone' },
    });
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('mine now');
  });

  it('refuses with UNDO_CONFLICT naming the file changed since the run, and leaves every file untouched', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    writeFileSync(join(ws, 'a.txt'), 'a before');
    writeFileSync(join(ws, 'b.txt'), 'b before');
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'a.txt', content: 'a by run' } },
      { tool: 'write_file', input: { path: 'b.txt', content: 'b by run' } },
      { tool: 'write_file', input: { path: 'c.txt', content: 'c by run' } },
    ]);
    writeFileSync(join(ws, 'b.txt'), 'b by a person');

    const plan = await undo(d, session.id, runId, true);
    expect(plan.body.files).toEqual([
      { path: 'a.txt', action: 'restore' },
      { path: 'b.txt', action: 'none', reason: 'changed-since' },
      { path: 'c.txt', action: 'remove' },
    ]);
    expect(await undo(d, session.id, runId)).toEqual({
      status: 409,
      body: { code: 'UNDO_CONFLICT', message: 'nothing was undone: a file changed since the run (b.txt)' },
    });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('a by run');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('b by a person');
    expect(readFileSync(join(ws, 'c.txt'), 'utf8')).toBe('c by run');
    // Deleting a file the run edited is a change too.
    writeFileSync(join(ws, 'b.txt'), 'b by run');
    rmSync(join(ws, 'a.txt'));
    expect((await undo(d, session.id, runId)).body.code).toBe('UNDO_CONFLICT');
    expect(readFileSync(join(ws, 'c.txt'), 'utf8')).toBe('c by run');
    // Put back as the run left them, the undo goes through.
    writeFileSync(join(ws, 'a.txt'), 'a by run');
    expect((await undo(d, session.id, runId)).status).toBe(200);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('a before');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('b before');
    expect(existsSync(join(ws, 'c.txt'))).toBe(false);
  });

  for (const [kind, files] of [
    ['two files it overwrote (put back)', ['one.txt', 'two.txt']],
    ['two files it created (removed)', ['new-one.txt', 'new-two.txt']],
  ] as const) {
    it(`an edit the user makes while the undo runs, of ${kind}, is kept: that file is left as it is and the undo stops with UNDO_FAILED naming it`, async () => {
      let duringUndo: ((target: string) => void) | undefined;
      const act = (target: string) => {
        duringUndo?.(target);
        duringUndo = undefined;
      };
      const { d, session } = await start(undefined, (writer) => ({
        write: (target, content, call) => (act(target.requested), writer.write(target, content, call)),
        remove: (target, call) => (act(target.requested), writer.remove(target, call)),
        removeEmptyDirectory: (target, call) => writer.removeEmptyDirectory(target, call),
      }));
      const ws = d.workspace;
      for (const file of files) if (!file.startsWith('new-')) writeFileSync(join(ws, file), 'before\n');
      const runId = await runScript(
        d,
        session.id,
        files.map((path) => ({ tool: 'write_file', input: { path, content: 'the run\n' } })),
      );
      let edited = '';
      duringUndo = (first) => {
        edited = files.find((file) => file !== first) ?? '';
        writeFileSync(join(ws, edited), 'the user, meanwhile\n');
      };
      const done = await undo(d, session.id, runId);
      expect(done.body.code).toBe('UNDO_FAILED');
      expect(done.body.message).toContain(`${edited} changed while this was being done and was left as it is`);
      expect(readFileSync(join(ws, edited), 'utf8')).toBe('the user, meanwhile\n');
    });
  }

  it('deleting the session while its undo runs is refused with RUN_ACTIVE, and the undo finishes', async () => {
    let deleting: Promise<{ status: number; body: { code?: string } }> | undefined;
    let onFirst: (() => void) | undefined;
    const first = async () => {
      onFirst?.();
      onFirst = undefined;
      await deleting;
    };
    const { d, session } = await start(undefined, (writer) => ({
      write: async (target, content, call) => (await first(), writer.write(target, content, call)),
      remove: async (target, call) => (await first(), writer.remove(target, call)),
      removeEmptyDirectory: (target, call) => writer.removeEmptyDirectory(target, call),
    }));
    const runId = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'made.txt', content: 'x\n' } }]);
    onFirst = () => {
      deleting = d.request('DELETE', `/sessions/${session.id}`);
    };
    const done = await undo(d, session.id, runId);
    expect((await deleting)?.body.code).toBe('RUN_ACTIVE');
    expect(done.status).toBe(200);
    expect(existsSync(join(d.workspace, 'made.txt'))).toBe(false);
    expect((await d.request('GET', `/sessions/${session.id}`)).status).toBe(200);
  });

  it('undoes runs newest first: the older run conflicts while a later run’s bytes are there, then goes through', async () => {
    const { d, session } = await start();
    writeFileSync(join(d.workspace, 'a.txt'), 'v0');
    const first = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'a.txt', content: 'v1' } }]);
    const second = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'a.txt', content: 'v2' } }]);
    expect((await undo(d, session.id, first)).body.code).toBe('UNDO_CONFLICT');
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('v2');
    expect((await undo(d, session.id, second)).status).toBe(200);
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('v1');
    expect((await undo(d, session.id, first)).status).toBe(200);
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('v0');
  });

  it('refuses while a run is active in the session (RUN_ACTIVE), touching nothing', async () => {
    const { d, session } = await start();
    writeFileSync(join(d.workspace, 'a.txt'), 'before');
    const runId = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'a.txt', content: 'after' } }]);
    turns.push({ text: 'slow ', delayMs: 20, pieces: 200 });
    const firstDelta = d.collect(session.id, (event) => event.type === 'text-delta' && event.run_id !== runId);
    await d.request('POST', '/agent/run', { session_id: session.id, message: 'talk' });
    await firstDelta;
    const refused = await undo(d, session.id, runId);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('RUN_ACTIVE');
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('after');
    await d.request('POST', '/agent/abort', { session_id: session.id });
  });

  it('refuses an unknown run and a run of another session (UNDO_RUN_NOT_FOUND)', async () => {
    const { d, session } = await start();
    writeFileSync(join(d.workspace, 'a.txt'), 'before');
    const runId = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'a.txt', content: 'after' } }]);
    const other = await d.request<Session>('POST', '/sessions', { provider: 'mock', model: 'scripted' });
    expect((await undo(d, other.body.id, runId)).body.code).toBe('UNDO_RUN_NOT_FOUND');
    expect((await undo(d, session.id, 'run_AAAAAAAAAAAAAAAA')).body.code).toBe('UNDO_RUN_NOT_FOUND');
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('after');
  });

  it('never follows a directory swapped for a symlink out of the workspace: refused, the outside file untouched', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    mkdirSync(join(ws, 'dir'));
    writeFileSync(join(ws, 'dir/f.txt'), 'before');
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'dir/f.txt', content: 'after' } },
    ]);
    // The run's file moves away; in its place a symlink to an outside dir holding the same bytes.
    const outside = makeTempDir('bastion-undo-outside-');
    writeFileSync(join(outside, 'f.txt'), 'after');
    renameSync(join(ws, 'dir'), join(ws, 'moved'));
    symlinkSync(outside, join(ws, 'dir'));
    try {
      expect((await undo(d, session.id, runId)).body.code).toBe('UNDO_CONFLICT');
      expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('after');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe('undo of the directories a run created', () => {
  it('removes the directories the run created for its new files, deepest first, and keeps those that existed before or hold anything now', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    mkdirSync(join(ws, 'kept'));
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'kept/a/b/new.txt', content: 'one' } },
      { tool: 'write_file', input: { path: 'fresh/x/one.txt', content: 'two' } },
      { tool: 'write_file', input: { path: 'fresh/x/two.txt', content: 'three' } },
      { tool: 'write_file', input: { path: 'other/deep/f.txt', content: 'four' } },
    ]);
    // Someone else's file lands in a directory the run created.
    writeFileSync(join(ws, 'other/mine.txt'), 'mine');

    expect((await undo(d, session.id, runId)).status).toBe(200);
    expect(readdirSync(join(ws, 'kept'))).toEqual([]);
    expect(existsSync(join(ws, 'fresh'))).toBe(false);
    expect(readdirSync(join(ws, 'other'))).toEqual(['mine.txt']);
    expect(readFileSync(join(ws, 'other/mine.txt'), 'utf8')).toBe('mine');
  });

  it('removes the directories of a new file whose first write failed after the host made them and whose second went through', async () => {
    let failFirst = true;
    const { d, session } = await start(undefined, (writer) => ({
      // The first write claims a file was shown for approval: the host makes the folders, then refuses it.
      write: (target, content, call) => {
        const shownSha256 = failFirst ? 'a'.repeat(64) : call.shownSha256;
        failFirst = false;
        return writer.write(target, content, { ...call, shownSha256 });
      },
      remove: (target, call) => writer.remove(target, call),
      removeEmptyDirectory: (target, call) => writer.removeEmptyDirectory(target, call),
    }));
    const ws = d.workspace;
    const write = { tool: 'write_file', input: { path: 'fresh/x/new.txt', content: 'one' } } as const;
    turns.push(write, write, { text: 'done' });
    const ending = d.collect(session.id, isNewEnd);
    const started = await d.request<{ run_id: string }>('POST', '/agent/run', {
      session_id: session.id,
      message: 'go',
    });
    const results = (await ending).flatMap(({ event }) => (event.type === 'tool-result' ? [event] : []));
    expect(results.map((result) => (result.output as { code?: string }).code)).toEqual([
      'FS_CHANGED_SINCE_SHOWN',
      undefined,
    ]);
    expect(readFileSync(join(ws, 'fresh/x/new.txt'), 'utf8')).toBe('one');

    expect((await undo(d, session.id, started.body.run_id)).status).toBe(200);
    expect(readdirSync(ws)).toEqual([]);
  });

  it('leaves a directory that existed before the run, even when the run leaves it empty', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    mkdirSync(join(ws, 'empty/inner'), { recursive: true });
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'empty/inner/new.txt', content: 'x' } },
    ]);
    expect((await undo(d, session.id, runId)).status).toBe(200);
    expect(existsSync(join(ws, 'empty/inner/new.txt'))).toBe(false);
    expect(lstatSync(join(ws, 'empty/inner')).isDirectory()).toBe(true);
  });
});

describe('undo storage bounds', () => {
  it('marks a file whose earlier version is over the per-file bound not undoable, and undoes the rest', async () => {
    const { d, session } = await start({ maxFileBytes: 100, maxSessionBytes: 1_000 });
    writeFileSync(join(d.workspace, 'big.txt'), 'x'.repeat(101));
    writeFileSync(join(d.workspace, 'small.txt'), 'small');
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'big.txt', content: 'replaced' } },
      { tool: 'write_file', input: { path: 'small.txt', content: 'replaced' } },
    ]);
    expect((await undo(d, session.id, runId, true)).body.files).toEqual([
      { path: 'big.txt', action: 'none', reason: 'too-large' },
      { path: 'small.txt', action: 'restore' },
    ]);
    const stream = d.collect(session.id, (event) => event.type === 'run-undone');
    expect((await undo(d, session.id, runId)).status).toBe(200);
    expect(readFileSync(join(d.workspace, 'small.txt'), 'utf8')).toBe('small');
    expect(readFileSync(join(d.workspace, 'big.txt'), 'utf8')).toBe('replaced');
    expect((await stream).at(-1)?.event).toMatchObject({ restored: ['small.txt'], not_undone: ['big.txt'] });
  });

  it('prunes the oldest run’s copies first when the session’s budget is full, and that run then says so', async () => {
    const { d, session } = await start({ maxFileBytes: 600, maxSessionBytes: 1_000 });
    for (const name of ['a', 'b', 'c']) writeFileSync(join(d.workspace, `${name}.txt`), name.repeat(500));
    const first = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'a.txt', content: '1' } }]);
    const second = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'b.txt', content: '2' } }]);
    const third = await runScript(d, session.id, [{ tool: 'write_file', input: { path: 'c.txt', content: '3' } }]);
    // 500 + 500 fit; the third copy pruned the first run, the oldest.
    expect((await undo(d, session.id, first, true)).body.files).toEqual([
      { path: 'a.txt', action: 'none', reason: 'pruned' },
    ]);
    expect(await undo(d, session.id, first)).toEqual({
      status: 409,
      body: { code: 'UNDO_NOTHING', message: 'no file of this run can be undone: no earlier copy was kept (a.txt)' },
    });
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('1');
    expect((await undo(d, session.id, second)).status).toBe(200);
    expect((await undo(d, session.id, third)).status).toBe(200);
    expect(readFileSync(join(d.workspace, 'b.txt'), 'utf8')).toBe('b'.repeat(500));
    expect(readFileSync(join(d.workspace, 'c.txt'), 'utf8')).toBe('c'.repeat(500));
  });

  it('does not keep a copy that cannot fit even after pruning: the run’s own earlier copies are never pruned', async () => {
    const { d, session } = await start({ maxFileBytes: 600, maxSessionBytes: 1_000 });
    for (const name of ['a', 'b']) writeFileSync(join(d.workspace, `${name}.txt`), name.repeat(600));
    const runId = await runScript(d, session.id, [
      { tool: 'write_file', input: { path: 'a.txt', content: '1' } },
      { tool: 'write_file', input: { path: 'b.txt', content: '2' } },
    ]);
    expect((await undo(d, session.id, runId, true)).body.files).toEqual([
      { path: 'a.txt', action: 'restore' },
      { path: 'b.txt', action: 'none', reason: 'too-large' },
    ]);
  });
});
