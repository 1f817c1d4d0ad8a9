/**
 * Incremental parser of a server-sent event stream (the subset Bastion's daemon writes: `id`,
 * `event`, `data`, comments), for the bridge in the browser. The host and the CLI read the stream
 * with their own bounded, schema-checked reader (host `agent-event-reader.ts`).
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
