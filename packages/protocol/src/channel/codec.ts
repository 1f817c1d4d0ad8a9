/**
 * Channel v1 codec (SEC-004): 4-byte big-endian length, then UTF-8 JSON, at most
 * CHANNEL_MAX_FRAME_BYTES a frame. The decoder accepts any fragmentation and fails closed:
 * after its first error every later push throws CHANNEL_FAILED, so a confused peer can never
 * resynchronise the stream onto attacker-chosen bytes.
 */
import type { z } from 'zod';
import { ChannelError } from '../errors.js';
import { CHANNEL_FRAME_HEADER_BYTES, CHANNEL_MAX_FRAME_BYTES } from '../limits.js';

const utf8Encoder = new TextEncoder();

/**
 * The binary body frame kind (provider transport bodies). Same length prefix; the payload starts
 * with 0x00 — a JSON frame always starts with `{` — then a kind byte, the request id's length and
 * ASCII bytes, then the raw body bytes. The decoded frame is checked by the same strict schema as
 * any other, so a binary frame of a kind the reader does not accept is a schema error.
 */
const BINARY_MARKER = 0x00;
const BINARY_FRAME_TYPES = ['request.chunk', 'response.chunk'] as const;
const BINARY_HEADER_BYTES = 3;
const asciiDecoder = new TextDecoder('ascii', { fatal: true });

interface BodyFrame {
  type: (typeof BINARY_FRAME_TYPES)[number];
  request_id: string;
  data: Uint8Array;
}

function isBodyFrame(frame: unknown): frame is BodyFrame {
  const type = (frame as { type?: unknown }).type;
  return (
    (BINARY_FRAME_TYPES as readonly unknown[]).includes(type) &&
    (frame as { data?: unknown }).data instanceof Uint8Array
  );
}

/** The whole frame, length prefix included, written in place: the body is copied once. */
function encodeBinaryFrame(frame: BodyFrame): Uint8Array {
  const id = utf8Encoder.encode(frame.request_id);
  const length = BINARY_HEADER_BYTES + id.byteLength + frame.data.byteLength;
  const out = new Uint8Array(CHANNEL_FRAME_HEADER_BYTES + length);
  new DataView(out.buffer).setUint32(0, length, false);
  out[CHANNEL_FRAME_HEADER_BYTES] = BINARY_MARKER;
  out[CHANNEL_FRAME_HEADER_BYTES + 1] = BINARY_FRAME_TYPES.indexOf(frame.type) + 1;
  out[CHANNEL_FRAME_HEADER_BYTES + 2] = id.byteLength;
  out.set(id, CHANNEL_FRAME_HEADER_BYTES + BINARY_HEADER_BYTES);
  out.set(frame.data, CHANNEL_FRAME_HEADER_BYTES + BINARY_HEADER_BYTES + id.byteLength);
  return out;
}

function decodeBinaryPayload(payload: Uint8Array): unknown {
  const type = BINARY_FRAME_TYPES[(payload[1] ?? 0) - 1];
  const idLength = payload[2] ?? 0;
  if (
    payload.byteLength < BINARY_HEADER_BYTES ||
    type === undefined ||
    payload.byteLength < BINARY_HEADER_BYTES + idLength
  ) {
    throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'malformed binary frame header');
  }
  let requestId: string;
  try {
    requestId = asciiDecoder.decode(payload.subarray(BINARY_HEADER_BYTES, BINARY_HEADER_BYTES + idLength));
  } catch (cause) {
    throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'binary frame id is not ASCII', { cause });
  }
  // `payload` is the decoder's own copy, so the body can be a view of it.
  return { v: 1, type, request_id: requestId, data: payload.subarray(BINARY_HEADER_BYTES + idLength) };
}

/** Serialise one frame, after checking it against its schema (a bad outgoing frame is our bug). */
export function encodeFrame<S extends z.ZodType>(schema: S, frame: z.infer<S>): Uint8Array {
  const checked = schema.safeParse(frame);
  if (!checked.success) {
    throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'refusing to send a frame that fails its schema', {
      cause: checked.error,
    });
  }
  // A body frame's size is already bounded by its schema (id ≤ 128 bytes, body ≤ 64 KiB).
  if (isBodyFrame(checked.data)) return encodeBinaryFrame(checked.data);
  const payload = utf8Encoder.encode(JSON.stringify(checked.data));
  if (payload.byteLength === 0 || payload.byteLength > CHANNEL_MAX_FRAME_BYTES) {
    throw new ChannelError('CHANNEL_FRAME_TOO_LARGE', `frame of ${payload.byteLength} bytes exceeds the bound`);
  }
  const out = new Uint8Array(CHANNEL_FRAME_HEADER_BYTES + payload.byteLength);
  new DataView(out.buffer).setUint32(0, payload.byteLength, false);
  out.set(payload, CHANNEL_FRAME_HEADER_BYTES);
  return out;
}

