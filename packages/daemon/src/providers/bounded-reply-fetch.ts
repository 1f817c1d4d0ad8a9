/**
 * `resource-exhaustion`: a model's reply is untrusted, and the AI SDK takes in a whole server-sent
 * event (every `data:` line up to the blank line that ends it) before anything parses it, and a
 * reply that is not an event stream (an error's JSON) whole. So the bytes of one event, and of a
 * whole reply that is not an event stream, are counted here as they arrive from the provider
 * transport, and past MODEL_MAX_UNPARSED_REPLY_BYTES the reply stops being read: its body is
 * cancelled (the host then ends the upstream request) and the reader gets PROVIDER_REPLY_TOO_LARGE,
 * which ends the run. Every provider's model reaches the network through this fetch (the registry
 * wraps the transport's in it).
 *
 * The event boundaries are counted on the bytes, not parsed: eventsource-parser (the SDK's own
 * parser, whose `maxBufferSize` the SDK does not set) would decode and buffer each event a second
 * time. What it does not catch: bytes the transport queues ahead of this reader (one response
 * window, TRANSPORT_RESPONSE_WINDOW_BYTES); replies of many events each under the bound (the
 * transport's TRANSPORT_MAX_RESPONSE_BODY_BYTES and the tool-call bounds are those).
 */
import { MODEL_MAX_UNPARSED_REPLY_BYTES } from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import type { ProviderFetch } from './provider-registry.js';

const LF = 0x0a;
const CR = 0x0d;
/** Where an event stream's scan is: inside a line, at a line's start, or just past a CR (a LF next ends the same line). */
const IN_LINE = 0;
const LINE_START = 1;
const AFTER_CR = 2;

/**
 * Counts an event stream's bytes since its last event boundary: a blank line, that is a line end
 * (CRLF, LF or CR, as the HTML standard's event stream format has them) right after another line
 * end, or at the stream's start.
 */
export class EventBytesCounter {
  #state = LINE_START;
  #bytes = 0;

  /** The bytes since the last boundary, once `chunk` is counted. */
  add(chunk: Uint8Array): number {
    let state = this.#state;
    let bytes = this.#bytes;
    for (let index = 0; index < chunk.length; index += 1) {
      const byte = chunk[index] as number;
      if (byte === LF) {
        if (state === LINE_START) {
          bytes = 0;
        } else {
          // The end of a line, or the LF of a CRLF that ended one.
          state = LINE_START;
          bytes += 1;
        }
      } else if (byte === CR) {
        if (state === IN_LINE) bytes += 1;
        else bytes = 0;
        state = AFTER_CR;
      } else {
        state = IN_LINE;
        bytes += 1;
      }
    }
    this.#state = state;
    this.#bytes = bytes;
    return bytes;
  }
}

function isEventStream(contentType: string | null): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

/** `body`, erroring with PROVIDER_REPLY_TOO_LARGE (and cancelling `body`) once `measure` passes the bound. */
function boundedBody(
  body: ReadableStream<Uint8Array>,
  measure: (chunk: Uint8Array) => number,
  what: string,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await reader.read();
        if (next.done) {
          controller.close();
          return;
        }
        if (measure(next.value) > MODEL_MAX_UNPARSED_REPLY_BYTES) {
          const error = new DaemonError(
            'PROVIDER_REPLY_TOO_LARGE',
            `${what} passed ${MODEL_MAX_UNPARSED_REPLY_BYTES} bytes, so it stopped being read`,
          );
          // Cancelling the transport's body sends `request.abort`: the host stops the download.
          await reader.cancel(error).catch(() => undefined);
          controller.error(error);
          return;
        }
        controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** `fetch` with each reply's events (or a reply that is not an event stream, whole) bounded. */
export function boundedReplyFetch(fetch: ProviderFetch): ProviderFetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    let body: ReadableStream<Uint8Array>;
    if (isEventStream(response.headers.get('content-type'))) {
      const counter = new EventBytesCounter();
      body = boundedBody(response.body, (chunk) => counter.add(chunk), "one event of the model's reply");
    } else {
      let total = 0;
      body = boundedBody(response.body, (chunk) => (total += chunk.byteLength), "the model's reply");
    }
    const bounded = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(bounded, 'url', { value: response.url });
    return bounded;
  };
}
