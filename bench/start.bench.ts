/**
 * Issue 21: how long a user waits. `bastion start` to its ready line and a one-shot
 * `bastion run --provider demo "ls"` to exit, the built CLI spawned as a user runs it, against
 * the floor measured in the same run: a bare `node -e 0` plus srt's initialize (in this process).
 * The rounds alternate the three, so each sees the same machine. Each start's own
 * `startup.stage` records (host.log) say where its time went; the bench prints their medians.
 * Memory at rest: the RSS of the host and the sidecar's Node in one more start left idle for
 * REST_MS after its ready line, when V8's memory reducer (it runs about 8 s after a process's last
 * full collection, which each has during its start) has given back the young generation that
 * loading grew; each counted start's RSS at its ready line is printed beside it.
 *
 * Targets: start ≤ 3× the floor (≤ 600 ms on an idle machine), run ≤ 900 ms idle (the same
 * proportion of the floor: 4.5×), host + sidecar RSS at rest ≤ 150 MiB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, realpathSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireSrtSession } from '@bastion/host/testing';
import { processTree } from '@bastion/test-support';
import { figure, median, type BenchFigure, type Benchmark } from './harness.js';

const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 5);
const CLI = fileURLToPath(new URL('../packages/cli/dist/main.js', import.meta.url));
const MIB = 1024 * 1024;
/** How long the start measured at rest stays idle after its ready line. */
const REST_MS = 12_000;

/** The stages a start logs (`startup.stage`, by source), in the order they happen. */
const STAGES: { source: 'host' | 'daemon'; stage: string; label: string }[] = [
  { source: 'host', stage: 'process-start', label: "host: Node start-up + the CLI's entry (srt's modules)" },
  {
    source: 'host',
    stage: 'host-load',
    label: "host: the prelude (home checks, temp root, srt initialize begun), then the CLI's and host's modules",
  },
  { source: 'host', stage: 'srt-initialize', label: 'host: srt initialize, what is left of it to wait' },
  { source: 'host', stage: 'sidecar-launch', label: "host: srt's wrap of the sidecar" },
  { source: 'host', stage: 'sidecar', label: 'host: sidecar spawn → ready attested' },
  { source: 'daemon', stage: 'process-start', label: 'sidecar: Node start-up + module loading' },
  { source: 'daemon', stage: 'bootstrap', label: 'sidecar: waiting for the bootstrap frame' },
  { source: 'daemon', stage: 'agent-runtime', label: 'sidecar: SQLite open + migrations (agent runtime)' },
];

interface StartSample {
  readyMs: number;
  /** CPU (user + system) the host and the sidecar's Node had used by the ready line. */
  cpuMs: number;
  hostRssBytes: number;
  sidecarRssBytes: number;
  /** `${source}/${stage}` → duration. */
  stages: Map<string, number>;
  /** The sidecar's own uptime when it attested readiness. */
  sidecarReadyMs: number;
}

/** The sidecar's Node inside its wrapped tree (the wrap's shells name the entry in their arguments too). */
function sidecarNode(sidecarPid: number): number {
  const found = processTree(sidecarPid).find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'node');
  if (found === undefined) throw new Error('no node process in the sidecar tree');
  return found;
}

/** User + system CPU of one process so far (clock ticks of 10 ms; /proc/<pid>/stat fields 14 and 15). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? Number.NaN) * 1024;
}

async function nodeFloor(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await once(child, 'exit');
  return performance.now() - started;
}

function readStages(userData: string): { stages: Map<string, number>; sidecarReadyMs: number } {
  const stages = new Map<string, number>();
  let sidecarReadyMs = Number.NaN;
  for (const line of readFileSync(join(userData, 'logs', 'host.log'), 'utf8').split('\n')) {
    if (!line) continue;
    const record = JSON.parse(line) as { source: string; event: string; fields: Record<string, unknown> };
    const duration = record.fields.duration_ms;
    if (typeof duration !== 'number') continue;
    if (record.event === 'startup.stage') stages.set(`${record.source}/${String(record.fields.stage)}`, duration);
    if (record.event === 'sidecar.ready' && record.source === 'daemon') sidecarReadyMs = duration;
  }
  return { stages, sidecarReadyMs };
}

function cli(args: string[], dirs: { home: string; workspace: string }): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: dirs.workspace,
    env: { ...process.env, HOME: dirs.home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Both processes' RSS REST_MS after the ready line, a start left idle till then. */
async function restingRss(root: string): Promise<{ host: number; sidecar: number }> {
  const dirs = { home: join(root, 'home'), workspace: join(root, 'workspace') };
  const child = cli(
    ['start', '--json', '--no-open', '--home', join(root, 'rest'), '--workspace', dirs.workspace],
    dirs,
  );
  const exited = once(child, 'exit');
  const ready = await readyLine(child);
  await new Promise((resolve) => setTimeout(resolve, REST_MS));
  const rss = { host: rssBytes(ready.pid.host), sidecar: rssBytes(sidecarNode(ready.pid.sidecar)) };
  child.kill('SIGINT');
  await exited;
  return rss;
}

function readyLine(child: ChildProcess): Promise<{ pid: { host: number; sidecar: number } }> {
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"event":"ready"'));
      if (line) resolve(JSON.parse(line) as { pid: { host: number; sidecar: number } });
    });
    child.once('exit', (code) => reject(new Error(`bastion start exited with ${code} before its ready line`)));
  });
}

