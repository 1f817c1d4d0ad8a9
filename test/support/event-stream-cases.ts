/**
 * Cases shared by the tests of the two readers of the daemon's agent event stream (the host's,
 * packages/host/src/agent-event-reader.ts, and the bridge's, packages/bridge/src/event-stream.ts):
 * a stream to split at every chunk boundary, and stream texts both must refuse.
 */
export const RUN = 'run_abcdefgh';

export const delta = (id: number, text: string) =>
  `id: ${id}\nevent: text-delta\ndata: ${JSON.stringify({ type: 'text-delta', run_id: RUN, text })}\n\n`;

/** Heartbeat comments around two events, with CRLF line ends, and the events it holds. */
export const SPLIT_STREAM = {
  text: `: keep-alive\n\n${delta(1, 'a')}: keep-alive\n\n${delta(2, 'b\nc')}`.replace(/\n/g, '\r\n'),
  events: [
    { id: 1, event: { type: 'text-delta', run_id: RUN, text: 'a' } },
    { id: 2, event: { type: 'text-delta', run_id: RUN, text: 'b\nc' } },
  ],
};

/** `text` cut into chunks of every seventh size from 1 up. */
export function chunkings(text: string): string[][] {
  const all: string[][] = [];
  for (let size = 1; size <= text.length; size += 7) {
    const chunks = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    all.push(chunks);
  }
  return all;
}

const textDelta = JSON.stringify({ type: 'text-delta', run_id: RUN, text: 'x' });

/** Stream texts no reader may deliver as an event: [what it is, the text]. */
export const INVALID_STREAM_CASES: [name: string, text: string][] = [
  ['data that is not JSON', 'id: 3\ndata: {nope\n\n'],
  ['an event without an id', `data: ${textDelta}\n\n`],
  ['an id that is not a persisted event id', `id: 1e3\ndata: ${textDelta}\n\n`],
  ['an event name that differs from its data', `id: 3\nevent: run-finished\ndata: ${textDelta}\n\n`],
  ['a field the daemon never writes', 'id: 3\nbogus: 1\n\n'],
];
