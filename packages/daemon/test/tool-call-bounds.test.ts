/**
 * `resource-exhaustion`: the tool calls of a model's reply are bounded, through the real daemon app
 * over real HTTP with real SQLite. A call whose input passes MODEL_MAX_TOOL_INPUT_BYTES (a 20 MB
 * update_plan, as a reviewer saw stored and resent on every step), a call that would carry its
 * step past MODEL_MAX_STEP_TOOL_INPUT_BYTES, and the calls after the step's
 * MODEL_MAX_TOOL_CALLS_PER_STEP-th never reach their handler; the transcript, the events and the
 * next request to the model hold a small marker in place of their input, and the model gets the
 * refusal naming the size or count and the bound. A reply streaming one call's input past the
 * bound through the real `@ai-sdk/anthropic`, from a loopback Messages API server, stops being
 * read. A call of exactly the bound, and a write_file of WORKSPACE_MAX_WRITE_BYTES, still run.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  MODEL_MAX_STEP_TOOL_INPUT_BYTES,
  MODEL_MAX_TOOL_CALLS_PER_STEP,
  MODEL_MAX_TOOL_INPUT_BYTES,
  SESSIONS_DB_FILE,
  WORKSPACE_MAX_WRITE_BYTES,
  type AgentEvent,
  type Session,
} from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { tool } from '../src/tools/tool.js';
import { longestStoredRow } from '../../../test/support/stored-rows.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { MOCK_USAGE, textStream } from './support/mock-streams.js';

/** The `data` of each call the probe tool's handler was reached with. */
const reached: string[] = [];
/** Each model call's prompt, and the steps the model answers with, in order (a step: its tool calls, or text). */
const prompts: LanguageModelV3CallOptions['prompt'][] = [];
const steps: { toolName: string; input: string }[][] = [];

const multiCallProvider: ProviderDefinition = {
  id: 'mock',
  label: 'mock',
  defaultModel: 'multi',
  // Calls of a few MiB fit (the catalog's default window would have them summarised).
  contextWindow: () => 16 * 1024 * 1024,
  create: () =>
    new MockLanguageModelV3({
      doStream: ({ prompt }) => {
        prompts.push(prompt);
        const calls = steps.shift();
        if (calls === undefined) return Promise.resolve({ stream: textStream(['done'], 0) });
        return Promise.resolve({
          stream: simulateReadableStream<LanguageModelV3StreamPart>({
            chunks: [
              ...calls.map((call, index): LanguageModelV3StreamPart => ({
                type: 'tool-call',
                toolCallId: `call-${index}`,
                ...call,
              })),
              { type: 'finish', usage: MOCK_USAGE, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
            ],
          }),
        });
      },
    }),
};

const probeTools = () => ({
  probe: tool({
    description: 'records that it ran',
    inputSchema: z.strictObject({ data: z.string() }),
    execute: ({ data }) => {
      reached.push(data);
      return { bytes: data.length };
    },
  }),
});

/** A probe call whose input, as JSON, is exactly `bytes` bytes. */
const probeOf = (bytes: number, fill = 'x') => {
  const frame = JSON.stringify({ data: '' });
  return { toolName: 'probe', input: JSON.stringify({ data: fill.repeat(bytes - frame.length) }) };
};

let daemon: InProcessDaemon | undefined;
let server: Server | undefined;
afterEach(async () => {
  reached.length = 0;
  prompts.length = 0;
  steps.length = 0;
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function start(providers: ProviderDefinition[], provider: string, model: string) {
  daemon = await startInProcessDaemon({ providers, extraTools: [probeTools] });
  const session = (await daemon.request<Session>('POST', '/sessions', { provider, model })).body;
  return { d: daemon, session };
}

/** Send a prompt and follow its run to its end: the run's events. */
async function run(d: InProcessDaemon, sessionId: string): Promise<AgentEvent[]> {
  const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, message: 'go' });
  expect(started.status).toBe(202);
  const events = await d.collect(
    sessionId,
    (event) => (event.type === 'run-finished' || event.type === 'run-error') && event.run_id === started.body.run_id,
  );
  return events.map(({ event }) => event);
}

const resultOf = (events: AgentEvent[], toolCallId: string) =>
  events.find((event) => event.type === 'tool-result' && event.tool_call_id === toolCallId);
const callOf = (events: AgentEvent[], toolCallId: string) =>
  events.find((event) => event.type === 'tool-call' && event.tool_call_id === toolCallId);
/** The id Bastion gave the run's `index`-th tool call (not the provider's: agent/tool-call-ids.ts). */
const idOf = (events: AgentEvent[], index: number): string => {
  const call = events.filter((event) => event.type === 'tool-call')[index];
  if (call?.type !== 'tool-call') throw new Error(`the run made no tool call ${index}`);
  return call.tool_call_id;
};

/** The tool-call inputs and tool-result outputs of a prompt the model was sent, by call id. */
function sentToolParts(prompt: LanguageModelV3CallOptions['prompt'] | undefined) {
  const calls: Record<string, unknown> = {};
  const results: Record<string, unknown> = {};
  for (const message of prompt ?? []) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls[part.toolCallId] = part.input;
      if (part.type === 'tool-result') results[part.toolCallId] = part.output;
    }
  }
  return { calls, results };
}

