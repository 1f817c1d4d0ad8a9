/**
 * Channel v1 codec (SEC-004): 4-byte big-endian length, then UTF-8 JSON, at most
 * CHANNEL_MAX_FRAME_BYTES a frame. The decoder accepts any fragmentation and fails closed:
 * after its first error every later push throws CHANNEL_FAILED, so a confused peer can never
 * resynchronise the stream onto attacker-chosen bytes.
 */
import type { z } from 'zod';
import { ChannelError } from '../errors.js';
import {
  CHANNEL_CHECKED_BODY_HEADERS,
  CHANNEL_FRAME_HEADER_BYTES,
  CHANNEL_HEADER_SLAB_BYTES,
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  CHANNEL_MAX_BODY_VIEW_RETENTION,
  CHANNEL_MAX_FRAME_BYTES,
} from '../limits.js';

const utf8Encoder = new TextEncoder();

/**
 * The binary body frame kinds (provider transport bodies, command output, workspace write bytes). Same length prefix;
 * the payload starts with 0x00 — a JSON frame always starts with `{` — then a kind byte, the id's
 * length and ASCII bytes, then the raw body bytes. The header (kind, id, body length) is checked by
 * the same strict schema as any other frame before any body byte is passed on; the body bytes
 * themselves are opaque and never parsed. Neither end copies a large body: the encoder hands the
 * body to the sink as it is, behind a separate header, and the decoder passes the body on as views
 * of the bytes it was pushed, as soon as they arrive (see FrameDecoder).
 */
const BINARY_MARKER = 0x00;
/** Kind byte `i + 1` stands for `BINARY_KINDS[i]`: the frame type, its id field and its fixed fields. */
const BINARY_KINDS = [
  { type: 'request.chunk', idField: 'request_id', fixed: {} },
  { type: 'response.chunk', idField: 'request_id', fixed: {} },
  { type: 'command.output', idField: 'id', fixed: { stream: 'stdout' } },
  { type: 'command.output', idField: 'id', fixed: { stream: 'stderr' } },
  { type: 'workspace.chunk', idField: 'id', fixed: {} },
] as const;
const BINARY_HEADER_BYTES = 3;
const asciiDecoder = new TextDecoder('ascii', { fatal: true });

type BinaryKind = (typeof BINARY_KINDS)[number];
type BodyFrame = Record<string, unknown> & { data: Uint8Array };

/** The binary body frame being passed through: its checked header and the body bytes still to come. */
interface BodyInProgress {
  readonly kind: BinaryKind;
  readonly id: string;
  remaining: number;
}

function bodyFrame(kind: BinaryKind, id: string, data: Uint8Array): BodyFrame {
  return { v: 1, type: kind.type, [kind.idField]: id, ...kind.fixed, data };
}

/** How many keys a frame of each binary kind has: `v`, `type`, its id, `data` and its fixed fields. */
const BINARY_KIND_KEYS = BINARY_KINDS.map((kind) => 4 + Object.keys(kind.fixed).length);
/** Each binary kind's index and fixed fields, by frame type. */
const BINARY_KINDS_BY_TYPE = new Map<string, { index: number; fixed: [string, unknown][] }[]>();
BINARY_KINDS.forEach((kind, index) => {
  const candidates = BINARY_KINDS_BY_TYPE.get(kind.type) ?? [];
  candidates.push({ index, fixed: Object.entries(kind.fixed) });
  BINARY_KINDS_BY_TYPE.set(kind.type, candidates);
});

/** The index of the binary kind `frame` is, or -1 for a frame that travels as JSON. */
function binaryKindOf(frame: unknown): number {
  const fields = frame as Record<string, unknown>;
  if (!(fields.data instanceof Uint8Array)) return -1;
  const candidates = BINARY_KINDS_BY_TYPE.get(fields.type as string);
  if (candidates === undefined) return -1;
  for (const candidate of candidates) {
    if (candidate.fixed.every(([name, value]) => fields[name] === value)) return candidate.index;
  }
  return -1;
}

/**
 * The (kind, id) pairs of body frame headers one end has checked against its schema, up to
 * CHANNEL_CHECKED_BODY_HEADERS of them, each with what that end keeps for it. A header's check
 * depends on nothing but its kind and id, so a body's later chunks need not repeat it.
 */
class CheckedBodyHeaders<T> {
  readonly #byKind = BINARY_KINDS.map(() => new Map<string, T>());
  #size = 0;

  get(kindIndex: number, id: string): T | undefined {
    return this.#byKind[kindIndex]?.get(id);
  }

