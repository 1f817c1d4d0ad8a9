import { describe, expect, it } from 'vitest';
import { MODEL_MAX_UNPARSED_REPLY_BYTES } from '@bastion/protocol';
import { boundedReplyFetch, EventBytesCounter } from './bounded-reply-fetch.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('EventBytesCounter', () => {
  it('starts counting again after a blank line ended by LF, CRLF or CR, and after each mix of them', () => {
    for (const end of ['\n\n', '\r\n\r\n', '\r\r', '\n\r\n', '\r\n\n', '\n\r', '\r\n\r']) {
      const counter = new EventBytesCounter();
      expect(counter.add(bytes(`data: 12345${end}`)), JSON.stringify(end)).toBeLessThanOrEqual(1);
      expect(counter.add(bytes('data: 1')), JSON.stringify(end)).toBeLessThanOrEqual(8);
    }
  });

  it('keeps counting over line ends that end no event: many data lines, and a CRLF split across chunks', () => {
    const counter = new EventBytesCounter();
    expect(counter.add(bytes('data: a\ndata: b\r\ndata: c\r'))).toBe(25);
    expect(counter.add(bytes('\ndata: d'))).toBe(33);
    expect(counter.add(bytes('\r'))).toBe(34);
    expect(counter.add(bytes('\n'))).toBe(35);
    expect(counter.add(bytes('\r\n'))).toBe(1);
  });
});

/** boundedReplyFetch over a fetch answering `block` after `block` until `total` bytes, counting what was pulled from it and whether it was cancelled. */
function answering(contentType: string, total: number, block: Uint8Array) {
  const source = { pulled: 0, cancelled: false };
  const fetch = () =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              if (source.pulled >= total) return controller.close();
              source.pulled += block.byteLength;
              controller.enqueue(block);
            },
            cancel() {
              source.cancelled = true;
            },
          },
          { highWaterMark: 0 },
        ),
        { status: 200, headers: { 'content-type': contentType } },
      ),
    );
  return { fetch: boundedReplyFetch(fetch), source };
}

async function readAll(response: Response): Promise<{ read: number; error?: unknown }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let read = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return { read };
      read += next.value.byteLength;
    }
  } catch (error) {
    return { read, error };
  }
}

const BLOCK = 64 * 1024;
const event = (size: number) => bytes(`data: ${'z'.repeat(size - 8)}\n\n`);

describe('boundedReplyFetch', () => {
  it('reads an event stream of many events to its end, though they pass the bound together', async () => {
    const block = event(BLOCK);
    const total = MODEL_MAX_UNPARSED_REPLY_BYTES + 4 * BLOCK;
    const { fetch, source } = answering('text/event-stream', total, block);
    const outcome = await readAll(await fetch('http://127.0.0.1:1/v1/chat/completions'));
    expect(outcome.error).toBeUndefined();
    expect(outcome.read).toBe(source.pulled);
    expect(outcome.read).toBeGreaterThan(MODEL_MAX_UNPARSED_REPLY_BYTES);
  });

  it('attack: one event of data lines with no blank line stops being read just past the bound, its body cancelled, with PROVIDER_REPLY_TOO_LARGE', async () => {
    const line = bytes(`data: ${'z'.repeat(BLOCK - 7)}\n`);
    const { fetch, source } = answering('Text/Event-Stream; charset=utf-8', 2 * MODEL_MAX_UNPARSED_REPLY_BYTES, line);
    const outcome = await readAll(await fetch('http://127.0.0.1:1/v1/chat/completions'));
    expect(outcome.error).toMatchObject({ code: 'PROVIDER_REPLY_TOO_LARGE' });
    expect(source.cancelled).toBe(true);
    expect(outcome.read).toBeLessThanOrEqual(MODEL_MAX_UNPARSED_REPLY_BYTES);
    expect(source.pulled).toBeLessThanOrEqual(MODEL_MAX_UNPARSED_REPLY_BYTES + BLOCK);
  });

  it('attack: a reply that is not an event stream stops being read past the bound as a whole, though it holds blank lines', async () => {
    const { fetch, source } = answering('application/json', 2 * MODEL_MAX_UNPARSED_REPLY_BYTES, event(BLOCK));
    const outcome = await readAll(await fetch('http://127.0.0.1:1/v1/chat/completions'));
    expect(outcome.error).toMatchObject({ code: 'PROVIDER_REPLY_TOO_LARGE' });
    expect(source.cancelled).toBe(true);
    expect(source.pulled).toBeLessThanOrEqual(MODEL_MAX_UNPARSED_REPLY_BYTES + BLOCK);
  });

  it('passes a reply under the bound through whole, with its status and headers', async () => {
    const { fetch } = answering('application/json', BLOCK, bytes('{"error":{"message":"busy"}}'));
    const response = await fetch('http://127.0.0.1:1/v1/chat/completions');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe('{"error":{"message":"busy"}}'.repeat(Math.ceil(BLOCK / 28)));
  });
});