const TWENTY_MB = 20 * 1024 * 1024;

describe('tool calls of a model step', () => {
  it('attack: a 20 MB update_plan and a probe one byte over the bound are not run; the rows, events and next request hold a marker, and the model is told the size and the bound', async () => {
    const { d, session } = await start([multiCallProvider], 'mock', 'multi');
    const plan = JSON.stringify({ steps: [{ step: 'p'.repeat(TWENTY_MB), status: 'pending' }] });
    steps.push([{ toolName: 'update_plan', input: plan }, probeOf(MODEL_MAX_TOOL_INPUT_BYTES + 1)]);
    const events = await run(d, session.id);

    expect(events.at(-1)?.type).toBe('run-finished');
    expect(reached).toEqual([]);
    expect(events.some((event) => event.type === 'tool-approval-request')).toBe(false);
    const planBytes = Buffer.byteLength(plan);
    expect(callOf(events, idOf(events, 0))).toMatchObject({
      tool_name: 'update_plan',
      input: { bastion_refused_call: 'TOOL_INPUT_TOO_LARGE', input_bytes: planBytes },
    });
    for (const [id, bytes] of [
      [idOf(events, 0), planBytes],
      [idOf(events, 1), MODEL_MAX_TOOL_INPUT_BYTES + 1],
    ] as const) {
      const result = resultOf(events, id);
      expect(result).toMatchObject({ is_error: true, output: { ok: false, code: 'TOOL_INPUT_TOO_LARGE' } });
      const message = (result as { output: { message: string } }).output.message;
      expect(message).toContain(`its input was ${bytes} bytes`);
      expect(message).toContain(`the ${MODEL_MAX_TOOL_INPUT_BYTES} bytes a tool call's input may have`);
    }

    // The next request carries the markers and the refusals, none of the megabytes.
    expect(prompts).toHaveLength(2);
    expect(JSON.stringify(prompts[1]).length).toBeLessThan(16 * 1024);
    const sent = sentToolParts(prompts[1]);
    expect(sent.calls[idOf(events, 0)]).toEqual({
      bastion_refused_call: 'TOOL_INPUT_TOO_LARGE',
      input_bytes: planBytes,
    });
    expect(JSON.stringify(sent.results[idOf(events, 0)])).toContain('TOOL_INPUT_TOO_LARGE');
    expect(JSON.stringify(sent.results[idOf(events, 1)])).toContain('TOOL_INPUT_TOO_LARGE');

    expect(longestStoredRow(join(d.userData, SESSIONS_DB_FILE), session.id)).toBeLessThan(4 * 1024);
  });

  it(`attack: of ${MODEL_MAX_TOOL_CALLS_PER_STEP + 2} calls in one step the first ${MODEL_MAX_TOOL_CALLS_PER_STEP} run and the last two get TOOL_CALLS_TOO_MANY with their input replaced by a marker`, async () => {
    const { d, session } = await start([multiCallProvider], 'mock', 'multi');
    const count = MODEL_MAX_TOOL_CALLS_PER_STEP + 2;
    steps.push(
      Array.from({ length: count }, (_, index) => ({
        toolName: 'probe',
        input: JSON.stringify({ data: `call ${index} ${'y'.repeat(1024)}` }),
      })),
    );
    const events = await run(d, session.id);

    expect(events.at(-1)?.type).toBe('run-finished');
    expect(reached).toHaveLength(MODEL_MAX_TOOL_CALLS_PER_STEP);
    expect(reached.map((data) => data.split(' ')[1])).toEqual(
      Array.from({ length: MODEL_MAX_TOOL_CALLS_PER_STEP }, (_, index) => String(index)),
    );
    for (const index of [count - 2, count - 1]) {
      const id = idOf(events, index);
      expect(callOf(events, id)).toMatchObject({
        input: { bastion_refused_call: 'TOOL_CALLS_TOO_MANY', call_number: index + 1 },
      });
      expect(resultOf(events, id)).toMatchObject({
        is_error: true,
        output: { ok: false, code: 'TOOL_CALLS_TOO_MANY' },
      });
      const message = (resultOf(events, id) as { output: { message: string } }).output.message;
      expect(message).toContain(`call ${index + 1} of one step`);
      expect(message).toContain(`at most ${MODEL_MAX_TOOL_CALLS_PER_STEP} tool calls`);
      expect(sentToolParts(prompts[1]).calls[id]).toEqual({
        bastion_refused_call: 'TOOL_CALLS_TOO_MANY',
        call_number: index + 1,
      });
    }
  });

  it(`attack: calls each under the bound that together pass ${MODEL_MAX_STEP_TOOL_INPUT_BYTES} bytes in one step: the one that would pass it is not run`, async () => {
    const { d, session } = await start([multiCallProvider], 'mock', 'multi');
    const each = MODEL_MAX_TOOL_INPUT_BYTES - 1024;
    const fit = Math.floor(MODEL_MAX_STEP_TOOL_INPUT_BYTES / each);
    steps.push(Array.from({ length: fit + 1 }, (_, index) => probeOf(each, String(index % 10))));
    const events = await run(d, session.id);

    expect(events.at(-1)?.type).toBe('run-finished');
    expect(reached).toHaveLength(fit);
    const last = resultOf(events, idOf(events, fit));
    expect(last).toMatchObject({ is_error: true, output: { code: 'TOOL_INPUT_TOO_LARGE' } });
    expect((last as { output: { message: string } }).output.message).toContain(
      `the step's earlier calls had ${fit * each} of the ${MODEL_MAX_STEP_TOOL_INPUT_BYTES} bytes`,
    );
    expect(callOf(events, idOf(events, fit))).toMatchObject({
      input: { bastion_refused_call: 'TOOL_INPUT_TOO_LARGE', input_bytes: each, step_bytes: fit * each },
    });
  });

  it('runs a call of exactly the bound with its input whole, and a write_file of WORKSPACE_MAX_WRITE_BYTES of source', async () => {
    const { d, session } = await start([multiCallProvider], 'mock', 'multi');
    const call = probeOf(MODEL_MAX_TOOL_INPUT_BYTES);
    // Source-like text: quotes, backslashes and newlines that JSON escapes.
    const line = 'const s = "a \\"quoted\\" \\\\ path";\n';
    const content = line.repeat(Math.floor(WORKSPACE_MAX_WRITE_BYTES / line.length));
    steps.push([call], [{ toolName: 'write_file', input: JSON.stringify({ path: 'big.ts', content }) }]);
    const events = await run(d, session.id);

    expect(events.at(-1)).toMatchObject({ type: 'run-finished' });
    expect(reached).toEqual([(JSON.parse(call.input) as { data: string }).data]);
    for (const event of events) if (event.type === 'tool-result') expect(event.is_error).toBe(false);
    expect(readFileSync(join(d.workspace, 'big.ts'), 'utf8')).toBe(content);
  });
});

