/**
 * The approval plumbing issue 5's run_command stands on, with a MockLanguageModelV3 and a tool
 * that needs approval: the run pauses, a new message is refused while an answer is due, answers
 * continue the run only once every approval of the step is answered, and an abort closes the
 * pending calls so the next model call carries no call without a result.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { tool } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent, Session } from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

const prompts: LanguageModelV3CallOptions['prompt'][] = [];
const executed: string[] = [];

/** `one` asks for one guarded call, `two` for two in the same step; after results it says "ok". */
const approvalProvider: ProviderDefinition = {
  id: 'approvals',
  label: 'approvals',
  defaultModel: 'one',
  create: (modelId) =>
    new MockLanguageModelV3({
      doStream: ({ prompt }) => {
        prompts.push(prompt);
        const last = prompt.at(-1);
        const calls = modelId === 'two' ? ['a', 'b'] : ['a'];
        const chunks: LanguageModelV3StreamPart[] =
          last?.role === 'tool' || last?.role === 'assistant'
            ? [
                { type: 'text-start', id: 't' },
                { type: 'text-delta', id: 't', delta: 'ok' },
                { type: 'text-end', id: 't' },
                { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
              ]
            : [
                ...calls.map((name): LanguageModelV3StreamPart => ({
                  type: 'tool-call',
                  toolCallId: `call-${name}-${prompt.length}`,
                  toolName: 'guarded',
                  input: JSON.stringify({ name }),
                })),
                { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
              ];
        return Promise.resolve({ stream: simulateReadableStream({ chunks }) });
      },
    }),
};

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
  prompts.length = 0;
  executed.length = 0;
});

async function start(): Promise<InProcessDaemon> {
  daemon = await startInProcessDaemon({
    providers: [approvalProvider],
    extraTools: [
      () => ({
        guarded: tool({
          description: 'a tool that always asks',
          inputSchema: z.strictObject({ name: z.string() }),
          needsApproval: true,
          execute: ({ name }) => {
            executed.push(name);
            return { ran: name };
          },
        }),
      }),
    ],
  });
  return daemon;
}

const isEnd = (event: AgentEvent) => event.type === 'run-finished' || event.type === 'run-error';

async function run(d: InProcessDaemon, sessionId: string, body: Record<string, unknown>) {
  const events = d.collect(sessionId, isEnd, d.runtime.store.runs.eventsAfter(sessionId, 0, 100_000).at(-1)?.id ?? 0);
  const response = await d.request<{ run_id: string | null }>('POST', '/agent/run', { session_id: sessionId, ...body });
  return { response, events: response.status === 202 && response.body.run_id !== null ? await events : [] };
}

