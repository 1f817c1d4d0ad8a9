import { describe, expect, it, vi } from 'vitest';
import {
  CHANNEL_CHECKED_BODY_HEADERS,
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  CHANNEL_MAX_BODY_VIEW_RETENTION,
} from '../limits.js';
import { encodeFrame, FrameDecoder, FrameEncoder } from './codec.js';
import { hostToSidecarFrameSchema, sidecarToHostFrameSchema } from './frames.js';

function framed(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.byteLength);
  new DataView(out.buffer).setUint32(0, payload.byteLength, false);
  out.set(payload, 4);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** The encoded parts of a host→sidecar `response.chunk` of request `r`: its header, then `data` itself. */
function responseChunk(data: Uint8Array): Uint8Array[] {
  return encodeFrame(hostToSidecarFrameSchema, { v: 1, type: 'response.chunk', request_id: 'r', data });
}

/** The body bytes of every body frame decoded, joined in order. */
function bodyOf(frames: readonly { type: string; data?: Uint8Array }[]): Uint8Array {
  return concat(frames.map((frame) => frame.data ?? new Uint8Array(0)));
}

describe('binary body frames', () => {
  it('round-trips request and response chunks as raw bytes, byte for byte, under any fragmentation', () => {
    const data = new Uint8Array(CHANNEL_MAX_BODY_CHUNK_BYTES).map((_, i) => i % 251);
    const up = encodeFrame(sidecarToHostFrameSchema, { v: 1, type: 'request.chunk', request_id: 'req-1', data });
    // The header is its own part and the body is the caller's bytes, not a copy.
    expect(up).toHaveLength(2);
    expect(up[1]).toBe(data);
    expect(up[0]?.[4]).toBe(0);
    expect(up[0]?.byteLength).toBe(4 + 3 + 5);
    const [decodedUp, ...rest] = new FrameDecoder(sidecarToHostFrameSchema).push(concat(up));
    expect(rest).toEqual([]);
    expect(decodedUp).toEqual({ v: 1, type: 'request.chunk', request_id: 'req-1', data });

    const down = concat(responseChunk(data.subarray(0, 10)));
    const decoder = new FrameDecoder(hostToSidecarFrameSchema);
    const frames = [...down].flatMap((byte) => decoder.push(Uint8Array.of(byte)));
    expect(frames.every((frame) => frame.type === 'response.chunk' && frame.request_id === 'r')).toBe(true);
    expect(bodyOf(frames as { type: string; data: Uint8Array }[])).toEqual(data.subarray(0, 10));
    expect(() => decoder.end()).not.toThrow();
  });

  it("carries a command's output as raw bytes, its stream in the kind byte, host to sidecar only", () => {
    const decoder = new FrameDecoder(hostToSidecarFrameSchema);
    for (const stream of ['stdout', 'stderr'] as const) {
      const data = new TextEncoder().encode(`${stream} \u00e9\n`);
      const parts = encodeFrame(hostToSidecarFrameSchema, { v: 1, type: 'command.output', id: 'cmd_1', stream, data });
      expect(parts[0]?.[4]).toBe(0);
      expect(parts[1]).toBe(data);
      const frames = [...concat(parts)].flatMap((byte) => decoder.push(Uint8Array.of(byte)));
      expect(
        frames.every((frame) => frame.type === 'command.output' && frame.id === 'cmd_1' && frame.stream === stream),
      ).toBe(true);
      expect(bodyOf(frames as { type: string; data: Uint8Array }[])).toEqual(data);
    }
    // Kinds 3 and 4 (command output) are no frame the host accepts from the sidecar.
    for (const kind of [3, 4]) {
      expect(() =>
        new FrameDecoder(sidecarToHostFrameSchema).push(framed(new Uint8Array([0, kind, 1, 0x78, 1]))),
      ).toThrow(expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }));
    }
  });

  it('passes body bytes on as they arrive, and a stream cut inside the body is still an error', () => {
    const data = new Uint8Array(1000).fill(7);
    const bytes = concat(responseChunk(data));
    const decoder = new FrameDecoder(hostToSidecarFrameSchema);
    const first = decoder.push(bytes.subarray(0, 600));
    expect(first).toEqual([{ v: 1, type: 'response.chunk', request_id: 'r', data: data.subarray(0, 600 - 8) }]);
    expect(() => decoder.end()).toThrow(expect.objectContaining({ code: 'CHANNEL_CLOSED' }));
  });

  it('keeps large body parts as views of the pushed bytes and copies small ones (bounded retention)', () => {
    const header = responseChunk(new Uint8Array(40_000))[0] as Uint8Array;
    // A 40 000-byte body in a 40 008-byte push: passed on as a view, no copy.
    const whole = concat([header, new Uint8Array(40_000)]);
    const [view] = new FrameDecoder(hostToSidecarFrameSchema).push(whole) as { data: Uint8Array }[];
    expect(view?.data.buffer).toBe(whole.buffer);
    // A 100-byte body part read into a buffer the retention bound allows it to keep alive: a view;
    // into a buffer one byte larger: a copy, so small parts cannot pin large reads.
    const small = responseChunk(new Uint8Array(100))[0] as Uint8Array;
    for (const extra of [0, 1]) {
      const read = new Uint8Array(100 * CHANNEL_MAX_BODY_VIEW_RETENTION + extra);
      read.set(small);
      const [part] = new FrameDecoder(hostToSidecarFrameSchema).push(read.subarray(0, small.byteLength + 100)) as {
        data: Uint8Array;
      }[];
      expect(part?.data.byteLength).toBe(100);
      expect(part?.data.buffer === read.buffer).toBe(extra === 0);
    }
  });

  it('refuses a body one byte over the bound from the header alone, on both sides', () => {
    const data = new Uint8Array(CHANNEL_MAX_BODY_CHUNK_BYTES + 1);
    expect(() => encodeFrame(sidecarToHostFrameSchema, { v: 1, type: 'request.chunk', request_id: 'x', data })).toThrow(
      expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }),
    );
    const payload = new Uint8Array([0, 1, 1, 0x78, ...data]);
    expect(() => new FrameDecoder(sidecarToHostFrameSchema).push(framed(payload).subarray(0, 8))).toThrow(
      expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }),
    );
  });

  it('refuses body chunks smuggled as JSON, unknown kinds, kinds for the other direction, bad ids and truncated headers', () => {
    const json = new TextEncoder().encode(
      JSON.stringify({ v: 1, type: 'request.chunk', request_id: 'x', data: { 0: 1 } }),
    );
    for (const payload of [
      json,
      new Uint8Array([0, 9, 1, 0x78, 1, 2]),
      new Uint8Array([0, 2, 1, 0x78, 1, 2]), // response.chunk sent to the host
      new Uint8Array([0, 1, 1, 0xff, 1, 2]), // non-ASCII id
      new Uint8Array([0, 1, 2, 0x2f, 0x2f]), // id outside the id alphabet
      new Uint8Array([0, 1, 40, 0x78]), // id longer than the payload
      new Uint8Array([0]),
    ]) {
      expect(() => new FrameDecoder(sidecarToHostFrameSchema).push(framed(payload))).toThrow(
        expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }),
      );
    }
  });

  it("runs the schema on a body's first chunk only, and each later chunk encodes to encodeFrame's exact bytes", () => {
    const schema = hostToSidecarFrameSchema;
    const checks = vi.spyOn(schema, 'safeParse');
    const encoder = new FrameEncoder(schema);
    const decoder = new FrameDecoder(schema);
    for (const size of [10, CHANNEL_MAX_BODY_CHUNK_BYTES, 0, 3]) {
      const frame = {
        v: 1,
        type: 'response.chunk',
        request_id: 'req-a',
        data: new Uint8Array(size).fill(size % 251),
      } as const;
      const parts = encoder.encode(frame);
      expect(parts.map((part) => [...part])).toEqual(encodeFrame(schema, frame).map((part) => [...part]));
      if (size > 0) expect(parts[1]).toBe(frame.data);
    }
    // Four encodes above ran the schema once, plus once per encodeFrame compared against.
    expect(checks).toHaveBeenCalledTimes(1 + 4);
    checks.mockClear();
    const stream = { v: 1, type: 'command.output', id: 'cmd_1', stream: 'stderr', data: new Uint8Array(5) } as const;
    encoder.encode(stream);
    encoder.encode(stream);
    // The same id under another kind is a header of its own, checked once.
    expect(checks).toHaveBeenCalledTimes(1);
    checks.mockClear();
    for (let index = 0; index < 3; index += 1) {
      decoder.push(
        concat(encodeFrame(schema, { v: 1, type: 'response.chunk', request_id: 'req-b', data: Uint8Array.of(index) })),
      );
    }
    checks.mockClear();
    decoder.push(
      concat(encodeFrame(schema, { v: 1, type: 'response.chunk', request_id: 'req-b', data: Uint8Array.of(9) })),
    );
    // encodeFrame above is the one check: the decoder checked req-b's header on its first chunk only.
    expect(checks).toHaveBeenCalledTimes(1);
    checks.mockRestore();
  });

  it('refuses, after a checked header of the same id, a chunk with an extra key, a wrong version, bytes over the bound or a bad id', () => {
    const encoder = new FrameEncoder(sidecarToHostFrameSchema);
    const data = new Uint8Array(4);
    encoder.encode({ v: 1, type: 'request.chunk', request_id: 'req-1', data });
    for (const frame of [
      { v: 1, type: 'request.chunk', request_id: 'req-1', data, extra: 'x' },
      { v: 2, type: 'request.chunk', request_id: 'req-1', data },
      { v: 1, type: 'request.chunk', request_id: 'req-1', data: new Uint8Array(CHANNEL_MAX_BODY_CHUNK_BYTES + 1) },
      { v: 1, type: 'request.chunk', request_id: 'req/1', data },
      { v: 1, type: 'request.chunk', data, extra: 'req-1' },
    ]) {
      expect(() => encoder.encode(frame as never)).toThrow(expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }));
    }
    // The decoder: a checked id does not let a bad one through, nor a kind of the other direction with it.
    const decoder = new FrameDecoder(sidecarToHostFrameSchema);
    decoder.push(framed(new Uint8Array([0, 1, 1, 0x78, 1])));
    expect(() => decoder.push(framed(new Uint8Array([0, 1, 1, 0x2f, 1])))).toThrow(
      expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }),
    );
    const again = new FrameDecoder(sidecarToHostFrameSchema);
    again.push(framed(new Uint8Array([0, 1, 1, 0x78, 1])));
    expect(() => again.push(framed(new Uint8Array([0, 2, 1, 0x78, 1])))).toThrow(
      expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }),
    );
  });

  it("keeps each body chunk's header bytes as encoded while thousands of later chunks are encoded after it", () => {
    const schema = hostToSidecarFrameSchema;
    const encoder = new FrameEncoder(schema);
    const frames = Array.from(
      { length: 3000 },
      (_, index) =>
        ({
          v: 1,
          type: 'response.chunk',
          request_id: `req-${index % 3}-${'x'.repeat(40 * (index % 3))}`,
          data: new Uint8Array(1 + (index % 300)),
        }) as const,
    );
    // Every header is held until the end, as a sink's queue may hold them, then compared.
    const headers = frames.map((frame) => encoder.encode(frame)[0] as Uint8Array);
    frames.forEach((frame, index) =>
      expect([...(headers[index] as Uint8Array)]).toEqual([...(encodeFrame(schema, frame)[0] as Uint8Array)]),
    );
  });

  it(`remembers at most ${CHANNEL_CHECKED_BODY_HEADERS} checked headers, and encodes correctly past them`, () => {
    const schema = hostToSidecarFrameSchema;
    const encoder = new FrameEncoder(schema);
    const checks = vi.spyOn(schema, 'safeParse');
    const frameOf = (index: number) =>
      ({ v: 1, type: 'response.chunk', request_id: `req-${index}`, data: Uint8Array.of(index % 256) }) as const;
    for (let index = 0; index <= CHANNEL_CHECKED_BODY_HEADERS; index += 1) encoder.encode(frameOf(index));
    checks.mockClear();
    // Past the bound the memory started over with the last id: the first id is checked again, the last is not.
    encoder.encode(frameOf(CHANNEL_CHECKED_BODY_HEADERS));
    expect(checks).toHaveBeenCalledTimes(0);
    const parts = encoder.encode(frameOf(0));
    expect(checks).toHaveBeenCalledTimes(1);
    checks.mockRestore();
    expect(new FrameDecoder(schema).push(concat(parts))).toEqual([frameOf(0)]);
  });
});