describe('a streamed tool call', () => {
  /** Anthropic's Messages API stream: each event as `event:` and `data:` lines. */
  const sse = (event: object) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`;
  const USAGE = { input_tokens: 10, output_tokens: 5 };
  const messageStart = (id: string) =>
    sse({
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], usage: USAGE },
    });
  const CLOSING = [
    messageStart('msg_2'),
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Smaller then.' } }),
    sse({ type: 'content_block_stop', index: 0 }),
    sse({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 3 },
    }),
    sse({ type: 'message_stop' }),
  ].join('');
  /** What the server would stream of the call's input at most, were it read to the end. */
  const CEILING = 64 * 1024 * 1024;
  const CHUNK = 'z'.repeat(64 * 1024);

  it('attack: a probe call streamed toward 64 MiB stops being read past the bound, is not run, and the next request carries its marker and refusal', async () => {
    const bodies: string[] = [];
    let written = 0;
    let cutShort = false;
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        bodies.push(body);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        if (bodies.length > 1) {
          response.end(CLOSING);
          return;
        }
        void (async () => {
          response.write(messageStart('msg_1'));
          response.write(
            sse({
              type: 'content_block_start',
              index: 0,
              content_block: { type: 'tool_use', id: 'toolu_big', name: 'probe', input: {} },
            }),
          );
          const delta = (partial: string) =>
            sse({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: partial } });
          response.write(delta('{"data":"'));
          const closed = once(response, 'close').then(() => (cutShort = written < CEILING));
          const chunk = delta(CHUNK);
          while (written < CEILING && !response.destroyed) {
            written += CHUNK.length;
            if (!response.write(chunk)) await Promise.race([once(response, 'drain'), closed]);
          }
          if (response.destroyed) return;
          response.write(delta('"}'));
          response.write(sse({ type: 'content_block_stop', index: 0 }));
          response.write(
            sse({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: USAGE }),
          );
          response.end(sse({ type: 'message_stop' }));
        })();
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const anthropic: ProviderDefinition = {
      id: 'anthropic',
      label: 'Anthropic (loopback test server)',
      defaultModel: 'claude-sonnet-4-5',
      create: (modelId) => createAnthropic({ baseURL, apiKey: 'test-key', fetch: globalThis.fetch })(modelId),
    };
    const { d, session } = await start([anthropic], 'anthropic', 'claude-sonnet-4-5');
    const events = await run(d, session.id);

    expect(events.at(-1)?.type).toBe('run-finished');
    // The socket buffers hold a few MiB; without the cut the reply is read to its 64 MiB end.
    expect(cutShort).toBe(true);
    expect(written).toBeLessThan(CEILING / 2);
    expect(reached).toEqual([]);
    expect(callOf(events, idOf(events, 0))).toMatchObject({
      input: { bastion_refused_call: 'TOOL_INPUT_TOO_LARGE', cut: true },
    });
    const refusal = resultOf(events, idOf(events, 0)) as { output: { code: string; message: string } };
    expect(refusal.output.code).toBe('TOOL_INPUT_TOO_LARGE');
    expect(refusal.output.message).toMatch(
      new RegExp(`its input was over \\d+ bytes, over the ${MODEL_MAX_TOOL_INPUT_BYTES} bytes`),
    );

    expect(bodies).toHaveLength(2);
    expect(bodies[1]?.length).toBeLessThan(16 * 1024);
    const messages = (JSON.parse(bodies[1] ?? '{}') as { messages: { role: string; content: unknown }[] }).messages;
    expect(JSON.stringify(messages)).toContain('"bastion_refused_call":"TOOL_INPUT_TOO_LARGE"');
    expect(JSON.stringify(messages)).toContain('not run: its input was over');
    expect(longestStoredRow(join(d.userData, SESSIONS_DB_FILE), session.id)).toBeLessThan(4 * 1024);
  });
});
