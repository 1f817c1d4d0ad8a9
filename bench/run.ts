/**
 * `npm run bench [-- id …]`: runs the benchmarks, prints each figure with its same-run baseline
 * and ratio, and writes bench/results/latest.json and latest.md (the report README links to).
 *
 * Each benchmark runs in a process of its own (this script again, with `--isolated ID FILE`): a
 * benchmark that measures a path running in this process (the host side of the transport, the
 * command executor) would otherwise also carry the heap, timers and sockets every earlier
 * benchmark left behind, and its figure would depend on the order of the list.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark, BenchFigure } from './harness.js';
import { handshakeBenchmark } from './handshake.bench.js';
import { commandBenchmark } from './command.bench.js';
import { fileWriteBenchmark } from './file-write.bench.js';
import { sidecarStartBenchmark } from './sidecar-start.bench.js';
import { startBenchmark } from './start.bench.js';
import { storeBenchmark } from './store.bench.js';
import { sseBenchmark } from './sse.bench.js';
import { transportBenchmark } from './transport.bench.js';
import { faultsBenchmark } from './faults.bench.js';
import { policyBenchmark } from './policy.bench.js';
import { egressBenchmark } from './egress.bench.js';
import { uiBenchmark } from './ui.bench.js';
import { soakBenchmark } from './soak.bench.js';
import { longSessionBenchmark } from './long-session.bench.js';

const BENCHMARKS: Benchmark[] = [
  handshakeBenchmark,
  commandBenchmark,
  fileWriteBenchmark,
  sidecarStartBenchmark,
  startBenchmark,
  storeBenchmark,
  sseBenchmark,
  transportBenchmark,
  faultsBenchmark,
  policyBenchmark,
  egressBenchmark,
  uiBenchmark,
  soakBenchmark,
  longSessionBenchmark,
];

const here = dirname(fileURLToPath(import.meta.url));

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}

/** Run `bench` in a fresh process (same Node flags, so the TypeScript loader too) and read its figures. */
async function runIsolated(bench: Benchmark): Promise<BenchFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bastion-bench-'));
  const out = join(dir, 'figures.json');
  try {
    const child = spawn(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--isolated', bench.id, out],
      {
        stdio: 'inherit',
      },
    );
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`benchmark ${bench.id} exited with ${code}`);
    return JSON.parse(readFileSync(out, 'utf8')) as BenchFigure[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The child side of runIsolated: one benchmark, its figures written to `out`. */
async function isolated(id: string, out: string): Promise<void> {
  const bench = BENCHMARKS.find((b) => b.id === id);
  if (!bench) throw new Error(`unknown benchmark ${id}`);
  writeFileSync(out, JSON.stringify(await bench.run()));
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  if (wanted[0] === '--isolated') {
    await isolated(wanted[1] ?? '', wanted[2] ?? '');
    return;
  }
  const selected = wanted.length > 0 ? BENCHMARKS.filter((b) => wanted.includes(b.id)) : BENCHMARKS;
  if (selected.length === 0) {
    console.error(`unknown benchmark; choose from: ${BENCHMARKS.map((b) => b.id).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const results: { id: string; title: string; figures: BenchFigure[] }[] = [];
  for (const bench of selected) {
    console.log(`\n== ${bench.id}: ${bench.title}`);
    const figures = await runIsolated(bench);
    for (const f of figures) {
      console.log(
        `  ${f.figure}: bastion ${format(f.bastion)} ${f.unit}, baseline ${format(f.baseline)} ${f.unit}, ratio ${format(f.ratio)} (target ${f.target}) ${f.met ? 'MET' : 'MISSED'}`,
      );
    }
    results.push({ id: bench.id, title: bench.title, figures });
  }
  const out = join(here, 'results');
  mkdirSync(out, { recursive: true });
  const stamp = new Date().toISOString();
  writeFileSync(
    join(out, 'latest.json'),
    `${JSON.stringify({ time: stamp, node: process.version, results }, null, 2)}\n`,
  );
  const rows = results.flatMap((r) =>
    r.figures.map(
      (f) =>
        `| ${r.id} | ${f.figure} | ${format(f.bastion)} ${f.unit} | ${format(f.baseline)} ${f.unit} | ${format(f.ratio)} | ${f.target} | ${f.met ? 'yes' : 'no'} |`,
    ),
  );
  writeFileSync(
    join(out, 'latest.md'),
    [
      `# Bench report (${stamp}, Node ${process.version})`,
      '',
      '| bench | figure | bastion | baseline | ratio | target | met? |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
    ].join('\n'),
  );
  console.log(`\nwrote ${join(out, 'latest.json')} and latest.md`);
}

await main();
