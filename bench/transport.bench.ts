/**
 * Issue 6: the host-routed provider transport vs a direct undici request, same local server, same
 * run. The transported side is a real second process (the daemon's built transport fetch on
 * stdin/stdout frames) behind the host's real executor; the direct side is undici from this
 * process. Targets: 100 MiB body throughput ≥ 0.9× the bare stdio hop (undici's body written
 * straight into a child's stdin, measured in the same rounds: the ceiling any transport over the
 * sidecar's stdio can reach on this machine; issue 21 re-based the target there from ≥ 0.8×
 * direct, above that ceiling here), TTFB overhead ≤ 2 ms p50, per-event overhead ≤ 0.5 ms p50 on a
 * 10 000-event SSE stream. Throughput against direct is still printed.
 *
 * Between the two, the framed hop (framed-hop-sidecar.mjs): the host's real executor and channel
 * frames, credit and schema checks, into a child that only decodes them, with no fetch on top. It
 * splits the gap to the bare hop into what the channel costs and what the sidecar's fetch (its
 * Response, ReadableStream and reader) adds.
 *
 * The 100 MiB bodies alternate (direct, transported, framed hop, bare hop, in an order that rotates
 * each round), so a change in the machine's load in the middle of the run reaches all four alike;
 * the target is judged on each round's own ratio to the hop, their median.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { fetch as undiciFetch, request as undiciRequest, type Dispatcher } from 'undici';
import { createSystemRoute } from '@bastion/host/testing';
import { type EgressGuard, runTransportChild, writeBytes } from '../packages/host/test/transport/transport-harness.js';
import { startServer } from '@bastion/test-support';
import { figure, median, type Benchmark } from './harness.js';
// @ts-expect-error plain ESM shared with the sidecar process, no declarations
import { BYTES, measureSse, measureTtfb, readBody, SSE_EVENTS } from './transport-measures.mjs';

/**
 * Rounds of 100 MiB bodies not counted (JIT and heap warm-up on every side), then rounds counted.
 * A fresh sidecar's rate still rises through about its sixth body (0.4× the hop's on the first,
 * 0.6×, 0.75×, then 0.8–0.9×; bench/README.md), so six are warm-up; the first is printed apart.
 */
const WARM_ROUNDS = 6;
const ROUNDS = 9;

interface Body {
  rate: number;
  cpuMs: number;
}
type Measure = (fetch: typeof globalThis.fetch, origin: string) => Promise<number>;
type ReadBody = (fetch: typeof globalThis.fetch, origin: string) => Promise<Body>;

