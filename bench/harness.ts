/**
 * Shared shape of every benchmark: a figure measured for Bastion and for a baseline in the same
 * run, their ratio, and the target it is judged against. Benchmarks print; tests never time.
 */
export interface BenchFigure {
  /** e.g. "handshake throughput (req/s)". */
  figure: string;
  unit: string;
  bastion: number;
  baseline: number;
  /** bastion / baseline. */
  ratio: number;
  /** Human-readable target, e.g. "≥ 0.7× baseline". */
  target: string;
  met: boolean;
}

export interface Benchmark {
  /** Short id used on the command line: `npm run bench -- <id>`. */
  id: string;
  /** Which issue's targets it measures. */
  title: string;
  run(): Promise<BenchFigure[]>;
}

export function figure(
  name: string,
  unit: string,
  bastion: number,
  baseline: number,
  target: string,
  met: (ratio: number, bastion: number, baseline: number) => boolean,
): BenchFigure {
  const ratio = baseline === 0 ? Number.POSITIVE_INFINITY : bastion / baseline;
  return { figure: name, unit, bastion, baseline, ratio, target, met: met(ratio, bastion, baseline) };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}
