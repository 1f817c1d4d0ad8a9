import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChannelError } from '../errors.js';
import { CHANNEL_FRAME_HEADER_BYTES, CHANNEL_MAX_FRAME_BYTES } from '../limits.js';
import { encodeFrame, FrameDecoder } from './codec.js';
import { hostToSidecarFrameSchema } from './frames.js';

const testFrameSchema = z.strictObject({ v: z.literal(1), type: z.literal('test'), text: z.string() });
type TestFrame = z.infer<typeof testFrameSchema>;

function rawFrame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(CHANNEL_FRAME_HEADER_BYTES + payload.byteLength);
  new DataView(out.buffer).setUint32(0, payload.byteLength, false);
  out.set(payload, CHANNEL_FRAME_HEADER_BYTES);
  return out;
}

function jsonFrame(value: unknown): Uint8Array {
  return rawFrame(new TextEncoder().encode(JSON.stringify(value)));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** One frame's encoded parts as contiguous bytes. */
function encoded(frame: TestFrame): Uint8Array {
  return concat(encodeFrame(testFrameSchema, frame));
}

/** Split bytes at the given cut points (as fractions), yielding arbitrary fragmentation. */
function fragment(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.floor(c * bytes.byteLength)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    if (point > start && point < bytes.byteLength) {
      pieces.push(bytes.subarray(start, point));
      start = point;
    }
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

function decodeError(bytes: Uint8Array): ChannelError {
  const decoder = new FrameDecoder(testFrameSchema);
  try {
    decoder.push(bytes);
  } catch (error) {
    return error as ChannelError;
  }
  throw new Error('decoder accepted bad input');
}

/** A payload of exactly `size` bytes that is a valid test frame. */
function frameOfPayloadSize(size: number): TestFrame {
  const overhead = JSON.stringify({ v: 1, type: 'test', text: '' }).length;
  return { v: 1, type: 'test', text: 'x'.repeat(size - overhead) };
}

describe('channel v1 codec', () => {
  it('round-trips any sequence of frames under any fragmentation', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 200 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }),
        (texts, cuts) => {
          const frames: TestFrame[] = texts.map((text) => ({ v: 1, type: 'test', text }));
          const bytes = concat(frames.map(encoded));
          const decoder = new FrameDecoder(testFrameSchema);
          const out = fragment(bytes, cuts).flatMap((piece) => decoder.push(piece));
          expect(out).toEqual(frames);
          expect(() => decoder.end()).not.toThrow();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('turns arbitrary bytes into frames or a ChannelError, never another exception', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => {
        const decoder = new FrameDecoder(testFrameSchema);
        try {
          decoder.push(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(ChannelError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('accepts a stream delivered one byte at a time', () => {
    const frames: TestFrame[] = [
      { v: 1, type: 'test', text: 'héllo ☃ 𝄞' },
      { v: 1, type: 'test', text: '' },
    ];
    const bytes = concat(frames.map(encoded));
    const decoder = new FrameDecoder(testFrameSchema);
    const out: TestFrame[] = [];
    for (let i = 0; i < bytes.byteLength; i++) out.push(...decoder.push(bytes.subarray(i, i + 1)));
    expect(out).toEqual(frames);
  });

  it('accepts a frame of exactly the maximum size, even byte by byte in large steps', () => {
    const frame = frameOfPayloadSize(CHANNEL_MAX_FRAME_BYTES);
    const bytes = encoded(frame);
    expect(bytes.byteLength).toBe(CHANNEL_FRAME_HEADER_BYTES + CHANNEL_MAX_FRAME_BYTES);
    const decoder = new FrameDecoder(testFrameSchema);
    const out: TestFrame[] = [];
    for (let i = 0; i < bytes.byteLength; i += 4099) out.push(...decoder.push(bytes.subarray(i, i + 4099)));
    expect(out).toEqual([frame]);
  });

  it('refuses a frame one byte over the maximum from its header alone, before buffering the payload', () => {
    const header = new Uint8Array(CHANNEL_FRAME_HEADER_BYTES);
    new DataView(header.buffer).setUint32(0, CHANNEL_MAX_FRAME_BYTES + 1, false);
    expect(decodeError(header).code).toBe('CHANNEL_FRAME_TOO_LARGE');
    expect(() => encodeFrame(testFrameSchema, frameOfPayloadSize(CHANNEL_MAX_FRAME_BYTES + 1))).toThrow(
      expect.objectContaining({ code: 'CHANNEL_FRAME_TOO_LARGE' }),
    );
  });

  it('refuses a zero-length frame', () => {
    expect(decodeError(new Uint8Array(4)).code).toBe('CHANNEL_FRAME_EMPTY');
  });

  it('refuses invalid UTF-8 (overlong encoding, lone continuation byte)', () => {
    expect(decodeError(rawFrame(new Uint8Array([0x7b, 0xc0, 0xaf, 0x7d]))).code).toBe('CHANNEL_FRAME_UTF8');
    expect(decodeError(rawFrame(new Uint8Array([0x22, 0x80, 0x22]))).code).toBe('CHANNEL_FRAME_UTF8');
  });

  it('refuses bad JSON', () => {
    expect(decodeError(rawFrame(new TextEncoder().encode('{"v":1,'))).code).toBe('CHANNEL_FRAME_JSON');
  });

  it('refuses a wrong or missing version', () => {
    expect(decodeError(jsonFrame({ v: 2, type: 'test', text: '' })).code).toBe('CHANNEL_FRAME_VERSION');
    expect(decodeError(jsonFrame({ type: 'test', text: '' })).code).toBe('CHANNEL_FRAME_VERSION');
  });

  it('refuses unknown keys, wrong types and non-object payloads', () => {
    expect(decodeError(jsonFrame({ v: 1, type: 'test', text: '', extra: true })).code).toBe('CHANNEL_FRAME_SCHEMA');
    expect(decodeError(jsonFrame({ v: 1, type: 'test', text: 5 })).code).toBe('CHANNEL_FRAME_SCHEMA');
    expect(decodeError(jsonFrame({ v: 1, type: 'other', text: '' })).code).toBe('CHANNEL_FRAME_SCHEMA');
    expect(decodeError(jsonFrame([1])).code).toBe('CHANNEL_FRAME_SCHEMA');
    expect(decodeError(jsonFrame('text')).code).toBe('CHANNEL_FRAME_SCHEMA');
  });

  it('does not echo the offending value in a schema error message', () => {
    const error = decodeError(jsonFrame({ v: 1, type: 'test', text: 42, secret: 'canary-7f3a' }));
    expect(error.message).not.toContain('canary-7f3a');
  });

  it('stays failed after the first error, even when valid frames follow', () => {
    const decoder = new FrameDecoder(testFrameSchema);
    expect(() => decoder.push(new Uint8Array(4))).toThrow(expect.objectContaining({ code: 'CHANNEL_FRAME_EMPTY' }));
    expect(decoder.failed).toBe(true);
    const valid = encoded({ v: 1, type: 'test', text: 'after' });
    expect(() => decoder.push(valid)).toThrow(expect.objectContaining({ code: 'CHANNEL_FAILED' }));
  });

  it('fails a push as a whole when a bad frame follows, and parses nothing after it', () => {
    const decoder = new FrameDecoder(testFrameSchema);
    const good = encoded({ v: 1, type: 'test', text: 'ok' });
    expect(decoder.push(good)).toHaveLength(1);
    expect(() => decoder.push(concat([jsonFrame({ v: 9 }), good]))).toThrow(
      expect.objectContaining({ code: 'CHANNEL_FRAME_VERSION' }),
    );
    expect(() => decoder.push(good)).toThrow(expect.objectContaining({ code: 'CHANNEL_FAILED' }));
  });

  it('reports a stream closed inside a frame', () => {
    const decoder = new FrameDecoder(testFrameSchema);
    const bytes = encoded({ v: 1, type: 'test', text: 'cut' });
    decoder.push(bytes.subarray(0, 6));
    expect(() => decoder.end()).toThrow(expect.objectContaining({ code: 'CHANNEL_CLOSED' }));
  });

  it('refuses to encode a frame that fails its own schema', () => {
    expect(() =>
      encodeFrame(hostToSidecarFrameSchema, { v: 1, type: 'shutdown', extra: 1 } as unknown as {
        v: 1;
        type: 'shutdown';
      }),
    ).toThrow(expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }));
  });

  it('checks the real bootstrap frame strictly (password is a string, port in range)', () => {
    const bootstrap = {
      v: 1,
      type: 'bootstrap',
      password: 'p'.repeat(43),
      daemon_port: 70_000,
      allowed_origins: ['http://127.0.0.1:1'],
      user_data: '/tmp/x',
      workspaces: [],
      capabilities: { sandbox: 'srt', shell: true, platform: 'linux' },
    };
    const decoder = new FrameDecoder(hostToSidecarFrameSchema);
    expect(() => decoder.push(jsonFrame(bootstrap))).toThrow(expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }));
  });
});