/** Incremental decoder for one direction of the channel. */
export class FrameDecoder<S extends z.ZodType> {
  readonly #schema: S;
  readonly #utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #expected: number | undefined;
  #failure: ChannelError | undefined;

  constructor(schema: S) {
    this.#schema = schema;
  }

  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Feed bytes; returns every frame they complete. Throws a ChannelError on the first bad frame and on every call after it. */
  push(bytes: Uint8Array): z.infer<S>[] {
    if (this.#failure) {
      throw new ChannelError('CHANNEL_FAILED', 'channel already failed', { cause: this.#failure });
    }
    if (bytes.byteLength > 0) {
      this.#chunks.push(bytes);
      this.#buffered += bytes.byteLength;
    }
    const frames: z.infer<S>[] = [];
    try {
      for (;;) {
        if (this.#expected === undefined) {
          if (this.#buffered < CHANNEL_FRAME_HEADER_BYTES) break;
          const header = this.#take(CHANNEL_FRAME_HEADER_BYTES);
          const length = new DataView(header.buffer, header.byteOffset, header.byteLength).getUint32(0, false);
          if (length === 0) throw new ChannelError('CHANNEL_FRAME_EMPTY', 'zero-length frame');
          if (length > CHANNEL_MAX_FRAME_BYTES) {
            throw new ChannelError('CHANNEL_FRAME_TOO_LARGE', `frame of ${length} bytes exceeds the bound`);
          }
          this.#expected = length;
        }
        if (this.#buffered < this.#expected) break;
        const payload = this.#take(this.#expected);
        this.#expected = undefined;
        frames.push(this.#parse(payload));
      }
    } catch (error) {
      this.#failure =
        error instanceof ChannelError ? error : new ChannelError('CHANNEL_FAILED', 'decoder failed', { cause: error });
      this.#chunks = [];
      this.#buffered = 0;
      throw this.#failure;
    }
    return frames;
  }

  /** The peer closed its end: a half-received frame is an error. */
  end(): void {
    if (this.#failure) return;
    if (this.#buffered > 0 || this.#expected !== undefined) {
      this.#failure = new ChannelError('CHANNEL_CLOSED', 'channel closed inside a frame');
      throw this.#failure;
    }
  }

  #take(count: number): Uint8Array {
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const head = this.#chunks[0];
      if (head === undefined) throw new ChannelError('CHANNEL_FAILED', 'decoder underflow');
      const needed = count - filled;
      if (head.byteLength <= needed) {
        out.set(head, filled);
        filled += head.byteLength;
        this.#chunks.shift();
      } else {
        out.set(head.subarray(0, needed), filled);
        this.#chunks[0] = head.subarray(needed);
        filled += needed;
      }
    }
    this.#buffered -= count;
    return out;
  }

  #parse(payload: Uint8Array): z.infer<S> {
    if (payload[0] === BINARY_MARKER) return this.#check(decodeBinaryPayload(payload));
    let text: string;
    try {
      text = this.#utf8.decode(payload);
    } catch (cause) {
      throw new ChannelError('CHANNEL_FRAME_UTF8', 'frame is not valid UTF-8', { cause });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      throw new ChannelError('CHANNEL_FRAME_JSON', 'frame is not valid JSON', { cause });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'frame is not a JSON object');
    }
    if ((value as { v?: unknown }).v !== 1) {
      throw new ChannelError('CHANNEL_FRAME_VERSION', 'frame version is not 1');
    }
    return this.#check(value);
  }

  #check(value: unknown): z.infer<S> {
    const checked = this.#schema.safeParse(value);
    if (!checked.success) {
      throw new ChannelError('CHANNEL_FRAME_SCHEMA', describeSchemaFailure(checked.error), { cause: checked.error });
    }
    return checked.data;
  }
}

/** Names the failing field path and issue code only; never echoes the value. */
function describeSchemaFailure(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'frame fails its schema';
  const path = issue.path.map(String).join('.') || '(root)';
  return `frame fails its schema at ${path} (${issue.code})`;
}
