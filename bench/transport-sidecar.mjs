// The sidecar half of the transport benchmark: the daemon's built transport fetch on this process's
// stdin/stdout, measuring what a provider adapter in the sidecar would see. Driven by the bench over
// the IPC channel: `body` reads one 100 MiB body and answers with its measure; `finish` measures
// TTFB and the SSE stream, prints them as one JSON line on stderr and exits.
import { stdioTransport } from '../packages/host/test/transport/fixtures/stdio-transport.mjs';
import { measureSse, measureTtfb, readBody } from './transport-measures.mjs';

const origin = process.argv[2];
const transport = await stdioTransport();

process.on('message', async (command) => {
  if (command === 'body') {
    process.send(await readBody(transport.fetch, origin));
    return;
  }
  const result = { ttfb: await measureTtfb(transport.fetch, origin), sse: await measureSse(transport.fetch, origin) };
  process.stderr.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
});
process.send('ready');
