import { DAEMON_EVENT_MAX_CHARS } from '@bastion/protocol';
import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../test/support/attack.js';
import { chunkings, delta, INVALID_STREAM_CASES, RUN, SPLIT_STREAM } from '../../../test/support/event-stream-cases.js';
import { readAgentEvents } from './event-stream.js';

const encoder = new TextEncoder();

/** A fetch-like body that hands out one chunk a read and counts the reads. */
function bodyOf(chunks: Iterator<string>) {
  const stats = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.next();
      if (next.done) return controller.close();
      stats.pulled += 1;
      controller.enqueue(encoder.encode(next.value));
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { body, stats };
}

async function collect(chunks: Iterable<string>) {
  const events: unknown[] = [];
  const { body } = bodyOf(chunks[Symbol.iterator]());
  await readAgentEvents(body, (event) => events.push(event));
  return events;
}

describe('the bridge reader of the agent event stream', () => {
  it('parses events split at every chunk boundary, skipping heartbeat comments', async () => {
    for (const chunks of chunkings(SPLIT_STREAM.text)) expect(await collect(chunks)).toEqual(SPLIT_STREAM.events);
  });
});

describeAttack('channel-abuse', 'the daemon event stream, read by the bridge in the tab', () => {
  it('an endless line is cut at DAEMON_EVENT_MAX_CHARS with DAEMON_EVENT_TOO_LARGE, the body cancelled having pulled no more than the bound', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    function* endless() {
      yield 'id: 1\nevent: text-delta\ndata: ';
      for (;;) yield chunk;
    }
    const { body, stats } = bodyOf(endless());
    const events: unknown[] = [];
    await expect(readAgentEvents(body, (event) => events.push(event))).rejects.toMatchObject({
      name: 'BridgeError',
      code: 'DAEMON_EVENT_TOO_LARGE',
      message: 'the agent sent an event over the size bound',
    });
    expect(events).toEqual([]);
    expect((stats.pulled - 1) * chunk.length).toBeLessThanOrEqual(DAEMON_EVENT_MAX_CHARS + chunk.length);
    expect(stats.cancelled).toBe(true);
  });

  const invalid: [name: string, text: string][] = [
    ...INVALID_STREAM_CASES,
    ['data that is no object', 'id: 3\ndata: [1]\n\n'],
    ['an event without a type', `id: 3\ndata: ${JSON.stringify({ run_id: RUN })}\n\n`],
  ];
  for (const [name, text] of invalid) {
    it(`${name} ends the stream with DAEMON_EVENT_INVALID after the events before it, none after`, async () => {
      const events: unknown[] = [];
      const { body } = bodyOf([delta(1, 'kept'), text, delta(4, 'never')][Symbol.iterator]());
      await expect(readAgentEvents(body, (event) => events.push(event))).rejects.toMatchObject({
        code: 'DAEMON_EVENT_INVALID',
      });
      expect(events).toEqual([{ id: 1, event: { type: 'text-delta', run_id: RUN, text: 'kept' } }]);
    });
  }
});
