/**
 * A provider's tool-call ids are not trusted to be unique in a session (agent/tool-call-ids.ts).
 * Through the real daemon app with real SQLite: a loopback OpenAI-compatible server that, like
 * some llama.cpp and Ollama versions, answers `call_0` for every call (two turns, each asking an
 * approval), a model making two calls of one step under one id, and the demo model after
 * `/compact` and a run stopped at an approval (the reviewer's session: `demo-call-10` stored
 * twice, every later message PROVIDER_FAILED). Each call gets Bastion's own id, so the second
 * approval is asked and the next message gets a reply, and the rows stay consistent: every stored
 * call has its own id and one result, every approval its own call. A session such a reuse already
 * damaged (a stored call without a result) answers again, and a run its stored messages cannot
 * make a request of ends TRANSCRIPT_INVALID, saying what to do.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, Session } from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { MOCK_USAGE, textStream } from './support/mock-streams.js';
import { scriptedProvider } from './support/scripted-provider.js';

let daemon: InProcessDaemon | undefined;
let server: Server | undefined;
const scripted = scriptedProvider();
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  scripted.turns.length = 0;
  scripted.prompts.length = 0;
});

async function newSession(d: InProcessDaemon, provider: string, model: string): Promise<string> {
  const body = { provider, model, workspace: d.workspace, ask_before_writes: true };
  return (await d.request<Session>('POST', '/sessions', body)).body.id;
}

/** Start a run (a message, an approval's answer, `/compact`) and follow it to its end: its events. */
async function send(d: InProcessDaemon, sessionId: string, body: Record<string, unknown>): Promise<AgentEvent[]> {
  const after = d.runtime.store.runs.eventsAfter(sessionId, 0, 100_000).at(-1)?.id ?? 0;
  const started = await d.request<{ run_id: string | null }>('POST', '/agent/run', { session_id: sessionId, ...body });
  expect(started.status).toBe(202);
  const runId = started.body.run_id;
  if (runId === null) return [];
  const events = await d.collect(
    sessionId,
    (event) => (event.type === 'run-finished' || event.type === 'run-error') && event.run_id === runId,
    after,
  );
  return events.map(({ event }) => event);
}

/** Send `message`; answer each approval it asks with yes; the events of the last run. */
async function sendApproving(d: InProcessDaemon, sessionId: string, message: string): Promise<AgentEvent[]> {
  let events = await send(d, sessionId, { message });
  for (let asked = approvalOf(events); asked; asked = approvalOf(events)) {
    const answer = { approval_id: asked.approval_id, tool_call_id: asked.tool_call_id, approved: true };
    events = await send(d, sessionId, { approval_answer: answer });
  }
  return events;
}

function approvalOf(events: AgentEvent[]) {
  const asked = events.find((event) => event.type === 'tool-approval-request');
  return asked?.type === 'tool-approval-request' ? asked : undefined;
}

const replyOf = (events: AgentEvent[]) =>
  events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');

/** The ids of the session's stored tool calls, of their results and of its approvals' calls, in order. */
function storedIds(d: InProcessDaemon, sessionId: string) {
  const db = d.runtime.store.writer.db;
  const calls: string[] = [];
  const results: string[] = [];
  const rows = db.prepare('SELECT content FROM messages WHERE session_id = ? ORDER BY seq').all(sessionId);
  for (const { content } of rows as { content: string }[]) {
    const parts = JSON.parse(content) as { type: string; toolCallId?: string }[] | string;
    if (typeof parts === 'string') continue;
    for (const part of parts) {
      if (part.type === 'tool-call') calls.push(part.toolCallId ?? '');
      if (part.type === 'tool-result') results.push(part.toolCallId ?? '');
    }
  }
  const approvals = (
    db.prepare('SELECT tool_call_id FROM approvals WHERE session_id = ? ORDER BY rowid').all(sessionId) as {
      tool_call_id: string;
    }[]
  ).map((row) => row.tool_call_id);
  return { calls, results, approvals };
}

/** Every stored call has an id of its own and exactly one result; every approval is of its own call. */
function expectConsistent(d: InProcessDaemon, sessionId: string, counts: { calls: number; approvals: number }) {
  const { calls, results, approvals } = storedIds(d, sessionId);
  expect(calls).toHaveLength(counts.calls);
  expect(new Set(calls).size).toBe(calls.length);
  expect([...results].sort()).toEqual([...calls].sort());
  expect(approvals).toHaveLength(counts.approvals);
  expect(new Set(approvals).size).toBe(approvals.length);
  for (const id of approvals) expect(calls).toContain(id);
}

