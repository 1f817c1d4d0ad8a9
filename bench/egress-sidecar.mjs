// The sidecar half of the egress benchmark: the daemon's built transport fetch on stdin/stdout.
// Driven over IPC: `upload` POSTs 100 MiB of ordinary text (this repository's README and
// SECURITY.md, repeated) in 64 KiB pieces, as REQUESTS bodies of REQUEST_BYTES one after another
// (one body is bounded to TRANSPORT_MAX_REQUEST_BODY_BYTES, 32 MiB), and answers with MiB/s;
// `finish` measures the SSE stream, prints it as one JSON line on stderr and exits.
import { readFileSync } from 'node:fs';
import { stdioTransport } from '../packages/host/test/transport/fixtures/stdio-transport.mjs';
import { TRANSPORT_MAX_REQUEST_BODY_BYTES } from '@bastion/protocol';
import { measureSse } from './transport-measures.mjs';

const origin = process.argv[2];
const PIECE = 64 * 1024;
/** 100 MiB a sample, the figure, in bodies the transport takes. */
const REQUESTS = 4;
const REQUEST_BYTES = 25 * 1024 * 1024;
if (REQUEST_BYTES > TRANSPORT_MAX_REQUEST_BODY_BYTES) throw new Error('a bench body over the request-body bound');
const corpus = Buffer.concat(
  ['../README.md', '../SECURITY.md'].map((file) => readFileSync(new URL(file, import.meta.url))),
);
const piece = Buffer.alloc(PIECE);
for (let at = 0; at < PIECE; at += corpus.byteLength)
  corpus.copy(piece, at, 0, Math.min(corpus.byteLength, PIECE - at));
const transport = await stdioTransport();

async function uploadOne() {
  let sent = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (sent >= REQUEST_BYTES) return controller.close();
      sent += PIECE;
      controller.enqueue(new Uint8Array(piece));
    },
  });
  const response = await transport.fetch(`${origin}/upload`, { method: 'POST', body, duplex: 'half' });
  const answer = await response.text();
  if (answer !== String(REQUEST_BYTES)) throw new Error(`the server counted ${answer}`);
}

async function upload() {
  const start = performance.now();
  for (let request = 0; request < REQUESTS; request += 1) await uploadOne();
  return (REQUESTS * REQUEST_BYTES) / (1024 * 1024) / ((performance.now() - start) / 1000);
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
