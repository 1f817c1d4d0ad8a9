/**
 * Issue 9 (fault injection): latency of legitimate requests on the daemon and UI listeners while
 * they are under a sustained slow-loris + header-flood attack (from another process, so the
 * attacker's own CPU is not counted against the listener), against the same requests on the same
 * host with no attack, same run. Target: median under attack ≤ 2× the median without.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bridgeHeaders, rawRequest, type RawResponse } from '../packages/host/test/support/raw-request.js';
import { startTempHost, type TempHost } from '../packages/host/test/support/temp-host.js';
import { figure, median, percentile, type Benchmark, type BenchFigure } from './harness.js';

const ATTACKER = fileURLToPath(new URL('./fault-attacker.ts', import.meta.url));
const REQUESTS = Number(process.env.BENCH_FAULT_REQUESTS ?? 300);
/** Attack connections kept open, per attack kind (slow-loris, one huge header, thousands of headers). */
const ATTACKERS = 32;

/** Start the attacker process against `port`; resolves once its connections are opening, with a stop function. */
async function sustainAttack(port: number): Promise<() => void> {
  const child = spawn(process.execPath, ['--import', 'tsx', ATTACKER, String(port), String(ATTACKERS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`attacker exited with ${code}`)));
  });
  return () => child.kill('SIGKILL');
}

async function latencies(request: () => Promise<RawResponse>, expected: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    const response = await request().catch((error: unknown) => {
      throw new Error(`legitimate request failed: ${String(error)}`);
    });
    out.push(performance.now() - start);
    if (response.status !== expected) throw new Error(`legitimate request answered ${response.status}`);
  }
  return out;
}

async function measure(
  name: string,
  port: number,
  request: () => Promise<RawResponse>,
  expected: number,
): Promise<BenchFigure[]> {
  await latencies(request, expected); // warm-up
  const quiet = await latencies(request, expected);
  const stop = await sustainAttack(port);
  try {
    // Let all attack connections arrive before measuring.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const attacked = await latencies(request, expected).catch((error: unknown) => {
      throw new Error(`${name}: ${String(error)}`);
    });
    return [
      figure(
        `${name}: legitimate request p50 under attack`,
        'ms',
        median(attacked),
        median(quiet),
        '≤ 2× no attack',
        (r) => r <= 2,
      ),
      figure(
        `${name}: legitimate request p99 under attack`,
        'ms',
        percentile(attacked, 99),
        percentile(quiet, 99),
        'informational',
        () => true,
      ),
    ];
  } finally {
    stop();
  }
}

export const faultsBenchmark: Benchmark = {
  id: 'faults',
  title: 'legitimate requests on the daemon and UI listeners during slow-loris + header-flood vs none',
  async run() {
    const host: TempHost = await startTempHost();
    try {
      const password = host.supervisor.current?.password;
      if (!password) throw new Error('sidecar not ready');
      const daemonPort = host.socketHost.port;
      const uiPort = host.ui.port;
      return [
        ...(await measure(
          'daemon POST /handshake',
          daemonPort,
          () => rawRequest({ port: daemonPort, headers: bridgeHeaders(host, password) }),
          200,
        )),
        ...(await measure(
          'UI GET /',
          uiPort,
          () => rawRequest({ port: uiPort, method: 'GET', path: '/', headers: { host: `127.0.0.1:${uiPort}` } }),
          303,
        )),
      ];
    } finally {
      await host.stop();
    }
  },
};
