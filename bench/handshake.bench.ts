/**
 * Issue 2: authenticated POST /handshake through the full path (host listener → socket transfer →
 * sidecar perimeter → route) vs a bare Node http server answering the same JSON, same run.
 * Targets: ≥ 0.7× bare throughput, p99 ≤ 2× bare.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { startTempHost } from '../packages/host/test/support/temp-host.js';
import { figure, type Benchmark } from './harness.js';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Load> {
  const result = await autocannon({ url, method: 'POST', headers, connections: CONNECTIONS, duration: SECONDS });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}

export const handshakeBenchmark: Benchmark = {
  id: 'handshake',
  title: 'authenticated POST /handshake through the full path vs a bare node:http server',
  async run() {
    const host = await startTempHost();
    const bare = createServer((_req, res) => {
      const body = JSON.stringify({ name: 'bastion', version: '0.1.0', protocol: 1, capabilities: host.capabilities });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    try {
      const barePort = (bare.address() as AddressInfo).port;
      const sidecar = host.supervisor.current;
      if (!sidecar) throw new Error('sidecar not ready');
      const port = host.socketHost.port;
      const headers = {
        host: `127.0.0.1:${port}`,
        origin: host.uiOrigin,
        referer: `${host.uiOrigin}/desktop/`,
        authorization: `Basic ${Buffer.from(`bastion:${sidecar.password}`).toString('base64')}`,
      };
      const baseline = await load(`http://127.0.0.1:${barePort}/handshake`, {});
      const bastion = await load(`http://127.0.0.1:${port}/handshake`, headers);
      if (bastion.non2xx > 0) throw new Error(`${bastion.non2xx} handshake requests failed during the run`);
      return [
        figure('handshake throughput', 'req/s', bastion.rps, baseline.rps, '≥ 0.7× bare', (r) => r >= 0.7),
        figure('handshake latency p50', 'ms', bastion.p50, baseline.p50, 'informational', () => true),
        figure('handshake latency p99', 'ms', bastion.p99, baseline.p99, '≤ 2× bare', (r) => r <= 2),
      ];
    } finally {
      bare.close();
      await host.stop();
    }
  },
};
