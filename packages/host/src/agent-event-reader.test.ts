import { DAEMON_EVENT_MAX_CHARS } from '@bastion/protocol';
import { describe, expect, it } from 'vitest';
import { describeAttack } from '../../../test/support/attack.js';
import { readAgentEvents } from './agent-event-reader.js';

const RUN = 'run_abcdefgh';
const delta = (id: number, text: string) =>
  `id: ${id}\nevent: text-delta\ndata: ${JSON.stringify({ type: 'text-delta', run_id: RUN, text })}\n\n`;

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
    const text = `: keep-alive\n\n${delta(1, 'a')}: keep-alive\n\n${delta(2, 'b\nc')}`.replace(/\n/g, '\r\n');
    for (let size = 1; size <= text.length; size += 7) {
      const chunks = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(await collect(chunks)).toEqual([
        { id: 1, event: { type: 'text-delta', run_id: RUN, text: 'a' } },
        { id: 2, event: { type: 'text-delta', run_id: RUN, text: 'b\nc' } },
      ]);
    }
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
    ['data that is not JSON', 'id: 3\ndata: {nope\n\n'],
    ['an event outside the protocol', `id: 3\ndata: ${JSON.stringify({ type: 'shell-exec', run_id: RUN })}\n\n`],
    [
      'a known event with an extra key',
      `id: 3\ndata: ${JSON.stringify({ type: 'text-delta', run_id: RUN, text: 'x', html: '<b>' })}\n\n`,
    ],
    ['an event without an id', `data: ${JSON.stringify({ type: 'text-delta', run_id: RUN, text: 'x' })}\n\n`],
    [
      'an id that is not a persisted event id',
      `id: 1e3\ndata: ${JSON.stringify({ type: 'text-delta', run_id: RUN, text: 'x' })}\n\n`,
    ],
    [
      'an event name that differs from its data',
      `id: 3\nevent: run-finished\ndata: ${JSON.stringify({ type: 'text-delta', run_id: RUN, text: 'x' })}\n\n`,
    ],
    ['a field the daemon never writes', 'id: 3\nbogus: 1\n\n'],
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