/** A loopback OpenAI-compatible chat server naming every tool call `call_0`; the bodies it got. */
async function callZeroServer(): Promise<{ provider: ProviderDefinition; bodies: string[] }> {
  const bodies: string[] = [];
  const call = (name: string, args: object) => ({
    index: 0,
    id: 'call_0',
    type: 'function',
    function: { name, arguments: JSON.stringify(args) },
  });
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      bodies.push(body);
      const last = (JSON.parse(body) as { messages: { role: string; content: unknown }[] }).messages.at(-1);
      const text = last?.role === 'user' && typeof last.content === 'string' ? last.content : '';
      const write = /^write (\S+)$/.exec(text);
      const delta = write
        ? { tool_calls: [call('write_file', { path: write[1], content: `${write[1]}\n` })] }
        : { content: `reply ${bodies.length}` };
      const chunk = {
        id: `chat-${bodies.length}`,
        object: 'chat.completion.chunk',
        created: 1,
        model: 'local-model',
        choices: [
          {
            index: 0,
            delta: { role: 'assistant', ...delta },
            finish_reason: 'tool_calls' in delta ? 'tool_calls' : 'stop',
          },
        ],
      };
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const provider: ProviderDefinition = {
    id: 'local',
    label: 'local (loopback OpenAI-compatible server)',
    defaultModel: 'local-model',
    create: (modelId) => createOpenAICompatible({ name: 'local', baseURL, fetch: globalThis.fetch }).chatModel(modelId),
  };
  return { provider, bodies };
}

