import { describe, expect, it } from 'vitest';
import { CHANNEL_MAX_BODY_CHUNK_BYTES } from '../limits.js';
import { encodeFrame, FrameDecoder } from './codec.js';
import { hostToSidecarFrameSchema, sidecarToHostFrameSchema } from './frames.js';

function framed(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.byteLength);
  new DataView(out.buffer).setUint32(0, payload.byteLength, false);
  out.set(payload, 4);
  return out;
}

describe('binary body frames', () => {
  it('round-trips request and response chunks as raw bytes, byte for byte', () => {
    const data = new Uint8Array(CHANNEL_MAX_BODY_CHUNK_BYTES).map((_, i) => i % 251);
    const up = encodeFrame(sidecarToHostFrameSchema, { v: 1, type: 'request.chunk', request_id: 'req-1', data });
    expect(up[4]).toBe(0);
    expect(up.byteLength).toBe(4 + 3 + 5 + data.byteLength);
    const [decodedUp] = new FrameDecoder(sidecarToHostFrameSchema).push(up);
    expect(decodedUp).toEqual({ v: 1, type: 'request.chunk', request_id: 'req-1', data });
    const down = encodeFrame(hostToSidecarFrameSchema, {
      v: 1,
      type: 'response.chunk',
      request_id: 'r',
      data: data.subarray(0, 10),
    });
    const decoder = new FrameDecoder(hostToSidecarFrameSchema);
    const frames = [...down].flatMap((byte) => decoder.push(Uint8Array.of(byte)));
    expect(frames).toEqual([{ v: 1, type: 'response.chunk', request_id: 'r', data: data.subarray(0, 10) }]);
  });

  it('refuses a chunk one byte over the bound, on both sides', () => {
    const data = new Uint8Array(CHANNEL_MAX_BODY_CHUNK_BYTES + 1);
    expect(() => encodeFrame(sidecarToHostFrameSchema, { v: 1, type: 'request.chunk', request_id: 'x', data })).toThrow(
      expect.objectContaining({ code: 'CHANNEL_FRAME_SCHEMA' }),
    );
    const payload = new Uint8Array([0, 1, 1, 0x78, ...data]);
    expect(() => new FrameDecoder(sidecarToHostFrameSchema).push(framed(payload))).toThrow(
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
});