  add(kindIndex: number, id: string, value: T): void {
    if (this.#size >= CHANNEL_CHECKED_BODY_HEADERS) {
      for (const ids of this.#byKind) ids.clear();
      this.#size = 0;
    }
    this.#byKind[kindIndex]?.set(id, value);
    this.#size += 1;
  }
}

/** Length prefix and binary header; the body follows as its own part, not copied. */
function encodeBinaryHeader(kindIndex: number, frame: BodyFrame): Uint8Array {
  const kind = BINARY_KINDS[kindIndex] as BinaryKind;
  const id = utf8Encoder.encode(frame[kind.idField] as string);
  const length = BINARY_HEADER_BYTES + id.byteLength + frame.data.byteLength;
  const out = new Uint8Array(CHANNEL_FRAME_HEADER_BYTES + BINARY_HEADER_BYTES + id.byteLength);
  new DataView(out.buffer).setUint32(0, length, false);
  out[CHANNEL_FRAME_HEADER_BYTES] = BINARY_MARKER;
  out[CHANNEL_FRAME_HEADER_BYTES + 1] = kindIndex + 1;
  out[CHANNEL_FRAME_HEADER_BYTES + 2] = id.byteLength;
  out.set(id, CHANNEL_FRAME_HEADER_BYTES + BINARY_HEADER_BYTES);
  return out;
}

/**
 * Serialise one frame, after checking it against its schema (a bad outgoing frame is our bug).
 * Returns the frame's bytes as parts to write in order: one for a JSON frame; for a body frame its
 * header, then the caller's body bytes themselves (which the caller must not modify afterwards).
 */
export function encodeFrame<S extends z.ZodType>(schema: S, frame: z.infer<S>): Uint8Array[] {
  const checked = schema.safeParse(frame);
  if (!checked.success) {
    throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'refusing to send a frame that fails its schema', {
      cause: checked.error,
    });
  }
  // A body frame's size is already bounded by its schema (id ≤ 128 bytes, body ≤ CHANNEL_MAX_BODY_CHUNK_BYTES).
  const kindIndex = binaryKindOf(checked.data);
  if (kindIndex >= 0) {
    const body = checked.data as BodyFrame;
    const header = encodeBinaryHeader(kindIndex, body);
    return body.data.byteLength === 0 ? [header] : [header, body.data];
  }
  const payload = utf8Encoder.encode(JSON.stringify(checked.data));
  if (payload.byteLength === 0 || payload.byteLength > CHANNEL_MAX_FRAME_BYTES) {
    throw new ChannelError('CHANNEL_FRAME_TOO_LARGE', `frame of ${payload.byteLength} bytes exceeds the bound`);
  }
  const out = new Uint8Array(CHANNEL_FRAME_HEADER_BYTES + payload.byteLength);
  new DataView(out.buffer).setUint32(0, payload.byteLength, false);
  out.set(payload, CHANNEL_FRAME_HEADER_BYTES);
  return [out];
}

/**
 * The encoder for one direction of the channel: encodeFrame, with each body's header checked
 * against the schema once. A later chunk of that body (same kind and id, the frame's keys exactly
 * the kind's, `v: 1`, its bytes within the bound) reuses the checked header's bytes, so the
 * schema a body frame passes is the same for every chunk but the first is not run again.
 */
export class FrameEncoder<S extends z.ZodType> {
  readonly #schema: S;
  /** The header bytes after the length prefix, per checked (kind, id). */
  readonly #headers = new CheckedBodyHeaders<Uint8Array>();
  /**
   * Where body chunk headers are written, one after another; a full slab is replaced, never
   * rewritten (a header handed to the sink may still wait to be written). An array of its own per
   * header would be a small typed array on V8's heap, which a Node stream moves out (an allocation
   * and a copy) before writing it; views of a slab are written as they are.
   */
  #slab = new Uint8Array(CHANNEL_HEADER_SLAB_BYTES);
  #slabUsed = 0;

  constructor(schema: S) {
    this.#schema = schema;
  }

