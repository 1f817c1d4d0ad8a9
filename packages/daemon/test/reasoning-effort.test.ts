/**
 * A session's reasoning effort through the real daemon app over real HTTP with real SQLite: set
 * at creation or by PATCH (null clears it), stored with the session, and sent with every step of
 * a run as the provider options of a catalog model that takes one — not for one that does not;
 * asked for a model that takes none, or outside low/medium/high, it is refused with nothing stored.
 * For Claude, through the real `@ai-sdk/anthropic` against a loopback Messages API server: extended
 * thinking with the effort's budget on every step, and the signed thinking block sent back with the
 * tool result, as Anthropic requires.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { ANTHROPIC_THINKING_BUDGET_TOKENS, type AgentEvent, type Session } from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { recordingProvider } from './support/scripted-provider.js';

const calls: LanguageModelV3CallOptions[] = [];

/** Stands in for OpenAI: the id the catalog's reasoning models are listed under. */
const openai = recordingProvider('openai', 'gpt-5', 'ok', calls);

let daemon: InProcessDaemon | undefined;
let server: Server | undefined;
afterEach(async () => {
  calls.length = 0;
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** Anthropic's Messages API stream: each event as `event:` and `data:` lines. */
const sse = (events: object[]) =>
  events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join('');

const USAGE = { input_tokens: 10, output_tokens: 5 };
const messageStart = (id: string) => ({
  type: 'message_start',
  message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], usage: USAGE },
});
/** A first answer that thinks (signed) and lists the workspace, then a closing one. */
const THINK_THEN_LIST = sse([
  messageStart('msg_1'),
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The folder first.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-from-anthropic' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'list_dir', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":"."}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } },
  { type: 'message_stop' },
]);
const CLOSING = sse([
  messageStart('msg_2'),
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Listed.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } },
  { type: 'message_stop' },
]);

/** A loopback Messages API playing `answers` in turn; each request's JSON body is kept. */
async function anthropicServer(answers: string[], bodies: Record<string, unknown>[]): Promise<string> {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(answers.shift() ?? CLOSING);
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}/v1`;
}

/** Run one prompt to its end (the stream replays the session from its start, so this run's end by id): the model's call. */
async function run(d: InProcessDaemon, sessionId: string): Promise<LanguageModelV3CallOptions | undefined> {
  const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, message: 'go' });
  expect(started.status).toBe(202);
  await d.collect(
    sessionId,
    (event: AgentEvent) => event.type === 'run-finished' && event.run_id === started.body.run_id,
  );
  return calls.at(-1);
}

describe('reasoning effort', () => {
  it('is stored with the session and sent with each step for a model that takes one; PATCH null clears it', async () => {
    daemon = await startInProcessDaemon({ providers: [openai] });
    const created = await daemon.request<Session>('POST', '/sessions', {
      provider: 'openai',
      model: 'gpt-5',
      reasoning_effort: 'high',
    });
    expect(created.body.reasoning_effort).toBe('high');
    expect((await run(daemon, created.body.id))?.providerOptions).toEqual({ openai: { reasoningEffort: 'high' } });

    const lowered = await daemon.request<Session>('PATCH', `/sessions/${created.body.id}`, { reasoning_effort: 'low' });
    expect(lowered.body.reasoning_effort).toBe('low');
    expect((await run(daemon, created.body.id))?.providerOptions).toEqual({ openai: { reasoningEffort: 'low' } });

    const cleared = await daemon.request<Session>('PATCH', `/sessions/${created.body.id}`, { reasoning_effort: null });
    expect(cleared.body.reasoning_effort).toBeUndefined();
    const stored = await daemon.request<Session>('GET', `/sessions/${created.body.id}`);
    expect(stored.body.reasoning_effort).toBeUndefined();
  });

  it('is refused for a model that takes none (no session made), sent with no step once the session moves to one, and refused outside low, medium and high', async () => {
    daemon = await startInProcessDaemon({ providers: [openai] });
    const refused = await daemon.request<{ code: string; message: string }>('POST', '/sessions', {
      provider: 'openai',
      model: 'gpt-4.1-mini',
      reasoning_effort: 'medium',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('REASONING_NOT_SUPPORTED');
    expect(refused.body.message).toContain('openai/gpt-4.1-mini takes no reasoning effort');
    expect((await daemon.request<{ sessions: Session[] }>('GET', '/sessions')).body.sessions).toEqual([]);

    const created = await daemon.request<Session>('POST', '/sessions', {
      provider: 'openai',
      model: 'gpt-5',
      reasoning_effort: 'medium',
    });
    const moved = await daemon.request<Session>('PATCH', `/sessions/${created.body.id}`, { model: 'gpt-4.1-mini' });
    expect(moved.status).toBe(200);
    expect((await run(daemon, created.body.id))?.providerOptions).toBeUndefined();
    expect(
      (await daemon.request<{ code: string }>('PATCH', `/sessions/${created.body.id}`, { reasoning_effort: 'high' }))
        .body.code,
    ).toBe('REASONING_NOT_SUPPORTED');
    const invalid = await daemon.request<{ code: string }>('PATCH', `/sessions/${created.body.id}`, {
      reasoning_effort: 'max',
    });
    expect(invalid.status).toBe(400);
    expect((await daemon.request<Session>('GET', `/sessions/${created.body.id}`)).body.reasoning_effort).toBe('medium');
  });

  it('asks Claude for extended thinking with the budget of the effort and sends its signed thinking back with the tool result on the next step', async () => {
    const bodies: Record<string, unknown>[] = [];
    const baseURL = await anthropicServer([THINK_THEN_LIST], bodies);
    const anthropic: ProviderDefinition = {
      id: 'anthropic',
      label: 'Anthropic (loopback test server)',
      defaultModel: 'claude-sonnet-4-5',
      create: (modelId) => createAnthropic({ baseURL, apiKey: 'test-key', fetch: globalThis.fetch })(modelId),
    };
    daemon = await startInProcessDaemon({ providers: [anthropic] });
    const created = await daemon.request<Session>('POST', '/sessions', {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      reasoning_effort: 'medium',
    });
    const started = await daemon.request<{ run_id: string }>('POST', '/agent/run', {
      session_id: created.body.id,
      message: 'what is here?',
    });
    const events = await daemon.collect(
      created.body.id,
      (event) => (event.type === 'run-finished' || event.type === 'run-error') && event.run_id === started.body.run_id,
    );
    expect(events.at(-1)?.event.type).toBe('run-finished');
    expect(events.map(({ event }) => event)).toContainEqual({
      type: 'reasoning-delta',
      run_id: started.body.run_id,
      text: 'The folder first.',
    });
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: ANTHROPIC_THINKING_BUDGET_TOKENS.medium });
    }
    // Anthropic refuses a tool result whose turn lost its thinking: the signed block goes back as it came.
    const messages = bodies[1]?.messages as { role: string; content: { type: string }[] }[];
    const assistant = messages.find((message) => message.role === 'assistant');
    expect(assistant?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'The folder first.',
      signature: 'sig-from-anthropic',
    });
    // The call goes back under Bastion's own id (tool-call-ids.ts), which its result names too.
    const toolUse = assistant?.content[1] as { type: string; id: string; name: string } | undefined;
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'list_dir' });
    const result = messages
      .flatMap((message) => message.content)
      .find((part): part is { type: string; tool_use_id: string } => part.type === 'tool_result');
    expect(result?.tool_use_id).toBe(toolUse?.id);
  });
});
