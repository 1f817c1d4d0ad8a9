/**
 * Issue 2: authenticated POST /handshake through the full path (host listener → socket transfer →
 * sidecar perimeter → route) vs a bare Node http server answering the same JSON, same run.
 * Targets: ≥ 0.7× bare throughput, p99 ≤ 2× bare. Between the two, the framework the daemon's
 * routes run on (hono behind @hono/node-server's listener, as the sidecar serves them) answering
 * the same route with no perimeter: what the full path could reach if the perimeter cost nothing.
 * Throughput is measured in rounds, the three servers in an order that rotates each round, and
 * judged on each round's own ratio (their median): the sidecar needs a core of its own, so a
 * change in the machine's load between two long measurements moved the ratio from 0.5 to 1.1.
 */
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { Pool } from 'undici';
import { startTempHost } from '../packages/host/test/support/temp-host.js';
import { figure, median, percentile, type Benchmark } from './harness.js';

const CONNECTIONS = 16;
/** Seconds of each latency measurement. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = 5;
/** Seconds of each server's throughput measurement in a round. */
const ROUND_SECONDS = 3;

interface Latency {
  p50: number;
  p99: number;
}

/** Throughput from autocannon; its latency histogram counts whole milliseconds, too coarse here. */
async function throughput(url: string, headers: Record<string, string>): Promise<number> {
  const result = await autocannon({ url, method: 'POST', headers, connections: CONNECTIONS, duration: ROUND_SECONDS });
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

async function latency(origin: string, headers: Record<string, string>): Promise<Latency> {
  // undici sets Host from the origin itself, and the same value.
  const times = await latencies(
    origin,
    Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'host')),
  );
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

export const handshakeBenchmark: Benchmark = {
  id: 'handshake',
  title: 'authenticated POST /handshake through the full path vs a bare node:http server',
  async run() {
    const host = await startTempHost();
    const answer = () => ({ name: 'bastion', version: '0.1.0', protocol: 1, capabilities: host.capabilities });
    const bareServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer()));
    });
    const framework = new Hono().post('/handshake', (c) => c.json(answer()));
    const frameworkListener = getRequestListener(framework.fetch);
    const honoServer = createServer(((req, res) => void frameworkListener(req, res)) as RequestListener);
    const servers = [bareServer, honoServer];
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
      const targets = [
        { origin: `http://127.0.0.1:${barePort}`, headers: {}, rates: [] as number[] },
        { origin: `http://127.0.0.1:${honoPort}`, headers: {}, rates: [] as number[] },
        { origin: `http://127.0.0.1:${port}`, headers, rates: [] as number[] },
      ] as const;
      for (let round = 0; round < ROUNDS; round += 1) {
        for (let turn = 0; turn < targets.length; turn += 1) {
          const target = targets[(round + turn) % targets.length] as (typeof targets)[number];
          target.rates.push(await throughput(`${target.origin}/handshake`, target.headers));
        }
      }
      const [bare, floor, full] = targets;
      const ratio = (of: readonly number[], to: readonly number[]) =>
        median(of.map((rate, round) => rate / (to[round] as number)));
      console.log(
        `handshake: req/s bare ${bare.rates.map(Math.round).join(' ')}; framework ${floor.rates.map(Math.round).join(' ')}; full path ${full.rates.map(Math.round).join(' ')}`,
      );
      const baseline = await latency(bare.origin, bare.headers);
      const bastion = await latency(full.origin, full.headers);
      return [
        figure(
          "handshake throughput, median of the rounds' ratios",
          '× bare',
          ratio(full.rates, bare.rates),
          1,
          '≥ 0.7× bare',
          (r) => r >= 0.7,
        ),
        figure(
          'handshake throughput, medians of the rates',
          'req/s',
          median(full.rates),
          median(bare.rates),
          'informational',
          () => true,
        ),
        figure('handshake latency p50', 'ms', bastion.p50, baseline.p50, 'informational', () => true),
        figure('handshake latency p99', 'ms', bastion.p99, baseline.p99, '≤ 2× bare', (r) => r <= 2),
        figure(
          "handshake throughput, the framework alone (hono behind @hono/node-server, no perimeter, in this process) vs bare, median of the rounds' ratios",
          '× bare',
          ratio(floor.rates, bare.rates),
          1,
          'informational: the most the full path can reach on this framework',
          () => true,
        ),
        figure(
          "handshake throughput, full path vs the framework alone, median of the rounds' ratios",
          '× framework',
          ratio(full.rates, floor.rates),
          1,
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