async function startOnce(root: string, round: number): Promise<StartSample> {
  const dirs = { home: join(root, 'home'), workspace: join(root, 'workspace') };
  const userData = join(root, `start-${round}`);
  const started = performance.now();
  const child = cli(['start', '--json', '--no-open', '--home', userData, '--workspace', dirs.workspace], dirs);
  const exited = once(child, 'exit');
  const ready = await readyLine(child);
  const readyMs = performance.now() - started;
  const sidecar = sidecarNode(ready.pid.sidecar);
  const hostRssBytes = rssBytes(ready.pid.host);
  const sidecarRssBytes = rssBytes(sidecar);
  const cpu = cpuMs(ready.pid.host) + cpuMs(sidecar);
  child.kill('SIGINT');
  await exited;
  return { readyMs, cpuMs: cpu, hostRssBytes, sidecarRssBytes, ...readStages(userData) };
}

async function runOnce(root: string, round: number): Promise<number> {
  const dirs = { home: join(root, 'home'), workspace: join(root, 'workspace') };
  const userData = join(root, `run-${round}`);
  const started = performance.now();
  const child = cli(['run', '--provider', 'demo', '--home', userData, '--workspace', dirs.workspace, 'ls'], dirs);
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`bastion run exited with ${code}`);
  return performance.now() - started;
}

async function srtInitialize(): Promise<number> {
  const started = performance.now();
  const session = await acquireSrtSession();
  const elapsed = performance.now() - started;
  await session.release();
  return elapsed;
}

function informational(name: string, unit: string, value: number, of: number): BenchFigure {
  return figure(name, unit, value, of, 'informational (baseline: the whole start)', () => true);
}

export const startBenchmark: Benchmark = {
  id: 'start',
  title: 'bastion start to ready and a one-shot bastion run vs node -e 0 + srt initialize, per stage',
  async run() {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'bastion-bench-start-')));
    mkdirSync(join(root, 'home'), { mode: 0o700 });
    mkdirSync(join(root, 'workspace'));
    try {
      // One warm-up of each, not counted (page cache, first compile of the bundles).
      await nodeFloor();
      await srtInitialize();
      await startOnce(root, -1);
      await runOnce(root, -1);
      const floors: number[] = [];
      const inits: number[] = [];
      const starts: StartSample[] = [];
      const runs: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        floors.push(await nodeFloor());
        inits.push(await srtInitialize());
        starts.push(await startOnce(root, round));
        runs.push(await runOnce(root, round));
      }
      const rest = await restingRss(root);
      const floor = median(floors) + median(inits);
      const start = median(starts.map((s) => s.readyMs));
      const run = median(runs.map((ms) => ms));
      const hostRss = median(starts.map((s) => s.hostRssBytes)) / MIB;
      const sidecarRss = median(starts.map((s) => s.sidecarRssBytes)) / MIB;
      const totalRss = median(starts.map((s) => (s.hostRssBytes + s.sidecarRssBytes) / MIB));
      const stage = (key: string) => median(starts.map((s) => s.stages.get(key) ?? Number.NaN));
      // Between the wrap and the sidecar's Node starting: spawn, bwrap, seccomp, the wrap's shells.
      const sandboxSetUp = median(
        starts.map(
          (s) =>
            (s.stages.get('host/sidecar') ?? Number.NaN) -
            (s.stages.get('host/sidecar-launch') ?? 0) -
            s.sidecarReadyMs,
        ),
      );
      return [
        figure(
          'bastion start → ready line, median',
          'ms',
          start,
          floor,
          '≤ 3× (node -e 0 + srt initialize)',
          (r) => r <= 3,
        ),
        figure('bastion start → ready line (idle-machine target)', 'ms', start, 600, '≤ 600 ms', (_r, b) => b <= 600),
        figure('floor: node -e 0', 'ms', median(floors), floor, 'informational (baseline: the floor)', () => true),
        figure('floor: srt initialize', 'ms', median(inits), floor, 'informational (baseline: the floor)', () => true),
        ...STAGES.map((s) => informational(s.label, 'ms', stage(`${s.source}/${s.stage}`), start)),
        informational('sidecar: spawn → its Node running (bwrap, seccomp, shells)', 'ms', sandboxSetUp, start),
        informational(
          'CPU used by the host and the sidecar by the ready line (less load-dependent than the time)',
          'ms',
          median(starts.map((s) => s.cpuMs)),
          start,
        ),
        informational('sidecar: its uptime at ready', 'ms', median(starts.map((s) => s.sidecarReadyMs)), start),
        figure(
          'bastion run --provider demo "ls" → exit, median',
          'ms',
          run,
          floor,
          '≤ 4.5× (node -e 0 + srt initialize)',
          (r) => r <= 4.5,
        ),
        figure('bastion run → exit (idle-machine target)', 'ms', run, 900, '≤ 900 ms', (_r, b) => b <= 900),
        figure(
          `RSS host + sidecar at rest (${REST_MS / 1000} s idle after the ready line)`,
          'MiB',
          (rest.host + rest.sidecar) / MIB,
          150,
          '≤ 150 MiB',
          (_r, b) => b <= 150,
        ),
        figure(
          'RSS host at rest',
          'MiB',
          rest.host / MIB,
          (rest.host + rest.sidecar) / MIB,
          'informational (baseline: both)',
          () => true,
        ),
        figure(
          'RSS host + sidecar at the ready line, median (before the memory reducer)',
          'MiB',
          totalRss,
          (rest.host + rest.sidecar) / MIB,
          'informational (baseline: at rest)',
          () => true,
        ),
        figure('RSS host at the ready line', 'MiB', hostRss, totalRss, 'informational (baseline: both)', () => true),
        figure(
          'RSS sidecar at the ready line',
          'MiB',
          sidecarRss,
          totalRss,
          'informational (baseline: both)',
          () => true,
        ),
      ];
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
