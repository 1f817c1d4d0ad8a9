/**
 * Issue 6: the host-routed provider transport vs a direct undici request, same local server, same
 * run. The transported side is a real second process (the daemon's built transport fetch on
 * stdin/stdout frames) behind the host's real executor; the direct side is undici from this
 * process. Targets: ≥ 0.8× direct throughput on a 100 MiB body, TTFB overhead ≤ 2 ms p50,
 * per-event overhead ≤ 0.5 ms p50 on a 10 000-event SSE stream. A third figure measures the
 * bare stdio hop (undici body written straight into a child's stdin) against the same baseline:
 * the ceiling any transport over the sidecar's stdio can reach on this machine.
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { fetch as undiciFetch, request as undiciRequest } from 'undici';
import { createSystemRouteDispatcher } from '../packages/host/src/network/provider-transport.js';
import { runTransportChild, startServer, writeBytes } from '../packages/host/test/transport/transport-harness.js';
import { figure, median, type Benchmark } from './harness.js';
// @ts-expect-error plain ESM shared with the sidecar process, no declarations
import { BYTES, measureBytes, measureSse, measureTtfb, SSE_EVENTS } from './transport-measures.mjs';

interface Bytes {
  rate: number;
  cpuMs: number;
}
interface Measures {
  bytes: Bytes;
  ttfb: number;
  sse: number;
}
type Measure = (fetch: typeof globalThis.fetch, origin: string) => Promise<number>;

/** The local server both sides fetch from: a tiny JSON body, a 100 MiB body and an SSE stream. */
function serve(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/small') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    return;
  }
  if (req.url === '/bytes') {
    writeBytes(res, BYTES as number);
    return;
  }
  // SSE: one event every ≥ 0.2 ms, each stamped with the machine clock when written.
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let sent = 0;
  let last = 0;
  const tick = () => {
    const at = performance.timeOrigin + performance.now();
    if (at - last >= 0.2) {
      last = at;
      res.write(`data: {"type":"text-delta","delta":"token ${sent}","t":${at}}\n\n`);
      sent += 1;
    }
    if (sent < (SSE_EVENTS as number)) setImmediate(tick);
    else res.end();
  };
  tick();
}

async function direct(origin: string): Promise<Measures> {
  const dispatcher = createSystemRouteDispatcher();
  const fetch = ((input: string, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof globalThis.fetch;
  try {
    return {
      bytes: await (measureBytes as (fetch: typeof globalThis.fetch, origin: string) => Promise<Bytes>)(fetch, origin),
      ttfb: await (measureTtfb as Measure)(fetch, origin),
      sse: await (measureSse as Measure)(fetch, origin),
    };
  } finally {
    await dispatcher.close();
  }
}

/**
 * The floor under any stdio transport on this machine: the same body read with undici in this
 * process and written straight into a child process's stdin (the child only counts bytes), no
 * framing, credit or parsing. MiB/s, median of three after one warm-up, like measureBytes.
 */
async function bareStdioHop(origin: string): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `let n = 0; process.stdin.on('data', (b) => { n += b.byteLength; if (n >= ${BYTES as number}) { n -= ${BYTES as number}; process.stdout.write('k'); } });`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const dispatcher = createSystemRouteDispatcher();
  const rates: number[] = [];
  try {
    for (let run = 0; run <= 3; run += 1) {
      const start = performance.now();
      const counted = new Promise((resolve) => child.stdout.once('data', resolve));
      const { body } = await undiciRequest(`${origin}/bytes`, { dispatcher });
      body.on('data', (chunk: Buffer) => {
        if (!child.stdin.write(chunk)) {
          body.pause();
          child.stdin.once('drain', () => body.resume());
        }
      });
      await counted;
      if (run > 0) rates.push((BYTES as number) / (1024 * 1024) / ((performance.now() - start) / 1000));
    }
  } finally {
    child.kill();
    await dispatcher.close();
  }
  return median(rates);
}

async function transported(origin: string): Promise<Measures> {
  const sidecar = fileURLToPath(new URL('./transport-sidecar.mjs', import.meta.url));
  const { code, report } = await runTransportChild(sidecar, [origin], origin);
  if (code !== 0) throw new Error(`bench sidecar exited ${code}: ${String(report)}`);
  return report as Measures;
}

export const transportBenchmark: Benchmark = {
  id: 'transport',
  title: 'provider transport (host executor + sidecar frames) vs direct undici, same local server',
  async run() {
    const server = await startServer(serve);
    try {
      const base = await direct(server.origin);
      const via = await transported(server.origin);
      const hop = await bareStdioHop(server.origin);
      return [
        figure(
          '100 MiB body throughput',
          'MiB/s',
          via.bytes.rate,
          base.bytes.rate,
          '≥ 0.8× direct',
          (ratio) => ratio >= 0.8,
        ),
        figure(
          '100 MiB body, bare stdio hop (no frames) vs direct',
          'MiB/s',
          hop,
          base.bytes.rate,
          'informational: the ceiling for the transport',
          () => true,
        ),
        figure(
          'sidecar CPU per 100 MiB body vs the whole direct fetch (server, undici, stream)',
          'ms',
          via.bytes.cpuMs,
          base.bytes.cpuMs,
          'informational: the sidecar heap options (SIDECAR_NODE_OPTIONS) at work',
          () => true,
        ),
        figure(
          'time to first byte p50',
          'ms',
          via.ttfb,
          base.ttfb,
          'overhead ≤ 2 ms',
          (_r, bastion, baseline) => bastion - baseline <= 2,
        ),
        figure(
          'SSE per-event latency p50 (10 000 events)',
          'ms',
          via.sse,
          base.sse,
          'overhead ≤ 0.5 ms',
          (_r, bastion, baseline) => bastion - baseline <= 0.5,
        ),
      ];
    } finally {
      await server.close();
    }
  },
};
