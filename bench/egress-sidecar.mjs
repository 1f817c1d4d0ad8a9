// The sidecar half of the egress benchmark: the daemon's built transport fetch on stdin/stdout.
// Driven over IPC: `upload` POSTs one body of UPLOAD_BYTES of ordinary text (this repository's README
// and SECURITY.md, repeated) in 64 KiB pieces and answers with MiB/s; `finish` measures the SSE stream,
// prints it as one JSON line on stderr and exits.
import { readFileSync } from 'node:fs';
import { stdioTransport } from '../packages/host/test/transport/fixtures/stdio-transport.mjs';
import { TRANSPORT_MAX_REQUEST_BODY_BYTES } from '@bastion/protocol';
import { measureSse } from './transport-measures.mjs';

const origin = process.argv[2];
const PIECE = 64 * 1024;
/** The largest request body the transport takes (100 MiB, the figure, is over that bound). */
const UPLOAD_BYTES = TRANSPORT_MAX_REQUEST_BODY_BYTES;
const corpus = Buffer.concat(
  ['../README.md', '../SECURITY.md'].map((file) => readFileSync(new URL(file, import.meta.url))),
);
const piece = Buffer.alloc(PIECE);
for (let at = 0; at < PIECE; at += corpus.byteLength)
  corpus.copy(piece, at, 0, Math.min(corpus.byteLength, PIECE - at));
const transport = await stdioTransport();

async function upload() {
  let sent = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (sent >= UPLOAD_BYTES) return controller.close();
      sent += PIECE;
      controller.enqueue(new Uint8Array(piece));
    },
  });
  const start = performance.now();
  const response = await transport.fetch(`${origin}/upload`, { method: 'POST', body, duplex: 'half' });
  const answer = await response.text();
  if (answer !== String(UPLOAD_BYTES)) throw new Error(`the server counted ${answer}`);
  return UPLOAD_BYTES / (1024 * 1024) / ((performance.now() - start) / 1000);
}

process.on('message', async (command) => {
  if (command === 'upload') {
    process.send(await upload());
    return;
  }
  process.stderr.write(`${JSON.stringify({ sse: await measureSse(transport.fetch, origin) })}\n`);
  process.exit(0);
});
process.send('ready');
