/**
 * Rewind (POST /agent/rewind) through the real daemon app over real HTTP with real SQLite, the
 * model a scripted MockLanguageModelV3: the rewound prompt and every turn after it are absent
 * from the next request the model receives while the stored messages stay whole; with `files`,
 * what those turns wrote is put back across runs byte for byte, and a file changed since refuses
 * the whole rewind with nothing touched and nothing rewound; the other refusals (already rewound,
 * summarised, a run going, a run of another session) leave the conversation as it was.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRewindResponse, Message, Session } from '@bastion/protocol';
import type { InProcessDaemon } from './support/in-process-daemon.js';
import type { ScriptedTurn } from './support/scripted-provider.js';
import { scriptedRuns } from './support/scripted-runs.js';
import { makeTempDir } from './support/temp-dir.js';

const { turns, prompts, isNewEnd, start } = scriptedRuns();

/** Send `message` as one run playing `script` (then a reply naming it) and wait for its end. */
async function turn(
  d: InProcessDaemon,
  sessionId: string,
  message: string,
  script: ScriptedTurn[] = [],
): Promise<string> {
  turns.push(...script, { text: `reply to ${message}` });
  const ending = d.collect(sessionId, isNewEnd);
  const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, message });
  expect(started.status).toBe(202);
  const events = await ending;
  expect(events.at(-1)?.event.type).toBe('run-finished');
  return started.body.run_id;
}

type Answer = AgentRewindResponse & { code?: string; message?: string };
function rewind(
  d: InProcessDaemon,
  sessionId: string,
  runId: string,
  options: { files?: boolean; dryRun?: boolean } = {},
) {
  return d.request<Answer>('POST', '/agent/rewind', {
    session_id: sessionId,
    run_id: runId,
    files: options.files ?? false,
    ...(options.dryRun ? { dry_run: true } : {}),
  });
}

/** The text of every message the model received in its latest request. */
const lastRequest = () => JSON.stringify(prompts.at(-1));

/** Each stored message's text, marked `(rewound)` when a rewind took it out of the conversation. */
async function storedTexts(d: InProcessDaemon, sessionId: string): Promise<string[]> {
  const page = await d.request<{ messages: Message[] }>('GET', `/sessions/${sessionId}/messages?limit=200`);
  expect(page.status).toBe(200);
  return page.body.messages.map((message) => {
    const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    return message.rewound === true ? `${text} (rewound)` : text;
  });
}

