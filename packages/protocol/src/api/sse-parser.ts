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
    this.#buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const newline = this.#buffer.indexOf('\n');
      if (newline === -1) break;
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      if (line === '') {
        if (this.#data.length > 0 || this.#event !== '') {
          out.push({ id: this.#id, event: this.#event || 'message', data: this.#data.join('\n') });
        }
        this.#event = '';
        this.#data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') this.#data.push(value);
      else if (field === 'event') this.#event = value;
      else if (field === 'id') this.#id = value;
    }
    return out;
  }
}

/** Parse a byte stream of server-sent events. */
export async function* readSseMessages(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    yield* parser.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
  }
}
