/**
 * The `explore` tool through the daemon's real run manager, store and routes, with a model that
 * plays two scripts: the agent's and its explorer's (told apart by the explorer's system prompt).
 * What must hold: the explorer sees only its task and works only with the read tools, under the
 * same policy hook (a deny or an ask refuses its call, and nobody is asked); what it reads reaches
 * neither the agent's model calls nor the stored transcript, only its answer does; its steps and
 * context are bounded, the last step offered no tools; a failed model call leaves the agent a
 * refusal, a secret-egress block ends the run, and stopping the run stops the explorer.
 */
import { writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { APICallError } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EXPLORE_MAX_CONCURRENT,
  EXPLORE_MAX_STEPS,
  type AgentEvent,
  type MessageListResponse,
  type PolicyAnswer,
  type PolicyCall,
  type Session,
} from '@bastion/protocol';
import { DaemonError } from '../src/errors.js';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';

/** `id`: the call's id as the model gives it (by default `c<step>-<index>`). */
type Call = { tool: string; input: Record<string, unknown>; id?: string };
type Turn = { calls: Call[] } | { text: string; delayMs?: number; pieces?: number } | { fail: Error };

const usage = (input: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
});

/** The two scripts, and every call each model received. */
const script = { agent: [] as Turn[], explorer: [] as Turn[] };
const seen = { agent: [] as LanguageModelV3CallOptions[], explorer: [] as LanguageModelV3CallOptions[] };
/** Explorer model calls streaming now, and the most at once. */
const explorerStreams = { now: 0, most: 0 };

function isExplorer(options: LanguageModelV3CallOptions): boolean {
  const first = options.prompt[0];
  return first?.role === 'system' && first.content.startsWith('You are an explorer');
}

function streamOf(turn: Turn | undefined, step: number, tokens: number): ReadableStream<LanguageModelV3StreamPart> {
  if (turn !== undefined && 'fail' in turn) throw turn.fail;
  if (turn !== undefined && 'calls' in turn) {
    return simulateReadableStream<LanguageModelV3StreamPart>({
      chunks: [
        ...turn.calls.map((call, index): LanguageModelV3StreamPart => ({
          type: 'tool-call',
          toolCallId: call.id ?? `c${step}-${index}`,
          toolName: call.tool,
          input: JSON.stringify(call.input),
        })),
        { type: 'finish', usage: usage(tokens), finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
      ],
    });
  }
  return simulateReadableStream<LanguageModelV3StreamPart>({
    chunkDelayInMs: turn?.delayMs ?? 0,
    chunks: [
      { type: 'text-start', id: 't' },
      ...Array.from({ length: turn?.pieces ?? 1 }, (): LanguageModelV3StreamPart => ({
        type: 'text-delta',
        id: 't',
        delta: turn?.text ?? 'done',
      })),
      { type: 'text-end', id: 't' },
      { type: 'finish', usage: usage(tokens), finishReason: { unified: 'stop', raw: 'stop' } },
    ],
  });
}

const exploreProvider: ProviderDefinition = {
  id: 'mock',
  label: 'mock',
  defaultModel: 'scripted',
  // Small, so that the explorer's context bound is reached by a few reads.
  contextWindow: () => 8_000,
  create: () =>
    new MockLanguageModelV3({
      doStream: (options) => {
        const who = isExplorer(options) ? 'explorer' : 'agent';
        seen[who].push(options);
        // The explorer's calls report 100 input tokens, the agent's 10: the run's usage adds both.
        const stream = streamOf(script[who].shift(), seen[who].length, who === 'explorer' ? 100 : 10);
        if (who === 'agent') return Promise.resolve({ stream });
        explorerStreams.now += 1;
        explorerStreams.most = Math.max(explorerStreams.most, explorerStreams.now);
        const counted = new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
          flush: () => void (explorerStreams.now -= 1),
        });
        return Promise.resolve({ stream: stream.pipeThrough(counted) });
      },
    }),
};

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
  script.agent.length = 0;
  script.explorer.length = 0;
  seen.agent.length = 0;
  seen.explorer.length = 0;
  explorerStreams.most = 0;
});

