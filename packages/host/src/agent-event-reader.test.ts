import { DAEMON_EVENT_MAX_CHARS } from '@bastion/protocol';
import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../test/support/attack.js';
import { chunkings, delta, INVALID_STREAM_CASES, RUN, SPLIT_STREAM } from '../../../test/support/event-stream-cases.js';
import { readAgentEvents } from './agent-event-reader.js';

/** The chunks as a stream body, one chunk a read. */
async function* streamOf(chunks: Iterable<string> | AsyncIterable<string>): AsyncGenerator<string> {
  yield* chunks;
}

async function collect(chunks: Iterable<string> | AsyncIterable<string>) {
  const events = [];
  for await (const event of readAgentEvents(streamOf(chunks))) events.push(event);
  return events;
}

describe('readAgentEvents', () => {
  it('parses events split at every chunk boundary, skipping heartbeat comments', async () => {
    for (const chunks of chunkings(SPLIT_STREAM.text)) expect(await collect(chunks)).toEqual(SPLIT_STREAM.events);
  });
});

describeAttack('channel-abuse', 'the daemon event stream, read by the host', () => {
  it('a message that never ends is cut at DAEMON_EVENT_MAX_CHARS (DAEMON_EVENT_TOO_LARGE), having pulled no more than the bound', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    let pulled = 0;
    function* endless() {
      yield 'id: 1\nevent: text-delta\ndata: ';
      for (;;) {
        pulled += 1;
        yield chunk;
      }
    }
    await expect(collect(endless())).rejects.toMatchObject({ code: 'DAEMON_EVENT_TOO_LARGE' });
    expect(pulled * chunk.length).toBeLessThanOrEqual(DAEMON_EVENT_MAX_CHARS + chunk.length);
  });

  const invalid: [name: string, text: string][] = [
    ...INVALID_STREAM_CASES,
    ['an event outside the protocol', `id: 3\ndata: ${JSON.stringify({ type: 'shell-exec', run_id: RUN })}\n\n`],
    [
      'a known event with an extra key',
      `id: 3\ndata: ${JSON.stringify({ type: 'text-delta', run_id: RUN, text: 'x', html: '<b>' })}\n\n`,
    ],
  ];
  for (const [name, text] of invalid) {
    it(`${name}: DAEMON_EVENT_INVALID after the events before it, none after`, async () => {
      const seen: number[] = [];
      const reading = (async () => {
        for await (const event of readAgentEvents(streamOf([delta(1, 'ok'), text, delta(4, 'after')])))
          seen.push(event.id);
      })();
      await expect(reading).rejects.toMatchObject({ code: 'DAEMON_EVENT_INVALID' });
      expect(seen).toEqual([1]);
    });
  }
});
