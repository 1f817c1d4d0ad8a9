/**
 * A running command's output on its way to the UI as `tool-output-delta` events: each stream
 * decoded as UTF-8 across pieces, Bastion's held credentials redacted (SEC-004, as in every tool
 * result), and gathered into one event per COMMAND_OUTPUT_DELTA_MS, or sooner once
 * COMMAND_OUTPUT_DELTA_MAX_CHARS have gathered, so a command that prints a line at a time does not
 * write an event a line. A credential split across two pieces is still redacted: the end of a
 * stream that could be the start of one waits for what follows, or for the end.
 */
import { StringDecoder } from 'node:string_decoder';
import { COMMAND_OUTPUT_DELTA_MAX_CHARS, COMMAND_OUTPUT_DELTA_MS } from '@bastion/protocol';
import { heldStartAtEnd, redactHeld } from '../policy/redact-held.js';
import type { CommandOutputSink } from '../tools/tool-context.js';

type Stream = 'stdout' | 'stderr';

export class CommandOutputStream implements CommandOutputSink {
  readonly #emit: (stream: Stream, text: string) => void;
  readonly #secrets: readonly { kind: string; value: string }[];
  readonly #decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  /** Decoded and not yet sent, per stream, in the order the streams last wrote. */
  readonly #pending = new Map<Stream, string>();
  #timer: NodeJS.Timeout | undefined;
  #ended = false;

  constructor(emit: (stream: Stream, text: string) => void, secrets: readonly { kind: string; value: string }[]) {
    this.#emit = emit;
    this.#secrets = secrets;
  }

  push(stream: Stream, bytes: Uint8Array): void {
    if (this.#ended) return;
    const text = this.#decoders[stream].write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const pending = (this.#pending.get(stream) ?? '') + text;
    this.#pending.delete(stream);
    this.#pending.set(stream, pending);
    if (pending.length >= COMMAND_OUTPUT_DELTA_MAX_CHARS) this.#flush(false);
    else this.#timer ??= setTimeout(() => this.#flush(false), COMMAND_OUTPUT_DELTA_MS);
  }

  /** Send everything still held, the decoders' unfinished characters included; later pieces are ignored. */
  end(): void {
    if (this.#ended) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.#decoders[stream].end();
      if (rest.length > 0) this.#pending.set(stream, (this.#pending.get(stream) ?? '') + rest);
    }
    this.#flush(true);
    this.#ended = true;
  }

  #flush(final: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const [stream, pending] of [...this.#pending]) {
      const text = redactHeld(pending, this.#secrets);
      const cut = final ? text.length : text.length - heldStartAtEnd(text, this.#secrets);
      if (cut > 0) this.#emit(stream, text.slice(0, cut));
      if (cut < text.length) this.#pending.set(stream, text.slice(cut));
      else this.#pending.delete(stream);
    }
  }
}