describe('rewind of a conversation', () => {
  it('takes the prompt and every later turn out of what the model is sent next, keeps them stored marked rewound, and answers the prompt’s text', async () => {
    const { d, session } = await start();
    await turn(d, session.id, 'alpha prompt');
    const beta = await turn(d, session.id, 'beta prompt');
    await turn(d, session.id, 'gamma prompt');

    const rewound = d.collect(session.id, (event) => event.type === 'context-rewound');
    const answer = await rewind(d, session.id, beta);
    expect(answer).toEqual({
      status: 200,
      body: { run_id: beta, dry_run: false, turns: 2, prompt: 'beta prompt', files: [], commands: 0 },
    });
    const event = (await rewound).at(-1)?.event;
    expect(event).toEqual({
      type: 'context-rewound',
      run_id: beta,
      turns: 2,
      files: false,
      restored: [],
      removed: [],
      not_undone: [],
      commands: 0,
    });

    await turn(d, session.id, 'beta again');
    const seen = lastRequest();
    expect(seen).toContain('alpha prompt');
    expect(seen).toContain('reply to alpha prompt');
    expect(seen).toContain('beta again');
    for (const gone of ['beta prompt', 'reply to beta prompt', 'gamma prompt', 'reply to gamma prompt']) {
      expect(seen).not.toContain(gone);
    }
    expect(await storedTexts(d, session.id)).toEqual([
      'alpha prompt',
      'reply to alpha prompt',
      'beta prompt (rewound)',
      'reply to beta prompt (rewound)',
      'gamma prompt (rewound)',
      'reply to gamma prompt (rewound)',
      'beta again',
      'reply to beta again',
    ]);
  });

  it('without a run goes back to before the latest prompt still in the conversation, then the one before it, then refuses (REWIND_RUN_NOT_FOUND)', async () => {
    const { d, session } = await start();
    const alpha = await turn(d, session.id, 'alpha prompt');
    const beta = await turn(d, session.id, 'beta prompt');
    const latest = () => d.request<Answer>('POST', '/agent/rewind', { session_id: session.id, files: true });
    expect((await latest()).body).toMatchObject({ run_id: beta, prompt: 'beta prompt', turns: 1 });
    expect((await latest()).body).toMatchObject({ run_id: alpha, prompt: 'alpha prompt', turns: 1 });
    expect(await latest()).toEqual({
      status: 404,
      body: { code: 'REWIND_RUN_NOT_FOUND', message: 'no prompt of this session is left to go back to' },
    });
  });

  it('refuses a second rewind of the same prompt (REWIND_ALREADY_DONE) and a run of another session or none (REWIND_RUN_NOT_FOUND)', async () => {
    const { d, session } = await start();
    await turn(d, session.id, 'alpha prompt');
    const beta = await turn(d, session.id, 'beta prompt');
    expect((await rewind(d, session.id, beta)).status).toBe(200);
    expect(await rewind(d, session.id, beta)).toEqual({
      status: 409,
      body: { code: 'REWIND_ALREADY_DONE', message: 'that prompt was already rewound' },
    });
    const other = await d.request<Session>('POST', '/sessions', { provider: 'mock', model: 'scripted' });
    expect((await rewind(d, other.body.id, beta)).body.code).toBe('REWIND_RUN_NOT_FOUND');
    expect((await rewind(d, session.id, 'run_AAAAAAAAAAAAAAAA')).body.code).toBe('REWIND_RUN_NOT_FOUND');
  });

  it('refuses while a run is going (RUN_ACTIVE) and records nothing: the turn is still sent to the model afterwards', async () => {
    const { d, session } = await start();
    const alpha = await turn(d, session.id, 'alpha prompt');
    turns.push({ text: 'slow ', delayMs: 20, pieces: 100 });
    const firstDelta = d.collect(session.id, (event) => event.type === 'text-delta' && event.run_id !== alpha);
    await d.request('POST', '/agent/run', { session_id: session.id, message: 'talk' });
    await firstDelta;
    const refused = await rewind(d, session.id, alpha);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('RUN_ACTIVE');
    const stopped = d.collect(session.id, isNewEnd);
    await d.request('POST', '/agent/abort', { session_id: session.id });
    await stopped;
    await turn(d, session.id, 'after the refusal');
    expect(lastRequest()).toContain('alpha prompt');
  });

  it('refuses a turn a compaction summarised (REWIND_SUMMARISED) and rewinds the exchange after the summary', async () => {
    const { d, session } = await start();
    const alpha = await turn(d, session.id, 'alpha prompt');
    const beta = await turn(d, session.id, 'beta prompt');
    turns.push({ text: 'a summary of alpha' });
    const compacted = d.collect(session.id, isNewEnd);
    expect((await d.request('POST', '/agent/run', { session_id: session.id, compact: true })).status).toBe(202);
    await compacted;
    const refused = await rewind(d, session.id, alpha);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('REWIND_SUMMARISED');
    expect((await rewind(d, session.id, beta)).status).toBe(200);
    await turn(d, session.id, 'next prompt');
    expect(lastRequest()).toContain('a summary of alpha');
    expect(lastRequest()).not.toContain('beta prompt');
  });
});

