// The sidecar half of the transport benchmark: the daemon's built transport fetch on this process's
// stdin/stdout, measuring what a provider adapter in the sidecar would see. Prints one JSON line
// with its measurements on stderr.
import { stdioTransport } from '../packages/host/test/transport/fixtures/stdio-transport.mjs';
import { measureBytes, measureSse, measureTtfb } from './transport-measures.mjs';

const origin = process.argv[2];
const transport = await stdioTransport();

const result = {
  bytes: await measureBytes(transport.fetch, origin),
  ttfb: await measureTtfb(transport.fetch, origin),
  sse: await measureSse(transport.fetch, origin),
};
process.stderr.write(`${JSON.stringify(result)}\n`);
process.exit(0);
