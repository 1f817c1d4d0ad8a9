// The framed hop of the transport benchmark: the channel alone, without the sidecar's fetch. It
// speaks channel v1 on stdin/stdout with the real codec (stdioChannel: FramedChannel, the same frames
// and schema checks as a sidecar) to the host's real executor, asks for the 100 MiB body with a bare
// `request.start` and counts the `response.chunk` bytes as they are decoded, returning credit as
// the transport does (the window at `response.start`, then in halves of it as bytes arrive) but
// with no WHATWG Response, ReadableStream or reader in between. Driven over IPC like
// transport-sidecar.mjs: `body` answers with { rate, cpuMs }; `finish` exits.
import { randomBytes } from 'node:crypto';
import { TRANSPORT_RESPONSE_WINDOW_BYTES } from '@bastion/protocol';
import { stdioChannel } from '../packages/host/test/transport/fixtures/stdio-transport.mjs';
import { BYTES } from './transport-measures.mjs';

const origin = process.argv[2];
const channel = stdioChannel();
let grant;
let current;
channel.on('grant.update', (frame) => {
  grant = frame.grants.find((candidate) => candidate.origin === origin && candidate.op === 'provider');
  channel.send({ v: 1, type: 'grant.applied', revision: frame.revision });
});
channel.on('response.start', (frame) => {
  channel.send({ v: 1, type: 'response.credit', request_id: frame.request_id, bytes: TRANSPORT_RESPONSE_WINDOW_BYTES });
});
channel.on('response.chunk', (frame) => {
  current.total += frame.data.byteLength;
  current.consumed += frame.data.byteLength;
  if (current.consumed >= TRANSPORT_RESPONSE_WINDOW_BYTES / 2) {
    channel.send({ v: 1, type: 'response.credit', request_id: frame.request_id, bytes: current.consumed });
    current.consumed = 0;
  }
});
channel.on('response.end', () => current.done());
channel.on('response.error', (frame) => current.failed(new Error(`the host ended the body: ${frame.code}`)));

function body() {
  return new Promise((resolve, reject) => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const request_id = randomBytes(12).toString('base64url');
    current = {
      total: 0,
      consumed: 0,
      done() {
        if (current.total !== BYTES) return reject(new Error(`short body: ${current.total}`));
        const rate = BYTES / (1024 * 1024) / ((performance.now() - start) / 1000);
        const used = process.cpuUsage(cpu);
        resolve({ rate, cpuMs: (used.user + used.system) / 1000 });
      },
      failed: reject,
    };
    channel.send({
      v: 1,
      type: 'request.start',
      request_id,
      grant_id: grant.grant_id,
      op: 'provider',
      method: 'GET',
      url: `${origin}/bytes`,
      headers: [],
      has_body: false,
    });
  });
}

while (grant === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
process.on('message', async (command) => {
  if (command === 'body') {
    process.send(await body());
    return;
  }
  process.stderr.write('{}\n');
  process.exit(0);
});
process.send('ready');
