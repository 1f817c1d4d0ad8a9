/**
 * Runs through the real daemon app (perimeter, routes, SQLite) over real HTTP, with
 * MockLanguageModelV3 models: streaming and persistence, Last-Event-ID resume, two sessions at
 * once, abort mid-stream, and the refusals of bad input.
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT_MAX_CONCURRENT_RUNS,
  EVENT_PAGE_MAX_LIMIT,
  type AgentEvent,
  type EventPageResponse,
  type Message,
  type Session,
} from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { MOCK_USAGE as usage, textStream } from './support/mock-streams.js';

/** `words-N-D`: N words, D ms apart. `tool`: read README.md, then say "done". */
const mockProvider: ProviderDefinition = {
  id: 'mock',
  label: 'mock',
  defaultModel: 'tool',
  create: (modelId) =>
    new MockLanguageModelV3({
      doStream: ({ prompt }) => {
        const words = /^words-(\d+)-(\d+)$/.exec(modelId);
        if (words) {
          const count = Number(words[1]);
          return Promise.resolve({
            stream: textStream(
              Array.from({ length: count }, (_, i) => `w${i} `),
              Number(words[2]),
            ),
          });
        }
        if (prompt.at(-1)?.role === 'tool') return Promise.resolve({ stream: textStream(['done'], 0) });
        return Promise.resolve({
          stream: simulateReadableStream<LanguageModelV3StreamPart>({
            chunks: [
              {
                type: 'tool-call',
                toolCallId: 'call-1',
                toolName: 'read_file',
                input: JSON.stringify({ path: 'README.md' }),
              },
              { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
            ],
          }),
        });
      },
    }),
};

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

async function start(): Promise<InProcessDaemon> {
  daemon = await startInProcessDaemon({ providers: [mockProvider] });
  writeFileSync(join(daemon.workspace, 'README.md'), '# Sample\nline two\n');
  return daemon;
}

async function newSession(d: InProcessDaemon, model: string): Promise<Session> {
  const created = await d.request<Session>('POST', '/sessions', { provider: 'mock', model });
  expect(created.status).toBe(201);
  return created.body;
}

const isEnd = (event: AgentEvent) => event.type === 'run-finished' || event.type === 'run-error';

async function runToEnd(d: InProcessDaemon, sessionId: string, message: string) {
  const collecting = d.collect(sessionId, isEnd);
  const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, message });
  expect(started.status).toBe(202);
  const events = await collecting;
  return { runId: started.body.run_id, events };
}

