/**
 * Test and benchmark support: an incremental, unbounded parser of the server-sent event stream
 * the daemon writes (`id`, `event`, `data`, comments), so the daemon's tests read it without a
 * dependency. Nothing of Bastion's reads a sidecar's stream with it: the host and the bridge use
 * eventsource-parser with a bound (host agent-event-reader.ts, bridge event-stream.ts).
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
