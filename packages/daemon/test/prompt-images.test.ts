/**
 * Images in a prompt through the real daemon app over real HTTP with real SQLite: checked before
 * anything is stored (format by first bytes, size, encoding, count, the model taking images),
 * stored apart from the message, answered by GET /sessions/:id/images/:image_id, sent to the model
 * with each later step — to Claude through the real `@ai-sdk/anthropic` against a loopback Messages
 * API server — and, past IMAGE_CONTEXT_MAX_BYTES or to a model that takes none, named in words.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT_RUN_MAX_BODY_BYTES,
  IMAGE_CONTEXT_MAX_BYTES,
  IMAGE_MAX_BYTES,
  type AgentEvent,
  type MessageListResponse,
  type Session,
  type SessionImageResponse,
} from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { recordingProvider, scriptedProvider } from './support/scripted-provider.js';

/** A real 1×1 PNG (68 bytes). */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PNG_BYTES = Buffer.from(PNG, 'base64').byteLength;
/** A PNG signature and `size` bytes in all, each image of a test told apart by its fill byte. */
const bigPng = (size: number, fill: number) => {
  const bytes = Buffer.alloc(size, fill);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return bytes.toString('base64');
};

const calls: LanguageModelV3CallOptions[] = [];
/** Stands in for OpenAI: its catalog models take images. */
const openai = recordingProvider('openai', 'gpt-4.1', 'seen', calls);

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

async function session(d: InProcessDaemon, provider: string, model: string): Promise<string> {
  return (await d.request<Session>('POST', '/sessions', { provider, model })).body.id;
}

/** Send a prompt and follow its run to the end; the run's last event. */
async function send(d: InProcessDaemon, sessionId: string, body: Record<string, unknown>): Promise<AgentEvent> {
  const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, ...body });
  expect(started.status).toBe(202);
  const events = await d.collect(
    sessionId,
    (event) => (event.type === 'run-finished' || event.type === 'run-error') && event.run_id === started.body.run_id,
  );
  return events.at(-1)?.event as AgentEvent;
}

/** The user messages' content the model was last sent, part by part: text, or an image's first fill byte and size. */
function sentUserParts(call: LanguageModelV3CallOptions | undefined): string[][] {
  return (call?.prompt ?? [])
    .filter((message) => message.role === 'user')
    .map((message) =>
      message.content.map((part) => {
        if (part.type === 'text') return part.text;
        if (part.type === 'file' && part.data instanceof Uint8Array)
          return `${part.mediaType} fill ${part.data[8]} ${part.data.byteLength}`;
        return part.type;
      }),
    );
}