/** The daemon with the scripted provider and, when given, a policy that answers `verdict` for the explorer's reads. */
async function start(policy?: (call: PolicyCall) => PolicyAnswer): Promise<InProcessDaemon> {
  daemon = await startInProcessDaemon({
    providers: [exploreProvider],
    ...(policy === undefined ? {} : { policy: { check: (call: PolicyCall) => Promise.resolve(policy(call)) } }),
  });
  return daemon;
}

const isEnd = (event: AgentEvent) => event.type === 'run-finished' || event.type === 'run-error';

async function session(d: InProcessDaemon, mode = 'accept-edits'): Promise<Session> {
  const created = (await d.request<Session>('POST', '/sessions', { provider: 'mock', model: 'scripted' })).body;
  await d.request('PATCH', `/sessions/${created.id}`, { mode });
  return created;
}

async function run(d: InProcessDaemon, sessionId: string, message: string): Promise<AgentEvent[]> {
  const events = d.collect(sessionId, isEnd, d.runtime.store.runs.eventsAfter(sessionId, 0, 100_000).at(-1)?.id ?? 0);
  const response = await d.request('POST', '/agent/run', { session_id: sessionId, message });
  expect(response.status).toBe(202);
  return (await events).map((entry) => entry.event);
}

const exploreResult = (events: AgentEvent[]) =>
  events.find((event) => event.type === 'tool-result' && event.tool_name === 'explore');

function toolNames(options: LanguageModelV3CallOptions | undefined): string[] {
  return (options?.tools ?? []).map((tool) => tool.name).sort();
}