/** The local server both sides fetch from: a tiny JSON body, a 100 MiB body and an SSE stream. */
export function serve(req: IncomingMessage, res: ServerResponse): void {
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

/** Send `command` to the bench sidecar and resolve with its answer; rejects if it exits first. */
export function ask(child: ChildProcess, command?: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench sidecar exited ${code}`));
    child.once('exit', onExit);
    child.once('message', (answer) => {
      child.off('exit', onExit);
      resolve(answer);
    });
    if (command !== undefined) child.send(command);
  });
}

export interface BenchChild {
  child: ChildProcess;
  exited: ReturnType<typeof runTransportChild>;
}

/**
 * Start a bench child (`script`, next to this file) behind the host's real executor (with `egress`
 * as its guard when given), once it says it is ready.
 */
export async function startBenchChild(
  script: string,
  origin: string,
  options: { egress?: EgressGuard | null; ca?: string } = {},
): Promise<BenchChild> {
  let exited: ReturnType<typeof runTransportChild> | undefined;
  const child = await new Promise<ChildProcess>((resolve, reject) => {
    exited = runTransportChild(fileURLToPath(new URL(script, import.meta.url)), [origin], origin, {
      ...options,
      control: resolve,
    });
    exited.then(() => reject(new Error('bench sidecar exited before it started')), reject);
  });
  await ask(child);
  return { child, exited: exited as ReturnType<typeof runTransportChild> };
}

/** Tell a bench child to finish and resolve with its report. */
export async function finishBenchChild({ child, exited }: BenchChild): Promise<unknown> {
  child.send('finish');
  const { code, report } = await exited;
  if (code !== 0) throw new Error(`bench sidecar exited ${code}: ${String(report)}`);
  return report;
}

/**
 * The floor under any stdio transport on this machine: the body read with undici in this process
 * and written straight into a child process's stdin (the child only counts bytes), no framing,
 * credit or parsing. `body()` reads one body through it and resolves with MiB/s.
 */
function bareStdioHop(origin: string, dispatcher: Dispatcher) {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `let n = 0; process.stdin.on('data', (b) => { n += b.byteLength; if (n >= ${BYTES as number}) { n -= ${BYTES as number}; process.stdout.write('k'); } });`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  return {
    /** CPU ms the counting child has used so far (user + system, from /proc: 10 ms ticks). */
    childCpuMs: () => processCpuMs(child.pid as number),
    async body(): Promise<number> {
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
      return (BYTES as number) / (1024 * 1024) / ((performance.now() - start) / 1000);
    },
    close: () => child.kill(),
  };
}

/** CPU ms a process has used (user + system), read from /proc/<pid>/stat (Linux, 10 ms ticks). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms this process has used (every thread). */
function ownCpuMs(): number {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
}

export const transportBenchmark: Benchmark = {
  id: 'transport',
  title: 'provider transport (host executor + sidecar frames) vs direct undici, same local server',
  async run() {
    const server = await startServer(serve);
    const origin = server.origin;
    const route = createSystemRoute();
    const { dispatcher } = await route.open();
    const fetch = ((input: string, init?: RequestInit) =>
      undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof globalThis.fetch;
    const hop = bareStdioHop(origin, dispatcher);
    const children: BenchChild[] = [];
    try {
      const child = await startBenchChild('./transport-sidecar.mjs', origin);
      children.push(child);
      const framedHop = await startBenchChild('./framed-hop-sidecar.mjs', origin);
      children.push(framedHop);
      const direct: Body[] = [];
      const via: Body[] = [];
      const framed: Body[] = [];
      const hopRates: number[] = [];
      // CPU per body of both processes on each side: this process (server, undici, the host's
      // executor or the hop's writes), and the sidecar, the framed hop's child or the hop's counting child.
      const hostCpu = { via: [] as number[], framed: [] as number[], hop: [] as number[] };
      const hopChildCpu: number[] = [];
      // The first round's rates, each side cold: a fresh sidecar against a fresh counting child.
      const cold = { via: 0, hop: 0 };
      const throughTheHost = (target: BenchChild, bodies: Body[], cpuOfHost: number[]) => async (round: number) => {
        const cpu = ownCpuMs();
        const body = (await ask(target.child, 'body')) as Body;
        if (round === 0 && bodies === via) cold.via = body.rate;
        if (round < WARM_ROUNDS) return;
        cpuOfHost.push(ownCpuMs() - cpu);
        bodies.push(body);
      };
      const sides = [
        async (round: number) => {
          const body = await (readBody as ReadBody)(fetch, origin);
          if (round >= WARM_ROUNDS) direct.push(body);
        },
        throughTheHost(child, via, hostCpu.via),
        throughTheHost(framedHop, framed, hostCpu.framed),
        async (round: number) => {
          const [cpu, childCpu] = [ownCpuMs(), hop.childCpuMs()];
          const rate = await hop.body();
          if (round === 0) cold.hop = rate;
          if (round < WARM_ROUNDS) return;
          hostCpu.hop.push(ownCpuMs() - cpu);
          hopChildCpu.push(hop.childCpuMs() - childCpu);
          hopRates.push(rate);
        },
      ];
      for (let round = 0; round < WARM_ROUNDS + ROUNDS; round += 1) {
        for (let turn = 0; turn < sides.length; turn += 1) await sides[(round + turn) % sides.length]?.(round);
      }
      const directTtfb = await (measureTtfb as Measure)(fetch, origin);
      const directSse = await (measureSse as Measure)(fetch, origin);
      const { ttfb, sse } = (await finishBenchChild(child)) as { ttfb: number; sse: number };
      await finishBenchChild(framedHop);
      const directRate = median(direct.map((body) => body.rate));
      return [
        // Issue 21 re-based the target on the channel's physical limit: the spec's stdin/stdout hop,
        // measured bare in the same rounds (issue 6 measured 0.8× direct to be above that hop here).
        // Each round's transported body against the bare hop's body of the same round, so a change in
        // the machine's load between rounds reaches both sides of every ratio.
        figure(
          "100 MiB body throughput vs the bare stdio hop, median of the rounds' ratios",
          '× the hop',
          median(via.map((body, round) => body.rate / (hopRates[round] as number))),
          1,
          '≥ 0.9× bare stdio hop',
          (ratio) => ratio >= 0.9,
        ),
        figure(
          '100 MiB body throughput vs the bare stdio hop, medians of the rates',
          'MiB/s',
          median(via.map((body) => body.rate)),
          median(hopRates),
          'informational',
          () => true,
        ),
        figure(
          "the first 100 MiB body, each side's first (a fresh sidecar), vs the bare stdio hop's first",
          'MiB/s',
          cold.via,
          cold.hop,
          'informational: warm-up, not counted above',
          () => true,
        ),
        figure(
          '100 MiB body throughput vs direct',
          'MiB/s',
          median(via.map((body) => body.rate)),
          directRate,
          'informational (the former target, ≥ 0.8× direct)',
          () => true,
        ),
        figure(
          '100 MiB body, bare stdio hop (no frames) vs direct',
          'MiB/s',
          median(hopRates),
          directRate,
          'informational: the ceiling for the transport',
          () => true,
        ),
        // Where the gap to the bare hop is: the channel itself (frames, schema checks, credit) into a
        // child that only decodes them, then the sidecar's fetch on top (Response, stream, reader).
        figure(
          '100 MiB body, framed hop (the channel: frames and credit, no fetch) vs the bare stdio hop',
          'MiB/s',
          median(framed.map((body) => body.rate)),
          median(hopRates),
          "informational: the channel's own cost",
          () => true,
        ),
        figure(
          '100 MiB body throughput vs the framed hop',
          'MiB/s',
          median(via.map((body) => body.rate)),
          median(framed.map((body) => body.rate)),
          "informational: the sidecar's fetch (Response, ReadableStream, reader) on top of the channel",
          () => true,
        ),
        figure(
          'CPU per 100 MiB body of both processes, framed hop (host + decoding child) vs the bare hop',
          'ms',
          median(hostCpu.framed) + median(framed.map((body) => body.cpuMs)),
          median(hostCpu.hop) + median(hopChildCpu),
          'informational',
          () => true,
        ),
        figure(
          'sidecar CPU per 100 MiB body vs the framed hop child (the same frames decoded, no fetch)',
          'ms',
          median(via.map((body) => body.cpuMs)),
          median(framed.map((body) => body.cpuMs)),
          "informational: the sidecar's fetch",
          () => true,
        ),
        figure(
          'sidecar CPU per 100 MiB body vs the whole direct fetch (server, undici, stream)',
          'ms',
          median(via.map((body) => body.cpuMs)),
          median(direct.map((body) => body.cpuMs)),
          'informational: the sidecar heap options (SIDECAR_NODE_OPTIONS) at work',
          () => true,
        ),
        figure(
          'host CPU per 100 MiB body (this process: server, undici, executor) vs the bare hop',
          'ms',
          median(hostCpu.via),
          median(hostCpu.hop),
          'informational',
          () => true,
        ),
        figure(
          'CPU per 100 MiB body of both processes (host + sidecar) vs the bare hop (host + counting child)',
          'ms',
          median(hostCpu.via) + median(via.map((body) => body.cpuMs)),
          median(hostCpu.hop) + median(hopChildCpu),
          'informational: with both cores busy, throughput vs the hop is at most 1 / this ratio',
          () => true,
        ),
        figure(
          'time to first byte p50',
          'ms',
          ttfb,
          directTtfb,
          'overhead ≤ 2 ms',
          (_r, bastion, baseline) => bastion - baseline <= 2,
        ),
        figure(
          'SSE per-event latency p50 (10 000 events)',
          'ms',
          sse,
          directSse,
          'overhead ≤ 0.5 ms',
          (_r, bastion, baseline) => bastion - baseline <= 0.5,
        ),
      ];
    } finally {
      for (const { child } of children) if (child.exitCode === null) child.kill();
      hop.close();
      await route.close();
      await server.close();
    }
  },
};
