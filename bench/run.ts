/**
 * `npm run bench [-- id …]`: runs the benchmarks, prints each figure with its same-run baseline
 * and ratio, and writes bench/results/latest.json and latest.md (the report README links to).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark, BenchFigure } from './harness.js';
import { handshakeBenchmark } from './handshake.bench.js';
import { commandBenchmark } from './command.bench.js';
import { sidecarStartBenchmark } from './sidecar-start.bench.js';
import { storeBenchmark } from './store.bench.js';
import { sseBenchmark } from './sse.bench.js';
import { transportBenchmark } from './transport.bench.js';
import { faultsBenchmark } from './faults.bench.js';

const BENCHMARKS: Benchmark[] = [
  handshakeBenchmark,
  commandBenchmark,
  sidecarStartBenchmark,
  storeBenchmark,
  sseBenchmark,
  transportBenchmark,
  faultsBenchmark,
];

const here = dirname(fileURLToPath(import.meta.url));

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const selected = wanted.length > 0 ? BENCHMARKS.filter((b) => wanted.includes(b.id)) : BENCHMARKS;
  if (selected.length === 0) {
    console.error(`unknown benchmark; choose from: ${BENCHMARKS.map((b) => b.id).join(', ')}`);
    process.exitCode = 2;
    return;
  }
  const results: { id: string; title: string; figures: BenchFigure[] }[] = [];
  for (const bench of selected) {
    console.log(`\n== ${bench.id}: ${bench.title}`);
    const figures = await bench.run();
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