describe('explore', () => {
  it("hands the explorer only its task and the read tools; what it reads reaches neither the agent's model calls nor the transcript, its answer does", async () => {
    const d = await start();
    writeFileSync(join(d.workspace, 'notes.md'), 'READ-ONLY-BY-THE-EXPLORER\n');
    const s = await session(d, 'auto');
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'Where is the marker?' } }] }, { text: 'thanks' });
    script.explorer.push(
      { calls: [{ tool: 'read_file', input: { path: 'notes.md' } }] },
      { text: 'The marker is in notes.md, line 1.' },
    );
    const events = await run(d, s.id, 'USER-PROMPT-FOR-THE-AGENT');

    expect(events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    const call = events.find((event) => event.type === 'tool-call' && event.tool_name === 'explore');
    if (call?.type !== 'tool-call') throw new Error('no explore call');
    // The explorer's call and result, under the explore call, with ids prefixed by its id.
    const children = events.filter(
      (event) =>
        (event.type === 'tool-call' || event.type === 'tool-result') && event.parent_tool_call_id !== undefined,
    );
    expect(children).toMatchObject([
      { type: 'tool-call', tool_name: 'read_file', parent_tool_call_id: call.tool_call_id },
      { type: 'tool-result', tool_name: 'read_file', is_error: false, parent_tool_call_id: call.tool_call_id },
    ]);
    for (const child of children)
      expect((child as { tool_call_id: string }).tool_call_id).toMatch(`${call.tool_call_id}/`);
    expect(exploreResult(events)).toMatchObject({
      is_error: false,
      output: { answer: 'The marker is in notes.md, line 1.', steps: 2, tool_calls: 1, ended: 'answered' },
    });

    // The explorer: its system prompt and its task, nothing of the conversation; read tools only, even in auto.
    const first = seen.explorer[0];
    expect(first?.prompt).toHaveLength(2);
    expect(JSON.stringify(first?.prompt[1])).toContain('Where is the marker?');
    expect(JSON.stringify(first?.prompt)).not.toContain('USER-PROMPT-FOR-THE-AGENT');
    expect(toolNames(first)).toEqual(['find_files', 'list_dir', 'read_file', 'search']);
    expect(toolNames(seen.agent[0])).toContain('explore');

    // The agent's second call holds the answer, not the file; the stored transcript neither.
    const second = JSON.stringify(seen.agent[1]?.prompt);
    expect(second).toContain('The marker is in notes.md, line 1.');
    expect(second).not.toContain('READ-ONLY-BY-THE-EXPLORER');
    const messages = (await d.request<MessageListResponse>('GET', `/sessions/${s.id}/messages`)).body;
    const stored = JSON.stringify(messages);
    expect(stored).not.toContain('READ-ONLY-BY-THE-EXPLORER');
    expect(stored).not.toContain('read_file');

    // Its model calls count in the run's tokens (2 × 100 + 2 × 10 in), not in its context (the agent's last step).
    const finished = events.at(-1);
    expect(finished).toMatchObject({ usage: { input_tokens: 220 }, context: { tokens: 11 } });
  });

  it('refuses the write_file, run_command and explore calls the explorer makes (it is given none of them), and no file is written', async () => {
    const d = await start();
    const s = await session(d, 'auto');
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'write something' } }] }, { text: 'ok' });
    script.explorer.push(
      {
        calls: [
          { tool: 'write_file', input: { path: 'planted.txt', content: 'x' } },
          { tool: 'run_command', input: { command: 'touch', args: ['planted2.txt'] } },
          { tool: 'explore', input: { task: 'again' } },
        ],
      },
      { text: 'I could not write.' },
    );
    const events = await run(d, s.id, 'go');

    const children = events.filter((event) => event.type === 'tool-result' && event.parent_tool_call_id !== undefined);
    expect(children).toHaveLength(3);
    for (const child of children) expect(child).toMatchObject({ is_error: true, output: { ok: false } });
    expect(existsSync(join(d.workspace, 'planted.txt'))).toBe(false);
    expect(existsSync(join(d.workspace, 'planted2.txt'))).toBe(false);
    // No explorer of the explorer: its one task was the only explorer prompt.
    expect(seen.explorer).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'run-finished' });
  });

  it("denies the explorer's read where a policy rule denies it: refused POLICY_DENIED, the content in no call and no event", async () => {
    const policed: PolicyCall[] = [];
    const d = await start((call) => {
      policed.push(call);
      return call.tool === 'read_file' ? { verdict: 'deny', rule_id: 'no-reads', reason: 'test' } : { verdict: 'none' };
    });
    writeFileSync(join(d.workspace, 'secret.md'), 'DENIED-CONTENT\n');
    const s = await session(d, 'auto');
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'read secret.md' } }] }, { text: 'ok' });
    script.explorer.push({ calls: [{ tool: 'read_file', input: { path: 'secret.md' } }] }, { text: 'It was denied.' });
    const events = await run(d, s.id, 'go');

    const read = events.find((event) => event.type === 'tool-result' && event.tool_name === 'read_file');
    expect(read).toMatchObject({ is_error: true, output: { code: 'POLICY_DENIED' } });
    expect(policed.some((call) => call.tool === 'read_file')).toBe(true);
    expect(policed.some((call) => call.tool === 'explore')).toBe(true);
    expect(JSON.stringify(events)).not.toContain('DENIED-CONTENT');
    expect(JSON.stringify(seen)).not.toContain('DENIED-CONTENT');
    // The audit log records the refusal under the explorer's prefixed id.
    const audit = (
      await d.request<{ entries: { tool_call_id: string; tool_name: string; outcome: string }[] }>(
        'GET',
        `/sessions/${s.id}/audit`,
      )
    ).body.entries;
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          tool_name: 'read_file',
          outcome: 'policy-denied',
          tool_call_id: expect.stringContaining('/'),
        }),
      ]),
    );
  });

  it("refuses the explorer's read where a rule says ask (POLICY_UNAPPROVED), asking nobody and not pausing the run", async () => {
    const d = await start((call) =>
      call.tool === 'read_file' ? { verdict: 'ask', rule_id: 'ask-reads' } : { verdict: 'none' },
    );
    writeFileSync(join(d.workspace, 'asked.md'), 'ASKED-CONTENT\n');
    const s = await session(d);
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'read asked.md' } }] }, { text: 'ok' });
    script.explorer.push(
      { calls: [{ tool: 'read_file', input: { path: 'asked.md' } }] },
      { text: 'It needs approval.' },
    );
    const events = await run(d, s.id, 'go');

    expect(events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    const read = events.find((event) => event.type === 'tool-result' && event.tool_name === 'read_file');
    expect(read).toMatchObject({ is_error: true, output: { code: 'POLICY_UNAPPROVED' } });
    expect(JSON.stringify(seen)).not.toContain('ASKED-CONTENT');
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
  });

  it("counts no approval for an explorer's call: an agent's call the model names like the explorer's prefixed id gets Bastion's own id, and its approval leaves the explorer's read POLICY_UNAPPROVED", async () => {
    const d = await start((call) =>
      call.tool === 'read_file' ? { verdict: 'ask', rule_id: 'ask-reads' } : { verdict: 'none' },
    );
    writeFileSync(join(d.workspace, 'approved.md'), 'APPROVED-CONTENT\n');
    writeFileSync(join(d.workspace, 'other.md'), 'OTHER-CONTENT\n');
    const s = await session(d);
    // The model names its own read E/c1-0 and its explore call E, the explorer's first read's id
    // were the model's ids kept; Bastion gives each call its own (agent/tool-call-ids.ts).
    script.agent.push(
      { calls: [{ tool: 'read_file', input: { path: 'approved.md' }, id: 'E/c1-0' }] },
      { calls: [{ tool: 'explore', input: { task: 'read other.md' }, id: 'E' }] },
      { text: 'ok' },
    );
    script.explorer.push({ calls: [{ tool: 'read_file', input: { path: 'other.md' } }] }, { text: 'done' });
    const asked = (await run(d, s.id, 'go')).find((event) => event.type === 'tool-approval-request');
    if (asked?.type !== 'tool-approval-request') throw new Error('no approval asked');
    expect(asked.tool_call_id).toMatch(/^call_[\w-]{16}$/);
    const rest = d.collect(s.id, isEnd, d.runtime.store.runs.eventsAfter(s.id, 0, 100_000).at(-1)?.id ?? 0);
    const answer = { approval_id: asked.approval_id, tool_call_id: asked.tool_call_id, approved: true };
    expect((await d.request('POST', '/agent/run', { session_id: s.id, approval_answer: answer })).status).toBe(202);
    const events = (await rest).map((entry) => entry.event);

    const reads = events.filter((event) => event.type === 'tool-result' && event.tool_name === 'read_file');
    const explored = events.find((event) => event.type === 'tool-call' && event.tool_name === 'explore');
    if (explored?.type !== 'tool-call') throw new Error('no explore call');
    expect(reads).toMatchObject([
      { tool_call_id: asked.tool_call_id, is_error: false },
      {
        tool_call_id: expect.stringMatching(new RegExp(`^${explored.tool_call_id}/call_[\\w-]{16}$`)),
        parent_tool_call_id: explored.tool_call_id,
        is_error: true,
        output: { code: 'POLICY_UNAPPROVED' },
      },
    ]);
    expect(JSON.stringify(events)).not.toContain('OTHER-CONTENT');
    expect(JSON.stringify(seen)).not.toContain('OTHER-CONTENT');
  });

  it('makes the last of its EXPLORE_MAX_STEPS steps answer, offered no tool, and says it ended on its budget', async () => {
    const d = await start();
    const s = await session(d);
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'list forever' } }] }, { text: 'ok' });
    for (let step = 0; step < EXPLORE_MAX_STEPS - 1; step++)
      script.explorer.push({ calls: [{ tool: 'list_dir', input: { path: '.' } }] });
    script.explorer.push({ text: 'Stopped: the folder is listed.' });
    const events = await run(d, s.id, 'go');

    expect(seen.explorer).toHaveLength(EXPLORE_MAX_STEPS);
    expect(seen.explorer.at(-2)?.toolChoice).not.toEqual({ type: 'none' });
    expect(seen.explorer.at(-1)?.toolChoice).toEqual({ type: 'none' });
    expect(JSON.stringify(seen.explorer.at(-1)?.prompt.at(-1))).toContain('Stop exploring now');
    expect(exploreResult(events)).toMatchObject({
      output: { ended: 'budget', steps: EXPLORE_MAX_STEPS, tool_calls: EXPLORE_MAX_STEPS - 1 },
    });
  });

  it("makes it answer once its context nears half the model's window, with each result it sees cut", async () => {
    const d = await start();
    // 8 000 tokens of window: each result the explorer sees is cut to 5 % of it (1 600 characters,
    // 400 tokens), so ten reads bring its next step past half the window.
    writeFileSync(join(d.workspace, 'big.txt'), `${'long line of text\n'.repeat(2_000)}`);
    const s = await session(d);
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'read big.txt' } }] }, { text: 'ok' });
    script.explorer.push(
      { calls: Array.from({ length: 10 }, () => ({ tool: 'read_file', input: { path: 'big.txt' } })) },
      { text: 'It is long.' },
    );
    const events = await run(d, s.id, 'go');

    const second = seen.explorer[1];
    const results = (second?.prompt ?? []).filter((message) => message.role === 'tool');
    expect(results).toHaveLength(1);
    expect(results[0]?.content).toHaveLength(10);
    for (const part of results[0]?.content ?? []) expect(JSON.stringify(part).length).toBeLessThan(2_400);
    expect(second?.toolChoice).toEqual({ type: 'none' });
    expect(seen.explorer).toHaveLength(2);
    expect(exploreResult(events)).toMatchObject({ output: { ended: 'budget', steps: 2, tool_calls: 10 } });
  });

  it('runs at most EXPLORE_MAX_CONCURRENT explorers of a run at once; the other explore calls of the step wait and then answer', async () => {
    const d = await start();
    const s = await session(d);
    const calls = Array.from({ length: EXPLORE_MAX_CONCURRENT + 2 }, (_, index) => ({
      tool: 'explore',
      input: { task: `question ${index}` },
    }));
    script.agent.push({ calls }, { text: 'ok' });
    for (const _ of calls) script.explorer.push({ text: 'answer ', delayMs: 20, pieces: 5 });
    const events = await run(d, s.id, 'go');

    const answers = events.filter((event) => event.type === 'tool-result' && event.tool_name === 'explore');
    expect(answers).toHaveLength(calls.length);
    for (const answer of answers) expect(answer).toMatchObject({ is_error: false, output: { ended: 'answered' } });
    expect(explorerStreams.most).toBe(EXPLORE_MAX_CONCURRENT);
  });

  it("answers the agent EXPLORE_FAILED when the explorer's model call is refused, and the run goes on", async () => {
    const d = await start();
    const s = await session(d);
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'anything' } }] }, { text: 'I will read myself.' });
    script.explorer.push({
      fail: new APICallError({
        message: 'bad request',
        url: 'http://127.0.0.1/',
        requestBodyValues: {},
        statusCode: 400,
        isRetryable: false,
      }),
    });
    const events = await run(d, s.id, 'go');

    expect(exploreResult(events)).toMatchObject({
      is_error: true,
      output: { ok: false, code: 'EXPLORE_FAILED', message: "the explorer's model call failed (HTTP 400)" },
    });
    expect(events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(JSON.stringify(seen.agent[1]?.prompt)).toContain('EXPLORE_FAILED');
  });

  it("ends the run with EGRESS_SECRET when the host blocks the explorer's request, and the agent is not called again", async () => {
    const d = await start();
    const s = await session(d);
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'anything' } }] }, { text: 'never' });
    // What the host-routed transport throws when its egress guard blocks a request (host tests cover the guard).
    script.explorer.push({
      fail: new TypeError('fetch failed', {
        cause: new DaemonError('EGRESS_SECRET', 'the request carried a credential Bastion holds (openai)'),
      }),
    });
    const events = await run(d, s.id, 'go');

    expect(events.at(-1)).toMatchObject({ type: 'run-error', code: 'EGRESS_SECRET' });
    expect(seen.agent).toHaveLength(1);
  });

  it('stops the explorer when the run is stopped: the run ends RUN_ABORTED and no explorer call follows', async () => {
    const d = await start();
    const s = await session(d);
    script.agent.push({ calls: [{ tool: 'explore', input: { task: 'slow' } }] }, { text: 'never' });
    script.explorer.push({ text: 'slow ', delayMs: 20, pieces: 3_000 }, { text: 'never' });
    const events = d.collect(s.id, isEnd);
    expect((await d.request('POST', '/agent/run', { session_id: s.id, message: 'go' })).status).toBe(202);
    while (seen.explorer.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await d.request('POST', '/agent/abort', { session_id: s.id })).body).toEqual({ aborted: true });

    const ended = (await events).map((entry) => entry.event);
    expect(ended.at(-1)).toMatchObject({ type: 'run-error', code: 'RUN_ABORTED' });
    expect(seen.explorer).toHaveLength(1);
    expect(seen.agent).toHaveLength(1);
  });
});