describe('approvals', () => {
  it('pauses for approval, refuses new messages meanwhile, and runs the tool once approved', async () => {
    const d = await start();
    const session = (await d.request<Session>('POST', '/sessions', { provider: 'approvals', model: 'one' })).body;
    const first = await run(d, session.id, { message: 'do it' });
    const request = first.events.find((e) => e.event.type === 'tool-approval-request')?.event;
    expect(request).toMatchObject({ tool_name: 'guarded', input: { name: 'a' } });
    expect(first.events.at(-1)?.event).toMatchObject({ type: 'run-finished', finish_reason: 'approval-pending' });
    expect(executed).toEqual([]);

    expect((await d.request('POST', '/agent/run', { session_id: session.id, message: 'again' })).body).toMatchObject({
      code: 'APPROVAL_PENDING',
    });
    if (request?.type !== 'tool-approval-request') throw new Error('no approval request');
    const wrong = await d.request('POST', '/agent/run', {
      session_id: session.id,
      approval_answer: { approval_id: request.approval_id, tool_call_id: 'call-other', approved: true },
    });
    expect(wrong).toMatchObject({ status: 409, body: { code: 'APPROVAL_TOOL_CALL_MISMATCH' } });
    expect(executed).toEqual([]);

    const answered = await run(d, session.id, {
      approval_answer: { approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved: true },
    });
    expect(answered.response.status).toBe(202);
    expect(executed).toEqual(['a']);
    expect(answered.events.map((e) => e.event.type)).toEqual([
      'tool-approval-response',
      'run-started',
      'tool-result',
      'text-delta',
      'run-finished',
    ]);
    const replay = await d.request('POST', '/agent/run', {
      session_id: session.id,
      approval_answer: { approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved: true },
    });
    expect(replay).toMatchObject({ status: 409, body: { code: 'APPROVAL_ALREADY_ANSWERED' } });
    expect(executed).toEqual(['a']);
  });

  /** The session's two approvals of one step, asked by a first run. */
  async function askTwo(d: InProcessDaemon) {
    const session = (await d.request<Session>('POST', '/sessions', { provider: 'approvals', model: 'two' })).body;
    const first = await run(d, session.id, { message: 'do both' });
    const requests = first.events.flatMap((e) => (e.event.type === 'tool-approval-request' ? [e.event] : []));
    expect(requests).toHaveLength(2);
    const [a, b] = requests as [(typeof requests)[0], (typeof requests)[0]];
    return { session, a, b };
  }
  const lastEventId = (d: InProcessDaemon, sessionId: string) =>
    d.runtime.store.runs.eventsAfter(sessionId, 0, 100_000).at(-1)?.id ?? 0;

  it('continues only after every approval of the step is answered, telling the stream of each answer as it is given', async () => {
    const d = await start();
    const { session, a, b } = await askTwo(d);
    const told = d.collect(session.id, (event) => event.type === 'tool-approval-response', lastEventId(d, session.id));
    const partial = await run(d, session.id, {
      approval_answer: { approval_id: a.approval_id, tool_call_id: a.tool_call_id, approved: true },
    });
    expect(partial.response).toEqual({ status: 202, body: { run_id: null, message_id: null } });
    // No run started, and the stream says the first one was answered.
    expect((await told).map((e) => e.event)).toEqual([
      {
        type: 'tool-approval-response',
        run_id: a.run_id,
        approval_id: a.approval_id,
        tool_call_id: a.tool_call_id,
        approved: true,
      },
    ]);
    expect(executed).toEqual([]);
    const rest = await run(d, session.id, {
      approval_answer: {
        approval_id: b.approval_id,
        tool_call_id: b.tool_call_id,
        approved: false,
        reason: 'not this one',
      },
    });
    expect(rest.events.slice(0, 2).map((e) => e.event)).toMatchObject([
      { type: 'tool-approval-response', run_id: b.run_id, tool_call_id: b.tool_call_id, approved: false },
      { type: 'run-started' },
    ]);
    expect(rest.events.at(-1)?.event).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(executed).toEqual(['a']);
    const lastPrompt = JSON.stringify(prompts.at(-1));
    expect(lastPrompt).toContain('execution-denied');
    expect(lastPrompt).toContain('not this one');
  });

  it('the same approval answered twice at once (two tabs) is decided once: one answer is taken and told, the other refused as already answered', async () => {
    const d = await start();
    const { session, a } = await askTwo(d);
    const before = lastEventId(d, session.id);
    const answers = await Promise.all(
      [true, false].map((approved) =>
        d.request('POST', '/agent/run', {
          session_id: session.id,
          approval_answer: { approval_id: a.approval_id, tool_call_id: a.tool_call_id, approved },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    expect(answers.find((answer) => answer.status === 409)?.body).toMatchObject({ code: 'APPROVAL_ALREADY_ANSWERED' });
    const taken = answers.findIndex((answer) => answer.status === 202) === 0;
    const told = d.runtime.store.runs
      .eventsAfter(session.id, before, 100)
      .filter((e) => e.event.type === 'tool-approval-response');
    expect(told.map((e) => e.event)).toMatchObject([{ tool_call_id: a.tool_call_id, approved: taken }]);
    expect(d.runtime.store.approvals.status(session.id, a.tool_call_id)).toBe(taken ? 'approved' : 'denied');
  });

  it('abort while an approval is pending closes the call; the next message runs with a complete transcript', async () => {
    const d = await start();
    const session = (await d.request<Session>('POST', '/sessions', { provider: 'approvals', model: 'one' })).body;
    const first = await run(d, session.id, { message: 'do it' });
    const request = first.events.find((e) => e.event.type === 'tool-approval-request')?.event;
    if (request?.type !== 'tool-approval-request') throw new Error('no approval request');
    expect((await d.request('POST', '/agent/abort', { session_id: session.id })).body).toEqual({ aborted: true });
    const late = await d.request('POST', '/agent/run', {
      session_id: session.id,
      approval_answer: { approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved: true },
    });
    expect(late).toMatchObject({ status: 409, body: { code: 'APPROVAL_CANCELLED' } });
    expect(executed).toEqual([]);
    const next = await run(d, session.id, { message: 'something else' });
    expect(next.response.status).toBe(202);
    const prompt = prompts.at(-1) ?? [];
    const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).filter((p) => p.type === 'tool-result');
    expect(results).toEqual([
      expect.objectContaining({
        toolCallId: request.tool_call_id,
        output: expect.objectContaining({ type: 'execution-denied' }),
      }),
    ]);
    expect(executed).toEqual([]);
  });
});