describe('images in a prompt', () => {
  it('are sent to Claude as base64 image blocks beside the text on every step, listed in the transcript by id and size, answered byte for byte by GET images, and in no log record', async () => {
    const bodies: { messages: { role: string; content: unknown[] }[] }[] = [];
    server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        bodies.push(JSON.parse(body) as (typeof bodies)[number]);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(
          [
            {
              type: 'message_start',
              message: {
                id: `m${bodies.length}`,
                type: 'message',
                role: 'assistant',
                model: 'claude-sonnet-4-5',
                content: [],
                usage: { input_tokens: 9, output_tokens: 1 },
              },
            },
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
            { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'A dot.' } },
            { type: 'content_block_stop', index: 0 },
            {
              type: 'message_delta',
              delta: { stop_reason: 'end_turn', stop_sequence: null },
              usage: { output_tokens: 2 },
            },
            { type: 'message_stop' },
          ]
            .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
            .join(''),
        );
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
    daemon = await startInProcessDaemon({ providers: [anthropic] });
    const id = await session(daemon, 'anthropic', 'claude-sonnet-4-5');

    expect((await send(daemon, id, { message: 'what is this?', images: [{ data: PNG, name: 'dot.png' }] })).type).toBe(
      'run-finished',
    );
    expect((await send(daemon, id, { message: 'and again?' })).type).toBe('run-finished');

    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };
    expect(bodies[0]?.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, image] }]);
    // The next prompt's request carries the earlier image again, from the store.
    expect(bodies[1]?.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'what is this?' }, image] });

    const messages = (await daemon.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages;
    const parts = messages[0]?.parts ?? [];
    expect(parts).toEqual([
      { type: 'text', text: 'what is this?' },
      {
        type: 'image',
        image_id: expect.stringMatching(/^img_/),
        media_type: 'image/png',
        bytes: PNG_BYTES,
        name: 'dot.png',
      },
    ]);
    const imageId = (parts[1] as { image_id: string }).image_id;
    const answered = await daemon.request<SessionImageResponse>('GET', `/sessions/${id}/images/${imageId}`);
    expect(answered.body).toEqual({ media_type: 'image/png', data: PNG });
    expect(JSON.stringify(daemon.records)).not.toContain(PNG.slice(20, 60));

    const other = await session(daemon, 'anthropic', 'claude-sonnet-4-5');
    const elsewhere = await daemon.request<{ code: string }>('GET', `/sessions/${other}/images/${imageId}`);
    expect([elsewhere.status, elsewhere.body.code]).toEqual([404, 'IMAGE_NOT_FOUND']);

    expect((await daemon.request('DELETE', `/sessions/${id}`)).status).toBe(200);
    expect(daemon.runtime.store.transcript.image(id, imageId)).toBeUndefined();
  });

  it.each([
    [
      'a text file',
      { message: 'look', images: [{ data: Buffer.from('<svg/>').toString('base64'), name: 'a.svg' }] },
      415,
      'IMAGE_TYPE_UNSUPPORTED',
      'image 1 ("a.svg") is not a PNG, JPEG, GIF, WEBP image',
    ],
    [
      'an image over 3.75 MiB',
      { message: 'look', images: [{ data: PNG }, { data: bigPng(IMAGE_MAX_BYTES + 1, 1) }] },
      413,
      'IMAGE_TOO_LARGE',
      'image 2 is over the limit of 3.75 MiB',
    ],
    [
      'data that is not base64',
      { message: 'look', images: [{ data: `${PNG.slice(0, -4)}-_-_` }] },
      400,
      'IMAGE_INVALID',
      'image 1 is not standard base64',
    ],
    [
      'a fifth image',
      { message: 'look', images: Array.from({ length: 5 }, () => ({ data: PNG })) },
      400,
      'BAD_REQUEST',
      'images',
    ],
    ['images without a message', { images: [{ data: PNG }] }, 400, 'BAD_REQUEST', 'invalid field: message'],
  ])('refuse %s in words before anything is stored or the model called', async (_what, body, status, code, words) => {
    daemon = await startInProcessDaemon({ providers: [openai] });
    const id = await session(daemon, 'openai', 'gpt-4.1');
    const refused = await daemon.request<{ code: string; message: string }>('POST', '/agent/run', {
      session_id: id,
      ...body,
    });
    expect([refused.status, refused.body.code]).toEqual([status, code]);
    expect(refused.body.message).toContain(words);
    expect((await daemon.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages).toEqual([]);
    expect((await daemon.request<Session>('GET', `/sessions/${id}`)).body.last_run).toBeNull();
    expect(calls).toEqual([]);
  });

  it('are refused for a model that takes none, and an image sent earlier is named in words to it once the session switches', async () => {
    const scripted = scriptedProvider();
    daemon = await startInProcessDaemon({ providers: [openai, scripted.provider] });
    const id = await session(daemon, 'mock', 'scripted');
    const refused = await daemon.request<{ code: string; message: string }>('POST', '/agent/run', {
      session_id: id,
      message: 'look',
      images: [{ data: PNG }],
    });
    expect([refused.status, refused.body.code]).toEqual([400, 'IMAGES_NOT_SUPPORTED']);
    expect(refused.body.message).toContain('mock/scripted does not take images');
    expect((await daemon.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages).toEqual([]);
    expect(scripted.prompts).toEqual([]);

    await daemon.request('PATCH', `/sessions/${id}`, { provider: 'openai', model: 'gpt-4.1' });
    await send(daemon, id, { message: 'look', images: [{ data: PNG, name: 'dot.png' }] });
    expect(sentUserParts(calls.at(-1))).toEqual([['look', `image/png fill 0 ${PNG_BYTES}`]]);

    await daemon.request('PATCH', `/sessions/${id}`, { provider: 'mock', model: 'scripted' });
    await send(daemon, id, { message: 'and now?' });
    const user = scripted.prompts.at(-1)?.filter((message) => message.role === 'user');
    expect(user?.[0]?.content).toEqual([
      { type: 'text', text: 'look' },
      {
        type: 'text',
        text: `[An image "dot.png" (PNG, ${PNG_BYTES} bytes) the user attached is not shown: this model does not take images.]`,
      },
    ]);
  });

  it(`send the newest images of the conversation up to ${IMAGE_CONTEXT_MAX_BYTES / 1024 / 1024} MiB and name the older ones in words`, async () => {
    daemon = await startInProcessDaemon({ providers: [openai] });
    const id = await session(daemon, 'openai', 'gpt-4.1');
    const image = (fill: number) => ({ data: bigPng(IMAGE_MAX_BYTES, fill) });
    await send(daemon, id, { message: 'first', images: [image(1), image(2)] });
    await send(daemon, id, { message: 'second', images: [image(3), image(4)] });
    const sent = (fill: number) => `image/png fill ${fill} ${IMAGE_MAX_BYTES}`;
    expect(sentUserParts(calls[0])).toEqual([['first', sent(1), sent(2)]]);
    // 4 × 3.75 MiB is over 12 MiB: the oldest image (the first prompt's first) is named in words.
    expect(sentUserParts(calls[1])).toEqual([
      [
        'first',
        `[An image (PNG, ${IMAGE_MAX_BYTES} bytes) the user attached is not shown: the conversation holds more images than one request carries.]`,
        sent(2),
      ],
      ['second', sent(3), sent(4)],
    ]);
  });

  it('lift the body bound to 24 MiB for POST /agent/run only: another route still refuses a body over 1 MiB, and /agent/run one over 24 MiB, storing nothing', async () => {
    daemon = await startInProcessDaemon({ providers: [openai] });
    const refused = await daemon.request<{ code: string }>('POST', '/sessions', { title: 'x'.repeat(1024 * 1024 + 1) });
    expect([refused.status, refused.body.code]).toEqual([413, 'BODY_TOO_LARGE']);
    expect((await daemon.request<{ sessions: Session[] }>('GET', '/sessions')).body.sessions).toEqual([]);

    const id = await session(daemon, 'openai', 'gpt-4.1');
    const over = await daemon.request<{ code: string }>('POST', '/agent/run', {
      session_id: id,
      message: 'x'.repeat(AGENT_RUN_MAX_BODY_BYTES),
    });
    expect([over.status, over.body.code]).toEqual([413, 'BODY_TOO_LARGE']);
    expect((await daemon.request<MessageListResponse>('GET', `/sessions/${id}/messages`)).body.messages).toEqual([]);
    expect(calls).toEqual([]);
  });
});
