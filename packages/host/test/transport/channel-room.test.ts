/**
 * The channel's answer to a sender about room in its sink (FramedChannel.send), on a real Node
 * stream: the host's executor pauses a body on it and waits for the drain.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  FramedChannel,
  hostToSidecarFrameSchema,
  sidecarToHostFrameSchema,
} from '@bastion/protocol';

/** The host's end of a channel whose sink is `sink` (nothing ever arrives on its source). */
function hostEnd(sink: PassThrough) {
  return new FramedChannel({
    source: new PassThrough(),
    sink,
    inbound: sidecarToHostFrameSchema,
    outbound: hostToSidecarFrameSchema,
    onClose: () => undefined,
  });
}

const chunk = (data: Uint8Array) => ({ v: 1, type: 'response.chunk', request_id: 'req-1', data }) as const;

describe('FramedChannel.send', () => {
  it('answers room for a body chunk over the high-water mark that the sink passed on at once', () => {
    const sink = new PassThrough();
    let received = 0;
    sink.on('data', (bytes: Buffer) => (received += bytes.byteLength));
    const data = new Uint8Array(CHANNEL_MAX_BODY_CHUNK_BYTES);
    expect(data.byteLength).toBeGreaterThan(sink.writableHighWaterMark);
    // Node's own `write` answers false for it: it compares before the sink tries to pass it on.
    expect(new PassThrough().write(data)).toBe(false);
    const channel = hostEnd(sink);
    for (let index = 0; index < 4; index += 1) expect(channel.send(chunk(data))).toBe(true);
    expect(sink.writableLength).toBe(0);
    expect(received).toBeGreaterThan(4 * data.byteLength);
  });

  it("answers full while the sink holds its high-water mark or more, and onDrain runs once the sink's reader takes it", async () => {
    const sink = new PassThrough();
    const channel = hostEnd(sink);
    const data = new Uint8Array(CHANNEL_MAX_BODY_CHUNK_BYTES);
    let sent = 0;
    while (channel.send(chunk(data))) sent += 1;
    expect(sink.writableLength).toBeGreaterThanOrEqual(sink.writableHighWaterMark);
    // What the reader side had room for went through; the rest waits in the sink, at most one chunk more.
    expect(sink.writableLength).toBeLessThanOrEqual(sink.writableHighWaterMark + data.byteLength + 16);
    const drained = new Promise<void>((resolve) => channel.onDrain(resolve));
    let received = 0;
    sink.on('data', (bytes: Buffer) => (received += bytes.byteLength));
    await drained;
    expect(sink.writableLength).toBe(0);
    expect(received).toBeGreaterThan((sent + 1) * data.byteLength);
  });
});
