/**
 * Issue 2: authenticated POST /handshake through the full path (host listener → socket transfer →
 * sidecar perimeter → route) vs a bare Node http server answering the same JSON, same run.
 * Targets: ≥ 0.7× bare throughput, p99 ≤ 2× bare. Between the two, the framework the daemon's
 * routes run on (hono behind @hono/node-server's listener, as the sidecar serves them) answering
 * the same route with no perimeter: what the full path could reach if the perimeter cost nothing.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { Pool } from 'undici';
import { startTempHost } from '../packages/host/test/support/temp-host.js';
import { figure, percentile, type Benchmark } from './harness.js';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

interface Load {
  rps: number;
  p50: number;
  p99: number;
}

/** Throughput from autocannon; its latency histogram counts whole milliseconds, too coarse here. */
async function throughput(url: string, headers: Record<string, string>): Promise<number> {
  const result = await autocannon({ url, method: 'POST', headers, connections: CONNECTIONS, duration: SECONDS });
  const failed = result.non2xx + result.errors;
  if (failed > 0) throw new Error(`${failed} requests to ${url} failed during the run`);
  return result.requests.average;
}

/** Each request's latency in fractional ms, CONNECTIONS keep-alive clients in parallel for SECONDS. */
async function latencies(origin: string, headers: Record<string, string>): Promise<number[]> {
  const pool = new Pool(origin, { connections: CONNECTIONS });
  const out: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  try {
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < deadline) {
          const start = performance.now();
          const response = await pool.request({ path: '/handshake', method: 'POST', headers });
          await response.body.dump();
          if (response.statusCode !== 200) throw new Error(`handshake answered ${response.statusCode}`);
          out.push(performance.now() - start);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return out;
}

async function load(origin: string, headers: Record<string, string>): Promise<Load> {
  const rps = await throughput(`${origin}/handshake`, headers);
  // undici sets Host from the origin itself, and the same value.
  const times = await latencies(
    origin,
    Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'host')),
  );
  return { rps, p50: percentile(times, 50), p99: percentile(times, 99) };
}

export const handshakeBenchmark: Benchmark = {
  id: 'handshake',
  title: 'authenticated POST /handshake through the full path vs a bare node:http server',
  async run() {
    const host = await startTempHost();
    const answer = () => ({ name: 'bastion', version: '0.1.0', protocol: 1, capabilities: host.capabilities });
    const bare = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer()));
    });
    const framework = new Hono().post('/handshake', (c) => c.json(answer()));
    const frameworkListener = getRequestListener(framework.fetch);
    const hono = createServer(((req, res) => void frameworkListener(req, res)) as RequestListener);
    const servers = [bare, hono];
    try {
      const [barePort, honoPort] = await Promise.all(
        servers.map(
          (server) =>
            new Promise<number>((resolve) =>
              server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
            ),
        ),
      );
      const sidecar = host.supervisor.current;
      if (!sidecar) throw new Error('sidecar not ready');
      const port = host.socketHost.port;
      const headers = {
        host: `127.0.0.1:${port}`,
        origin: host.uiOrigin,
        referer: `${host.uiOrigin}/desktop/`,
        authorization: `Basic ${Buffer.from(`bastion:${sidecar.password}`).toString('base64')}`,
      };
      const baseline = await load(`http://127.0.0.1:${barePort}`, {});
      const floor = await load(`http://127.0.0.1:${honoPort}`, {});
      const bastion = await load(`http://127.0.0.1:${port}`, headers);
      return [
        figure('handshake throughput', 'req/s', bastion.rps, baseline.rps, '≥ 0.7× bare', (r) => r >= 0.7),
        figure('handshake latency p50', 'ms', bastion.p50, baseline.p50, 'informational', () => true),
        figure('handshake latency p99', 'ms', bastion.p99, baseline.p99, '≤ 2× bare', (r) => r <= 2),
        figure(
          'handshake throughput, the framework alone (hono behind @hono/node-server, no perimeter, in this process) vs bare',
          'req/s',
          floor.rps,
          baseline.rps,
          'informational: the most the full path can reach on this framework',
          () => true,
        ),
        figure(
          'handshake throughput, full path vs the framework alone',
          'req/s',
          bastion.rps,
          floor.rps,
          'informational: what the perimeter, the socket transfer and the sandbox cost',
          () => true,
        ),
      ];
    } finally {
      for (const server of servers) server.close();
      await host.stop();
    }
  },
};
