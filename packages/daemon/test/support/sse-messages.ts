/**
 * Test and benchmark support: the messages of a server-sent event stream (a fetch body or a node
 * stream), parsed with the test support's SseParser. Unbounded, for the daemon's own tests and the
 * benchmarks; the host and the bridge read the sidecar's streams with bounded readers (host agent-event-reader.ts, bridge event-stream.ts).
 */
import { SseParser, type SseMessage } from './sse-parser.js';

async function* chunksOf(
  body: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array | string> {
  if (!('getReader' in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export async function* readSseMessages(
  body: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>,
): AsyncGenerator<SseMessage> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of chunksOf(body)) {
    yield* parser.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
  }
}