  /** encodeFrame's parts for `frame`; throws as encodeFrame does. */
  encode(frame: z.infer<S>): Uint8Array[] {
    const kindIndex = binaryKindOf(frame);
    if (kindIndex < 0) return encodeFrame(this.#schema, frame);
    const body = frame as BodyFrame;
    const kind = BINARY_KINDS[kindIndex] as BinaryKind;
    const id = body[kind.idField];
    const checked = typeof id === 'string' ? this.#headers.get(kindIndex, id) : undefined;
    if (
      checked === undefined ||
      body.v !== 1 ||
      body.data.byteLength > CHANNEL_MAX_BODY_CHUNK_BYTES ||
      keyCount(body) !== BINARY_KIND_KEYS[kindIndex]
    ) {
      const parts = encodeFrame(this.#schema, frame);
      this.#headers.add(kindIndex, id as string, (parts[0] as Uint8Array).subarray(CHANNEL_FRAME_HEADER_BYTES));
      return parts;
    }
    const header = this.#headerSpace(CHANNEL_FRAME_HEADER_BYTES + checked.byteLength);
    const length = checked.byteLength + body.data.byteLength;
    header[0] = length >>> 24;
    header[1] = (length >>> 16) & 0xff;
    header[2] = (length >>> 8) & 0xff;
    header[3] = length & 0xff;
    header.set(checked, CHANNEL_FRAME_HEADER_BYTES);
    return body.data.byteLength === 0 ? [header] : [header, body.data];
  }

  #headerSpace(size: number): Uint8Array {
    if (this.#slabUsed + size > this.#slab.byteLength) {
      this.#slab = new Uint8Array(CHANNEL_HEADER_SLAB_BYTES);
      this.#slabUsed = 0;
    }
    const header = this.#slab.subarray(this.#slabUsed, this.#slabUsed + size);
    this.#slabUsed += size;
    return header;
  }
}

/** How many own enumerable keys `frame` has, without building their array. */
function keyCount(frame: object): number {
  let count = 0;
  for (const key in frame) if (Object.hasOwn(frame, key)) count += 1;
  return count;
}

/**
 * Incremental decoder for one direction of the channel. A binary body frame comes out as one or
 * more frames of its type and id whose `data` together are its body, in order: each is the part of
 * the body that a push completed, handed on without waiting for the rest. A part is a view of the
 * pushed bytes when it covers at least 1/CHANNEL_MAX_BODY_VIEW_RETENTION of the buffer it would
 * keep alive, and a copy otherwise, so what the parts retain stays within that multiple of their
 * own size. Pushed bytes must not be modified afterwards (Node's stream chunks never are).
 */
export class FrameDecoder<S extends z.ZodType> {
  readonly #schema: S;
  readonly #utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  /** Payload length of the frame whose payload is being read. */
  #expected: number | undefined;
  #body: BodyInProgress | undefined;
  #failure: ChannelError | undefined;
  readonly #checkedHeaders = new CheckedBodyHeaders<true>();

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
        if (this.#body) {
          if (this.#buffered === 0) break;
          this.#passBody(this.#body, frames);
          continue;
        }
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
        if (this.#buffered === 0) break;
        if (this.#peek(0) === BINARY_MARKER) {
          if (!this.#startBody(this.#expected, frames)) break;
          this.#expected = undefined;
          continue;
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
      this.#body = undefined;
      throw this.#failure;
    }
    return frames;
  }

  /** The peer closed its end: a half-received frame is an error. */
  end(): void {
    if (this.#failure) return;
    if (this.#buffered > 0 || this.#expected !== undefined || this.#body !== undefined) {
      this.#failure = new ChannelError('CHANNEL_CLOSED', 'channel closed inside a frame');
      throw this.#failure;
    }
  }

  /**
   * Read and check a binary frame's header once it is buffered (false while it is not). A body
   * that is empty yields its frame now; otherwise the body is passed on as it arrives.
   */
  #startBody(length: number, frames: z.infer<S>[]): boolean {
    if (length < BINARY_HEADER_BYTES) throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'malformed binary frame header');
    if (this.#buffered < BINARY_HEADER_BYTES) return false;
    const idLength = this.#peek(2);
    const headerLength = BINARY_HEADER_BYTES + idLength;
    if (length < headerLength) throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'malformed binary frame header');
    if (this.#buffered < headerLength) return false;
    const header = this.#take(headerLength);
    const kindIndex = (header[1] ?? 0) - 1;
    const kind = BINARY_KINDS[kindIndex];
    if (kind === undefined) throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'unknown binary frame kind');
    let id: string;
    try {
      id = asciiDecoder.decode(header.subarray(BINARY_HEADER_BYTES));
    } catch (cause) {
      throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'binary frame id is not ASCII', { cause });
    }
    const bodyLength = length - headerLength;
    if (bodyLength > CHANNEL_MAX_BODY_CHUNK_BYTES) {
      throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'binary frame body is larger than the bound');
    }
    // The strict schema sees the header with an empty body: kind for this direction, id alphabet and length.
    if (!this.#checkedHeaders.get(kindIndex, id)) {
      this.#check(bodyFrame(kind, id, new Uint8Array(0)));
      this.#checkedHeaders.add(kindIndex, id, true);
    }
    if (bodyLength === 0) frames.push(bodyFrame(kind, id, new Uint8Array(0)) as z.infer<S>);
    else this.#body = { kind, id, remaining: bodyLength };
    return true;
  }

  /** Hand on the buffered part of the body in progress, one frame per pushed chunk it spans. */
  #passBody(body: BodyInProgress, frames: z.infer<S>[]): void {
    while (body.remaining > 0) {
      const head = this.#chunks[0];
      if (head === undefined) return;
      const size = Math.min(head.byteLength, body.remaining);
      const part = head.subarray(0, size);
      if (size === head.byteLength) this.#chunks.shift();
      else this.#chunks[0] = head.subarray(size);
      this.#buffered -= size;
      body.remaining -= size;
      const data = size * CHANNEL_MAX_BODY_VIEW_RETENTION >= part.buffer.byteLength ? part : new Uint8Array(part);
      frames.push(bodyFrame(body.kind, body.id, data) as z.infer<S>);
    }
    this.#body = undefined;
  }

  /** The buffered byte at `index` (which must be buffered). */
  #peek(index: number): number {
    let offset = index;
    for (const chunk of this.#chunks) {
      if (offset < chunk.byteLength) return chunk[offset] as number;
      offset -= chunk.byteLength;
    }
    throw new ChannelError('CHANNEL_FAILED', 'decoder underflow');
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