describe('rewind with the files put back', () => {
  it('puts back what every rewound turn wrote, newest run first, byte for byte, after a dry run that touched nothing', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    writeFileSync(join(ws, 'a.txt'), 'v0');
    await turn(d, session.id, 'keep this one', [{ tool: 'write_file', input: { path: 'kept.txt', content: 'kept' } }]);
    const first = await turn(d, session.id, 'first change', [
      { tool: 'write_file', input: { path: 'a.txt', content: 'v1' } },
    ]);
    await turn(d, session.id, 'second change', [
      { tool: 'edit_file', input: { path: 'a.txt', old_string: 'v1', new_string: 'v2' } },
      { tool: 'write_file', input: { path: 'made/new.txt', content: 'new' } },
    ]);

    const plan = await rewind(d, session.id, first, { files: true, dryRun: true });
    expect(plan.body).toEqual({
      run_id: first,
      dry_run: true,
      turns: 2,
      prompt: 'first change',
      files: [
        { path: 'a.txt', action: 'restore' },
        { path: 'made/new.txt', action: 'remove' },
      ],
      commands: 0,
    });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('v2');

    const rewound = d.collect(session.id, (event) => event.type === 'context-rewound');
    expect((await rewind(d, session.id, first, { files: true })).status).toBe(200);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('v0');
    expect(existsSync(join(ws, 'made'))).toBe(false);
    expect(readFileSync(join(ws, 'kept.txt'), 'utf8')).toBe('kept');
    expect((await rewound).at(-1)?.event).toMatchObject({
      files: true,
      restored: ['a.txt'],
      removed: ['made/new.txt'],
      not_undone: [],
    });
  });

  it('refuses the whole rewind with UNDO_CONFLICT when a file changed since, touching no file and rewinding nothing', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    writeFileSync(join(ws, 'a.txt'), 'v0');
    const first = await turn(d, session.id, 'first change', [
      { tool: 'write_file', input: { path: 'a.txt', content: 'v1' } },
      { tool: 'write_file', input: { path: 'b.txt', content: 'b1' } },
    ]);
    await turn(d, session.id, 'second change', [{ tool: 'write_file', input: { path: 'c.txt', content: 'c1' } }]);
    writeFileSync(join(ws, 'a.txt'), 'a person’s edit');

    const plan = await rewind(d, session.id, first, { files: true, dryRun: true });
    expect(plan.body.files).toContainEqual({ path: 'a.txt', action: 'none', reason: 'changed-since' });
    expect(await rewind(d, session.id, first, { files: true })).toEqual({
      status: 409,
      body: { code: 'UNDO_CONFLICT', message: 'nothing was rewound: a file changed since those turns (a.txt)' },
    });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('a person’s edit');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('b1');
    expect(readFileSync(join(ws, 'c.txt'), 'utf8')).toBe('c1');
    await turn(d, session.id, 'still here?');
    expect(lastRequest()).toContain('first change');
    // The conversation alone can still go back; the files stay as they are.
    expect((await rewind(d, session.id, first)).status).toBe(200);
    expect(readFileSync(join(ws, 'c.txt'), 'utf8')).toBe('c1');
  });

  it('never follows a directory swapped for a symlink out of the workspace: the file two turns wrote is refused, the outside file untouched, nothing rewound', async () => {
    const { d, session } = await start();
    const ws = d.workspace;
    mkdirSync(join(ws, 'dir'));
    writeFileSync(join(ws, 'dir/f.txt'), 'v0');
    const first = await turn(d, session.id, 'first change', [
      { tool: 'write_file', input: { path: 'dir/f.txt', content: 'v1' } },
    ]);
    await turn(d, session.id, 'second change', [{ tool: 'write_file', input: { path: 'dir/f.txt', content: 'v2' } }]);
    // The turns' directory moves away; in its place a symlink to an outside one holding the same bytes.
    const outside = makeTempDir('bastion-rewind-outside-');
    writeFileSync(join(outside, 'f.txt'), 'v2');
    renameSync(join(ws, 'dir'), join(ws, 'moved'));
    symlinkSync(outside, join(ws, 'dir'));
    try {
      expect((await rewind(d, session.id, first, { files: true })).body.code).toBe('UNDO_CONFLICT');
      expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('v2');
      expect(readFileSync(join(ws, 'moved/f.txt'), 'utf8')).toBe('v2');
      await turn(d, session.id, 'still here?');
      expect(lastRequest()).toContain('first change');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
