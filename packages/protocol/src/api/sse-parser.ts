/**
 * Incremental parser of a server-sent event stream (the subset Bastion's daemon writes: `id`,
 * `event`, `data`, comments). Browser-safe: the bridge, the host's client and the CLI share it.
 */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

export class SseParser {
  #buffer = '';
  #id: string | undefined;
  #event = '';
  #data: string[] = [];

  /** Feed decoded text; returns the messages completed by it. */
  push(text: string): SseMessage[] {
    const buffer = this.#buffer + text;
    const out: SseMessage[] = [];
    let start = 0;
    for (let newline = buffer.indexOf('\n', start); newline !== -1; newline = buffer.indexOf('\n', start)) {
      const end = newline > start && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      this.#line(buffer.slice(start, end), out);
      start = newline + 1;
    }
    this.#buffer = buffer.slice(start);
    return out;
  }

  #line(line: string, out: SseMessage[]): void {
    if (line === '') {
      if (this.#data.length > 0 || this.#event !== '') {
        out.push({ id: this.#id, event: this.#event || 'message', data: this.#data.join('\n') });
      }
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id') this.#id = value;
  }
}

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

/** Parse a byte stream of server-sent events (a fetch body or a node stream). */
export async function* readSseMessages(
  body: AsyncIterable<Uint8Array | string> | ReadableStream<Uint8Array>,
): AsyncGenerator<SseMessage> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of chunksOf(body)) {
    yield* parser.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
  }
}
