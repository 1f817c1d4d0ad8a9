/**
 * Backpressure across the real channel: 1 GiB streamed from a loopback server through the host
 * executor to a sidecar process (the daemon's built transport) that reads slowly. Credit keeps both
 * sides bounded: host and sidecar RSS each grow by at most 64 MiB, measured from a short warm-up
 * (V8's young generation and the allocator reach their working size in the first MiBs, about
 * 40 MiB here, whatever the stream's length). Without credit a slow reader would queue the GiB.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runTransportChild, writeBytes } from './transport-harness.js';
import { startServer } from '@bastion/test-support';

const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;
const SIDECAR = fileURLToPath(new URL('./fixtures/slow-reader-sidecar.mjs', import.meta.url));

it('1 GiB to a slow sidecar reader: host and sidecar memory growth stay within 64 MiB', async () => {
  let served = 0;
  const server = await startServer((_req, res) => writeBytes(res, GiB, (sent) => (served = sent)));
  const origin = server.origin;

  // Like the sidecar, the host is measured from a warm-up point: once 32 MiB have been served.
  let hostBaseline: number | undefined;
  let hostPeak = 0;
  const sampler = setInterval(() => {
    const rss = process.memoryUsage().rss;
    if (hostBaseline === undefined) {
      if (served >= 32 * MiB) hostBaseline = rss;
      return;
    }
    hostPeak = Math.max(hostPeak, rss);
  }, 20);
  const { code: exitCode, report } = await runTransportChild(SIDECAR, [`${origin}/big`], origin, {
    maxResponseBytes: GiB,
  });
  clearInterval(sampler);
  await server.close();

  expect(exitCode).toBe(0);
  const sidecar = report as Record<'bytes' | 'start' | 'warm' | 'at256' | 'peak' | 'end', number>;
  const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
  console.info(
    `backpressure: sidecar RSS start ${mib(sidecar.start)}, warm ${mib(sidecar.warm)}, peak +${mib(sidecar.peak - sidecar.warm)} after warm-up; host RSS warm ${mib(hostBaseline ?? 0)}, peak +${mib(hostPeak - (hostBaseline ?? 0))} after warm-up`,
  );
  expect(sidecar.bytes).toBe(GiB);
  expect(hostBaseline).toBeDefined();
  expect(sidecar.peak - sidecar.warm).toBeLessThanOrEqual(64 * MiB);
  expect(hostPeak - (hostBaseline ?? 0)).toBeLessThanOrEqual(64 * MiB);
  // And nothing grows with the length of the stream: the last 768 MiB add at most 16 MiB.
  expect(sidecar.end - sidecar.at256).toBeLessThanOrEqual(16 * MiB);
}, 300_000);
