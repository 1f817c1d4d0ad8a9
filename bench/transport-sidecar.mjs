// The sidecar half of the transport benchmark: the daemon's built transport fetch on this process's
// stdin/stdout, measuring what a provider adapter in the sidecar would see. Prints one JSON line
// with its measurements on stderr.
import { FramedChannel, hostToSidecarFrameSchema, sidecarToHostFrameSchema } from '@bastion/protocol';
import { ProviderTransport } from '../packages/daemon/dist/transport/transport-fetch.js';
import { measureBytes, measureSse, measureTtfb } from './transport-measures.mjs';

const origin = process.argv[2];
const channel = new FramedChannel({
  source: process.stdin,
  sink: process.stdout,
  inbound: hostToSidecarFrameSchema,
  outbound: sidecarToHostFrameSchema,
  onClose: () => process.exit(0),
});
const transport = new ProviderTransport(channel);
while (transport.revision < 0) await new Promise((resolve) => setTimeout(resolve, 5));

const result = {
  throughput: await measureBytes(transport.fetch, origin),
  ttfb: await measureTtfb(transport.fetch, origin),
  sse: await measureSse(transport.fetch, origin),
};
process.stderr.write(`${JSON.stringify(result)}\n`);
process.exit(0);