/** A model answering `write both` with two write_file calls, both `call_0`, and the rest `done`. */
const sameIdProvider: ProviderDefinition = {
  id: 'same-id',
  label: 'same-id',
  defaultModel: 'twice',
  create: () =>
    new MockLanguageModelV3({
      doStream: ({ prompt }) => {
        const write = (path: string): LanguageModelV3StreamPart => ({
          type: 'tool-call',
          toolCallId: 'call_0',
          toolName: 'write_file',
          input: JSON.stringify({ path, content: `${path[0]}\n` }),
        });
        const last = prompt.at(-1);
        const stream =
          last?.role === 'user' && last.content.some((part) => part.type === 'text' && part.text === 'write both')
            ? simulateReadableStream<LanguageModelV3StreamPart>({
                chunks: [
                  write('a.txt'),
                  write('b.txt'),
                  { type: 'finish', usage: MOCK_USAGE, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
                ],
              })
            : textStream(['done'], 0);
        return Promise.resolve({ stream });
      },
    }),
};

describe('tool-call ids a provider reuses', () => {
  it("a local server naming every call call_0: the second turn's write is asked and runs, the next message gets a reply, each stored call has its own id and one result, and the server is sent unique ids", async () => {
    const { provider, bodies } = await callZeroServer();
    const d = (daemon = await startInProcessDaemon({ providers: [provider] }));
    const id = await newSession(d, 'local', 'local-model');

    for (const name of ['a.txt', 'b.txt']) {
      const events = await sendApproving(d, id, `write ${name}`);
      expect(events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
      expect(readFileSync(join(d.workspace, name), 'utf8')).toBe(`${name}\n`);
    }
    const next = await send(d, id, { message: 'hello' });
    expect(next.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(replyOf(next)).toMatch(/^reply \d+$/);

    expectConsistent(d, id, { calls: 2, approvals: 2 });
    expect(storedIds(d, id).calls).not.toContain('call_0');
    // The last request holds both calls, each under its own id, each answered under it.
    const sent = (
      JSON.parse(bodies.at(-1) ?? '{}') as {
        messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
      }
    ).messages;
    const sentCalls = sent.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id));
    const sentResults = sent.flatMap((message) => (message.role === 'tool' ? [message.tool_call_id] : []));
    expect(sentCalls).toHaveLength(2);
    expect(new Set(sentCalls).size).toBe(2);
    expect(sentResults).toEqual(sentCalls);
  });

  it('two writes of one step under one id (an adapter that passes the ids through as sent): each is asked under its own id, both run, and the next message gets a reply', async () => {
    const d = (daemon = await startInProcessDaemon({ providers: [sameIdProvider] }));
    const id = await newSession(d, 'same-id', 'twice');

    const asked = (await send(d, id, { message: 'write both' })).flatMap((event) =>
      event.type === 'tool-approval-request' ? [event] : [],
    );
    expect(asked.map((event) => event.input)).toEqual([
      { path: 'a.txt', content: 'a\n' },
      { path: 'b.txt', content: 'b\n' },
    ]);
    expect(asked[0]?.tool_call_id).not.toBe(asked[1]?.tool_call_id);
    let events: AgentEvent[] = [];
    for (const event of asked) {
      const answer = { approval_id: event.approval_id, tool_call_id: event.tool_call_id, approved: true };
      events = await send(d, id, { approval_answer: answer });
    }
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(readFileSync(join(d.workspace, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(join(d.workspace, 'b.txt'), 'utf8')).toBe('b\n');
    expect((await send(d, id, { message: 'hello' })).at(-1)).toMatchObject({ type: 'run-finished' });
    expectConsistent(d, id, { calls: 2, approvals: 2 });
  });

  it("the demo after /compact and a run stopped at an approval (the reviewer's session): the next messages get the demo's replies and each stored call has its own id", async () => {
    const d = (daemon = await startInProcessDaemon());
    const id = await newSession(d, 'demo', 'demo');

    for (const message of ['ls', 'ls', 'write a.txt: one']) {
      expect((await sendApproving(d, id, message)).at(-1)).toMatchObject({ type: 'run-finished' });
    }
    expect((await send(d, id, { compact: true })).at(-1)).toMatchObject({ type: 'run-finished' });
    const stopped = await send(d, id, { message: 'write b.txt: two' });
    expect(approvalOf(stopped)).toBeDefined();
    expect((await d.request('POST', '/agent/abort', { session_id: id })).body).toEqual({ aborted: true });
    expect(existsSync(join(d.workspace, 'b.txt'))).toBe(false);

    const listed = await send(d, id, { message: 'ls' });
    expect(listed.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(replyOf(listed)).toMatch(/^demo: \. has \d+ entries/);
    const help = await send(d, id, { message: 'hello' });
    expect(help.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(replyOf(help)).toMatch(/^demo: I am the offline demo model/);
    expectConsistent(d, id, { calls: 5, approvals: 2 });
  });

  it('a session a reused id already damaged (a stored call without a result, a prompt after it) answers its next message, the model told the call did not run', async () => {
    const d = (daemon = await startInProcessDaemon({ providers: [scripted.provider] }));
    const id = await newSession(d, 'mock', 'scripted');
    d.runtime.store.transcript.append(id, null, [
      { role: 'user', content: [{ type: 'text', text: 'write b.txt' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_0', toolName: 'write_file', input: { path: 'b.txt' } }],
      },
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
    ]);

    scripted.turns.push({ text: 'hi again' });
    const events = await send(d, id, { message: 'are you there?' });
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(replyOf(events)).toBe('hi again');
    const roles = scripted.prompts[0]?.map((message) => message.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'user', 'user']);
    expect(scripted.prompts[0]?.[3]).toMatchObject({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_0',
          output: { type: 'execution-denied', reason: 'not run: its run ended before it was run' },
        },
      ],
    });
  });

  it('a run its stored messages cannot make a request of (an approval answer whose request is gone) ends TRANSCRIPT_INVALID saying to rewind or start a new session, and nothing is sent', async () => {
    const d = (daemon = await startInProcessDaemon({ providers: [scripted.provider] }));
    const id = await newSession(d, 'mock', 'scripted');
    scripted.turns.push({ tool: 'write_file', input: { path: 'c.txt', content: 'c\n' } });
    const asked = approvalOf(await send(d, id, { message: 'write c.txt' }));
    if (!asked) throw new Error('no approval asked');
    // The damage: the stored step keeps its call but not its approval request.
    const db = d.runtime.store.writer.db;
    const row = db
      .prepare(`SELECT id, content FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT 1`)
      .get(id) as { id: string; content: string };
    const kept = (JSON.parse(row.content) as { type: string }[]).filter((part) => part.type === 'tool-call');
    db.prepare('UPDATE messages SET content = ? WHERE id = ?').run(JSON.stringify(kept), row.id);
    const prompts = scripted.prompts.length;

    const answer = { approval_id: asked.approval_id, tool_call_id: asked.tool_call_id, approved: true };
    const events = await send(d, id, { approval_answer: answer });
    const failed = events.at(-1);
    expect(failed).toMatchObject({ type: 'run-error', code: 'TRANSCRIPT_INVALID' });
    const message = (failed as { message: string }).message;
    expect(message).toContain('an approval answer in them has no approval request');
    expect(message).toContain('rewind the session to before the prompt where this began, or start a new session');
    expect(scripted.prompts).toHaveLength(prompts);
    expect(existsSync(join(d.workspace, 'c.txt'))).toBe(false);
  });
});