describe('agent runs', () => {
  it('streams a tool-using run and persists every event and message', async () => {
    const d = await start();
    const session = await newSession(d, 'tool');
    const { runId, events } = await runToEnd(d, session.id, 'read the readme');
    expect(events.map((e) => e.event.type)).toEqual([
      'run-started',
      'tool-call',
      'tool-result',
      'text-delta',
      'run-finished',
    ]);
    expect(events.every((e) => e.event.run_id === runId)).toBe(true);
    const ids = events.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(events[2]?.event).toMatchObject({
      type: 'tool-result',
      tool_name: 'read_file',
      is_error: false,
      output: { content: '# Sample\nline two\n' },
    });
    expect(events[4]?.event).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });

    // a fresh client sees the same run from the store
    expect(await d.collect(session.id, isEnd)).toEqual(events);

    const messages = await d.request<{ messages: Message[] }>('GET', `/sessions/${session.id}/messages`);
    expect(messages.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(messages.body.messages[0]?.parts).toEqual([{ type: 'text', text: 'read the readme' }]);
    expect(messages.body.messages[3]?.parts).toEqual([{ type: 'text', text: 'done' }]);
    const fetched = await d.request<Session>('GET', `/sessions/${session.id}`);
    expect(fetched.body.last_run).toEqual({ id: runId, status: 'finished' });

    // the event log, newest page first, carries the same events and the prompt its run-started names
    const page = await d.request<EventPageResponse>('GET', `/sessions/${session.id}/events`);
    expect(page.body.events).toEqual(events);
    expect(page.body.messages).toEqual([messages.body.messages[0]]);
    expect(page.body.next).toBeNull();
  });

  it('resumes after Last-Event-ID with nothing lost and nothing repeated, mid-run', async () => {
    const d = await start();
    const session = await newSession(d, 'words-40-15');
    const firstPart = d.collect(session.id, (e) => e.type === 'text-delta' && e.text === 'w4 ');
    await d.request('POST', '/agent/run', { session_id: session.id, message: 'go' });
    const before = await firstPart;
    const after = await d.collect(session.id, isEnd, before.at(-1)?.id);
    const all = [...before, ...after];
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    const text = all.map((e) => (e.event.type === 'text-delta' ? e.event.text : '')).join('');
    expect(text).toBe(Array.from({ length: 40 }, (_, i) => `w${i} `).join(''));
    expect(all.at(-1)?.event.type).toBe('run-finished');
  });

  it(`refuses a run past ${AGENT_MAX_CONCURRENT_RUNS} going at once with RUN_LIMIT saying the limit and what to do, storing nothing; once one ends, it starts`, async () => {
    const d = await start();
    const going = [];
    for (let index = 0; index < AGENT_MAX_CONCURRENT_RUNS; index += 1) {
      const session = await newSession(d, 'words-200-10');
      const started = await d.request('POST', '/agent/run', { session_id: session.id, message: `run ${index}` });
      expect(started.status).toBe(202);
      going.push(session);
    }
    const extra = await newSession(d, 'tool');
    const refused = await d.request('POST', '/agent/run', { session_id: extra.id, message: 'one more' });
    expect(refused).toEqual({
      status: 429,
      body: {
        code: 'RUN_LIMIT',
        message: `${AGENT_MAX_CONCURRENT_RUNS} runs are going in other sessions, the most at once: let one finish or stop one, then send again`,
      },
    });
    const messages = await d.request<{ messages: Message[] }>('GET', `/sessions/${extra.id}/messages`);
    expect(messages.body.messages).toEqual([]);
    const first = going[0] as Session;
    const ended = d.collect(first.id, isEnd);
    expect(await d.request('POST', '/agent/abort', { session_id: first.id })).toEqual({
      status: 200,
      body: { aborted: true },
    });
    await ended;
    const events = await runToEnd(d, extra.id, 'one more');
    expect(events.events.at(-1)?.event.type).toBe('run-finished');
    for (const session of going.slice(1)) await d.request('POST', '/agent/abort', { session_id: session.id });
  });

  it('runs two sessions at once, each stream carrying only its own run', async () => {
    const d = await start();
    const a = await newSession(d, 'words-30-10');
    const b = await newSession(d, 'words-30-10');
    const [runA, runB] = await Promise.all([runToEnd(d, a.id, 'a'), runToEnd(d, b.id, 'b')]);
    for (const run of [runA, runB]) {
      expect(run.events.every((e) => e.event.run_id === run.runId)).toBe(true);
      expect(run.events.filter((e) => e.event.type === 'text-delta')).toHaveLength(30);
      expect(run.events.at(-1)?.event.type).toBe('run-finished');
    }
    // the runs overlapped: b started before a finished
    const aEnd = runA.events.at(-1)!.id;
    expect(runB.events[0]!.id).toBeLessThan(aEnd);
  });

  it('refuses a second run while one is active (409 RUN_ACTIVE), writing nothing', async () => {
    const d = await start();
    const session = await newSession(d, 'words-50-20');
    const collecting = d.collect(session.id, isEnd);
    await d.request('POST', '/agent/run', { session_id: session.id, message: 'first' });
    const second = await d.request('POST', '/agent/run', { session_id: session.id, message: 'second' });
    expect(second).toEqual({
      status: 409,
      body: { code: 'RUN_ACTIVE', message: 'a run is already active for this session' },
    });
    await collecting;
    const messages = await d.request<{ messages: Message[] }>('GET', `/sessions/${session.id}/messages`);
    expect(messages.body.messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('aborts mid-stream: run-error RUN_ABORTED, run marked aborted, the session usable again', async () => {
    const d = await start();
    const session = await newSession(d, 'words-500-20');
    const firstDelta = d.collect(session.id, (e) => e.type === 'text-delta');
    await d.request('POST', '/agent/run', { session_id: session.id, message: 'long' });
    await firstDelta;
    expect(await d.request('POST', '/agent/abort', { session_id: session.id })).toEqual({
      status: 200,
      body: { aborted: true },
    });
    const events = await d.collect(session.id, isEnd);
    expect(events.at(-1)?.event).toMatchObject({ type: 'run-error', code: 'RUN_ABORTED' });
    expect(events.filter((e) => e.event.type === 'text-delta').length).toBeLessThan(500);
    const fetched = await d.request<Session>('GET', `/sessions/${session.id}`);
    expect(fetched.body.last_run?.status).toBe('aborted');
    await d.request('PATCH', `/sessions/${session.id}`, { model: 'words-2-0' });
    const again = await d.request('POST', '/agent/run', { session_id: session.id, message: 'again' });
    expect(again.status).toBe(202);
  });
});

describe('session updates', () => {
  it('POST /sessions without a provider starts on the default for new sessions, with only a model on that model of its provider; a default whose provider is gone is refused, making nothing', async () => {
    daemon = await startInProcessDaemon({
      providers: [mockProvider],
      defaultModel: () => Promise.resolve({ provider: 'mock', model: 'words-2-0' }),
    });
    expect((await daemon.request<Session>('POST', '/sessions', {})).body).toMatchObject({
      provider: 'mock',
      model: 'words-2-0',
    });
    expect((await daemon.request<Session>('POST', '/sessions', { model: 'tool' })).body).toMatchObject({
      provider: 'mock',
      model: 'tool',
    });
    await daemon.stop();
    daemon.cleanup();

    daemon = await startInProcessDaemon({
      providers: [mockProvider],
      defaultModel: () => Promise.resolve({ provider: 'endpoint-gone', model: 'old-model' }),
    });
    expect(await daemon.request('POST', '/sessions', {})).toEqual({
      status: 400,
      body: {
        code: 'PROVIDER_UNKNOWN',
        message:
          'the default model for new sessions is not available now (its key or endpoint is gone): choose another',
      },
    });
    expect((await daemon.request<{ sessions: unknown[] }>('GET', '/sessions')).body.sessions).toEqual([]);
    expect((await daemon.request<Session>('POST', '/sessions', { provider: 'mock' })).status).toBe(201);
  });

  it('PATCH with a provider and no model moves the session to that provider’s default model; with a model, to that one', async () => {
    const d = await start();
    const created = await d.request<Session>('POST', '/sessions', {});
    expect(created.body.provider).not.toBe('mock');
    const moved = await d.request<Session>('PATCH', `/sessions/${created.body.id}`, { provider: 'mock' });
    expect(moved.body).toMatchObject({ provider: 'mock', model: 'tool' });
    const chosen = await d.request<Session>('PATCH', `/sessions/${created.body.id}`, {
      provider: 'mock',
      model: 'words-2-0',
    });
    expect(chosen.body).toMatchObject({ provider: 'mock', model: 'words-2-0' });
    const retitled = await d.request<Session>('PATCH', `/sessions/${created.body.id}`, { title: 'kept model' });
    expect(retitled.body).toMatchObject({ provider: 'mock', model: 'words-2-0', title: 'kept model' });
  });
});

describe('session titles', () => {
  it('names a session after its first message’s first non-blank line (cut to 80), and keeps that title and a rename through later runs', async () => {
    const d = await start();
    const session = await newSession(d, 'words-1-0');
    await runToEnd(d, session.id, `\n   ${'x'.repeat(100)}  \nsecond line`);
    const titled = (await d.request<Session>('GET', `/sessions/${session.id}`)).body.title;
    expect(titled).toBe(`${'x'.repeat(79)}…`);
    await runToEnd(d, session.id, 'another message');
    expect((await d.request<Session>('GET', `/sessions/${session.id}`)).body.title).toBe(titled);

    const renamed = await newSession(d, 'words-1-0');
    await d.request('PATCH', `/sessions/${renamed.id}`, { title: 'my own name' });
    await runToEnd(d, renamed.id, 'first message');
    expect((await d.request<Session>('GET', `/sessions/${renamed.id}`)).body.title).toBe('my own name');
  });
});

describe('bad input', () => {
  it('unknown session → 404 SESSION_NOT_FOUND on every session route', async () => {
    const d = await start();
    const missing = 'ses_AAAAAAAAAAAAAAAA';
    for (const [method, path, body] of [
      ['GET', `/sessions/${missing}`, undefined],
      ['PATCH', `/sessions/${missing}`, { title: 'x' }],
      ['DELETE', `/sessions/${missing}`, undefined],
      ['GET', `/sessions/${missing}/messages`, undefined],
      ['GET', `/sessions/${missing}/events`, undefined],
      ['GET', `/sessions/not-an-id`, undefined],
      ['POST', '/agent/run', { session_id: missing, message: 'hi' }],
      ['POST', '/agent/abort', { session_id: missing }],
      ['GET', `/agent/stream/${missing}`, undefined],
    ] as const) {
      const response = await d.request(method, path, body);
      expect(response, `${method} ${path}`).toEqual({
        status: 404,
        body: { code: 'SESSION_NOT_FOUND', message: 'no such session' },
      });
    }
  });

  it('malformed bodies → 400 naming the field, never echoing values or unknown keys', async () => {
    const d = await start();
    const session = await newSession(d, 'tool');
    expect(await d.request('PATCH', `/sessions/${session.id}`, { mode: 'yolo' })).toEqual({
      status: 400,
      body: { code: 'BAD_REQUEST', message: 'invalid field: mode' },
    });
    expect(await d.request('POST', '/agent/run', { session_id: session.id, message: 42 })).toEqual({
      status: 400,
      body: { code: 'BAD_REQUEST', message: 'invalid field: message' },
    });
    const unknownKey = await d.request('POST', '/sessions', { 'CANARY-key': 1 });
    expect(unknownKey).toEqual({ status: 400, body: { code: 'BAD_REQUEST', message: 'unknown field' } });
    expect(await d.request('POST', '/sessions', '{not json')).toEqual({
      status: 400,
      body: { code: 'BAD_REQUEST', message: 'body is not valid JSON' },
    });
    expect((await d.request('GET', `/agent/stream/${session.id}`, undefined, { 'last-event-id': 'abc' })).status).toBe(
      400,
    );
    for (const query of [`limit=${EVENT_PAGE_MAX_LIMIT + 1}`, 'limit=0', 'cursor=abc', 'cursor=0', 'before=5']) {
      expect((await d.request('GET', `/sessions/${session.id}/events?${query}`)).status, query).toBe(400);
    }
    expect(await d.request('POST', '/sessions', { workspace: '/etc' })).toMatchObject({
      status: 403,
      body: { code: 'WORKSPACE_NOT_GRANTED' },
    });
  });

  it('a message over the limit → 413 naming its length and the limit, and nothing is stored', async () => {
    const d = await start();
    const session = await newSession(d, 'tool');
    const response = await d.request('POST', '/agent/run', {
      session_id: session.id,
      message: 'x'.repeat(64 * 1024 + 1),
    });
    expect(response).toEqual({
      status: 413,
      body: {
        code: 'MESSAGE_TOO_LARGE',
        message:
          'the message is 65537 characters, over the limit of 65536; put long text in a file in the workspace and mention its path',
      },
    });
    const messages = await d.request<{ messages: Message[] }>('GET', `/sessions/${session.id}/messages`);
    expect(messages.body.messages).toEqual([]);
    expect((await d.request<Session>('GET', `/sessions/${session.id}`)).body.last_run).toBeNull();
  });

  it('switching to auto records who consented and when', async () => {
    const d = await start();
    const session = await newSession(d, 'tool');
    const auto = await d.request<Session>('PATCH', `/sessions/${session.id}`, { mode: 'auto', consent_by: 'cli' });
    expect(auto.body.mode).toBe('auto');
    expect(auto.body.auto_consent?.by).toBe('cli');
    expect(Date.parse(auto.body.auto_consent?.at ?? '')).not.toBeNaN();
  });
});

describe('workspace routes', () => {
  it('reads and lists inside the granted root', async () => {
    const d = await start();
    const read = await d.request('POST', '/workspaces/read-file', { root: d.workspace, path: 'README.md' });
    expect(read).toEqual({ status: 200, body: { content: '# Sample\nline two\n', size: 18, truncated: false } });
    const list = await d.request('POST', '/workspaces/list');
    expect(list.body).toEqual({ workspaces: [{ root: d.workspace, name: 'workspace' }] });
  });

  it('refuses paths outside with 403 FS_OUTSIDE_WORKSPACE without echoing the resolved path', async () => {
    const d = await start();
    writeFileSync(join(d.root, 'secret.txt'), 'CANARY-outside-4471');
    for (const body of [
      { root: d.workspace, path: '../secret.txt' },
      { root: d.workspace, path: join(d.root, 'secret.txt') },
      { root: d.root, path: 'secret.txt' },
    ]) {
      const response = await d.request('POST', '/workspaces/read-file', body);
      expect(response).toEqual({
        status: 403,
        body: { code: 'FS_OUTSIDE_WORKSPACE', message: 'path is outside the workspace' },
      });
    }
  });

  it('refuses protected writes with 403 FS_PROTECTED, keeping the bytes', async () => {
    const d = await start();
    writeFileSync(join(d.workspace, '.env'), 'TOKEN=original');
    const response = await d.request('POST', '/workspaces/write-file', {
      root: d.workspace,
      path: '.env',
      content: 'TOKEN=evil',
    });
    expect(response).toEqual({
      status: 403,
      body: { code: 'FS_PROTECTED', message: 'path is protected and cannot be written' },
    });
    expect(readFileSync(join(d.workspace, '.env'), 'utf8')).toBe('TOKEN=original');
    const ok = await d.request('POST', '/workspaces/write-file', {
      root: d.workspace,
      path: 'docs/new.md',
      content: 'hi',
    });
    expect(ok).toEqual({ status: 200, body: { bytes: 2, created: true } });
    expect(existsSync(join(d.workspace, 'docs', 'new.md'))).toBe(true);
  });
});
