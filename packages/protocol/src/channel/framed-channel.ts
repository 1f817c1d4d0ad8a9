/**
 * One end of channel v1 over a byte stream pair (the sidecar's stdin/stdout). Frames are
 * decoded with the inbound schema and dispatched by `type`; a frame whose type nobody handles,
 * a decode error or a handler that throws closes the channel (fail closed) and reports once.
 * Written against structural stream types so this package stays free of node:* imports.
 */
import type { z } from 'zod';
import { ChannelError } from '../errors.js';
import { FrameDecoder, FrameEncoder } from './codec.js';

export interface ByteSource {
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Node's Writable fits: a frame written in parts between `cork` and `uncork` leaves in one writev. */
export interface ByteSink {
  write(bytes: Uint8Array): boolean;
  readonly writableLength: number;
  readonly writableHighWaterMark: number;
  cork(): void;
  uncork(): void;
  once(event: 'drain', listener: () => void): unknown;
}

type FrameHandler<F> = (frame: F) => void;

export class FramedChannel<In extends z.ZodType<{ type: string }>, Out extends z.ZodType<{ type: string }>> {
  readonly #decoder: FrameDecoder<In>;
  readonly #encoder: FrameEncoder<Out>;
  readonly #sink: ByteSink;
  readonly #handlers = new Map<string, FrameHandler<z.infer<In>>>();
  readonly #drainWaiters: (() => void)[] = [];
  readonly #onClose: (error: ChannelError | undefined) => void;
  #closed = false;

  /** `onClose` runs once: with the error that closed the channel, or `undefined` on a clean end. */
  constructor(options: {
    source: ByteSource;
    sink: ByteSink;
    inbound: In;
    outbound: Out;
    onClose: (error: ChannelError | undefined) => void;
  }) {
    this.#decoder = new FrameDecoder(options.inbound);
    this.#encoder = new FrameEncoder(options.outbound);
    this.#sink = options.sink;
    this.#onClose = options.onClose;
    options.source.on('data', (chunk) => this.#receive(chunk));
    options.source.on('end', () => {
      try {
        this.#decoder.end();
        this.#finish(undefined);
      } catch (error) {
        this.#finish(asChannelError(error));
      }
    });
    options.source.on('error', (cause) =>
      this.#finish(new ChannelError('CHANNEL_CLOSED', 'channel stream failed', { cause })),
    );
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Register the one handler for a frame type. */
  on<T extends z.infer<In>['type']>(type: T, handler: FrameHandler<Extract<z.infer<In>, { type: T }>>): void {
    if (this.#handlers.has(type))
      throw new ChannelError('CHANNEL_FAILED', `a handler for ${type} is already registered`);
    this.#handlers.set(type, handler as FrameHandler<z.infer<In>>);
  }

  /**
   * Write one frame. Returns false when the sink's buffer is full: a sender that can wait (a body
   * being streamed) should then wait for `onDrain` before its next frame, as a Node stream would.
   * Full is judged after the write, on what is still queued: `write` answers before it tries the
   * socket, so a 64 KiB body chunk that the socket took at once would read as full and pause the
   * body for a drain with nothing left to drain. False here means the last write also answered
   * false, so the sink's `drain` is due.
   */
  send(frame: z.infer<Out>): boolean {
    if (this.#closed) throw new ChannelError('CHANNEL_CLOSED', 'channel is closed');
    const parts = this.#encoder.encode(frame);
    if (parts.length === 1) this.#sink.write(parts[0] as Uint8Array);
    else {
      this.#sink.cork();
      for (const part of parts) this.#sink.write(part);
      this.#sink.uncork();
    }
    return this.#sink.writableLength < this.#sink.writableHighWaterMark;
  }

  /** Run `listener` once when the sink's buffer has emptied after a `send` returned false. */
  onDrain(listener: () => void): void {
    // One sink listener for every sender waiting, however many bodies are in flight.
    if (this.#drainWaiters.length === 0) {
      this.#sink.once('drain', () => {
        for (const waiter of this.#drainWaiters.splice(0)) waiter();
      });
    }
    this.#drainWaiters.push(listener);
  }

  /** Close from this side because of a protocol violation found above the codec. */
  fail(error: ChannelError): void {
    this.#finish(error);
  }

  #receive(chunk: Uint8Array): void {
    if (this.#closed) return;
    let frames: z.infer<In>[];
    try {
      frames = this.#decoder.push(chunk);
    } catch (error) {
      this.#finish(asChannelError(error));
      return;
    }
    for (const frame of frames) {
      if (this.#closed) return;
      const handler = this.#handlers.get(frame.type);
      if (!handler) {
        this.#finish(new ChannelError('CHANNEL_FRAME_SCHEMA', `no handler for frame type ${frame.type}`));
        return;
      }
      try {
        handler(frame);
      } catch (error) {
        this.#finish(asChannelError(error));
        return;
      }
    }
  }

  #finish(error: ChannelError | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose(error);
  }
}

function asChannelError(error: unknown): ChannelError {
  return error instanceof ChannelError
    ? error
    : new ChannelError('CHANNEL_FAILED', 'channel handler failed', { cause: error });
}
