/**
 * Issue 5: run_command through the full path — the daemon's run_command tool (validation, mode) →
 * its command client → channel v1 frames (the real codec) → the host's command executor
 * (re-validation, per-command srt profile) → a bubblewrap-sandboxed child → output frames back —
 * vs a plain `child_process.spawn` of the same program, in the same run. The two channel ends are
 * in this one process over in-memory pipes (no sidecar process hop); everything else is real.
 *
 * Figures: p50 latency of `true` (targets, issue 21: ≤ +25 ms over the plain spawn and ≤ 2× a
 * bare `bwrap --unshare-net --ro-bind / / true` spawned the same way; issue 5's was ≤ +100 ms),
 * and output throughput of `seq 1 1000000` (6.9 MB; Bastion forwards the first 1 MiB and drains
 * the rest, as designed). The throughput figure subtracts each path's own `true` p50 (its fixed
 * start cost) from the `seq` run, so it measures streaming, not sandbox start-up; the raw figure
 * is printed too. It also prints how many `true` runs were served from the wrap cache and how many
 * were handed to a sandbox the host pre-started after the run before (prestarted-sandbox.ts; the
 * loop's other spawns run between two, so one is always ready).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createLogger } from '@bastion/protocol';
import { connectedChannelPair } from '../test/support/channel-pair.js';
import {
  CommandClient,
  type CommandRunResult,
  type ShellRefusal,
  createRunCommandTool,
  openDatabase,
  SessionStore,
  WorkspaceRoots,
  HostWorkspaceWriter,
} from '@bastion/daemon/testing';
import {
  CommandExecutor,
  buildCommandSandboxProfile,
  PolicyStore,
  acquireSrtSession,
  createPlaceholderWarden,
} from '@bastion/host/testing';
import { figure, median, type Benchmark } from './harness.js';

const LATENCY_RUNS = Number(process.env.BENCH_COMMAND_RUNS ?? 30);
/** A project-sized git repository: 8 × 8 × 10 directories below 72, each with a file. */
const REPOSITORY_FANOUT = [8, 8, 10];
const THROUGHPUT_RUNS = Number(process.env.BENCH_COMMAND_THROUGHPUT_RUNS ?? 15);
const SEQ_ARGS = ['1', '1000000'];
/** A pause after each measured `true` (a model's turn is seconds): the next sandbox's pre-start runs in it. */
const TURN_GAP_MS = 100;
/** The floor of any sandboxed command here: bubblewrap alone, a new network namespace, / read-only. */
const BARE_BWRAP_TRUE = ['--unshare-net', '--ro-bind', '/', '/', 'true'];

interface Timed {
  ms: number;
  bytes: number;
}

/** A git repository (made by `git init`) holding a tree of REPOSITORY_FANOUT directories; their count. */
function makeRepository(root: string): number {
  let level = [root];
  let made = 0;
  for (const fanout of REPOSITORY_FANOUT) {
    level = level.flatMap((dir) =>
      Array.from({ length: fanout }, (_, i) => {
        const child = join(dir, `dir-${i}`);
        mkdirSync(child);
        writeFileSync(join(child, 'file.txt'), 'x\n');
        made += 1;
        return child;
      }),
    );
  }
  execFileSync('git', ['init', '-q', root]);
  return made;
}

function plainRun(command: string, args: string[], cwd: string): Promise<Timed> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
    child.once('error', reject);
    child.once('close', () => resolve({ ms: performance.now() - started, bytes }));
  });
}

export const commandBenchmark: Benchmark = {
  id: 'command',
  title: 'run_command through tool → frames → host → sandboxed child vs plain child_process.spawn',
  async run() {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'bastion-bench-command-')));
    const home = join(root, 'home');
    const userData = join(root, 'userdata');
    const workspace = join(root, 'workspace');
    const repository = join(root, 'repository');
    for (const dir of [home, userData, workspace, repository]) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const repositoryDirs = makeRepository(repository);
    const realHome = process.env.HOME;
    process.env.HOME = home;
    // As `bastion start` and `bastion run` do: the host runs from the workspace (srt scans it per wrap).
    const realCwd = process.cwd();
    process.chdir(workspace);
    const srt = await acquireSrtSession();
    const db = openDatabase(join(userData, 'sessions.db'));
    let executor: CommandExecutor | undefined;
    try {
      let cachedWraps = 0;
      let prestartedRuns = 0;
      const log = createLogger('bench', (record) => {
        if (record.event === 'command.started' && record.fields.wrap === 'cached') cachedWraps += 1;
        if (record.event === 'command.started' && record.fields.prestarted === true) prestartedRuns += 1;
      });
      const { host: hostEnd, sidecar: sidecarEnd } = connectedChannelPair();
      executor = new CommandExecutor({
        userData,
        home,
        log,
        srt,
        policy: new PolicyStore(userData),
        warden: createPlaceholderWarden({ userData, log }),
      });
      executor.attach({
        channel: hostEnd,
        config: {
          allowedOrigins: ['http://127.0.0.1:1'],
          userData,
          workspaces: [workspace, repository],
          capabilities: { sandbox: 'srt', shell: true, platform: process.platform },
        },
      });
      const store = new SessionStore(db);
      const session = store.sessions.create({
        provider: 'demo',
        model: 'demo',
        workspace,
        mode: 'auto',
        consentBy: 'bench',
      });
      const client = new CommandClient(sidecarEnd);
      // run_command writes nothing through the file tools: the host's workspace writes stand by unused.
      const writer = new HostWorkspaceWriter(sidecarEnd);
      const executeIn = (root: string) => {
        const tool = createRunCommandTool(
          { roots: new WorkspaceRoots([root], writer), workspace: root, sessionId: session.id, store },
          { client, userData, log },
        );
        if (!tool.execute) throw new Error('run_command has no execute');
        return tool.execute;
      };
      const inWorkspace = executeIn(workspace);
      const inRepository = executeIn(repository);
      const bastionRun = async (command: string, args: string[], execute = inWorkspace): Promise<Timed> => {
        const started = performance.now();
        const result = (await execute({ command, args }, { toolCallId: 'bench', messages: [] })) as
          CommandRunResult | ShellRefusal;
        if ('ok' in result) throw new Error(`run_command refused: ${result.code}`);
        // Bytes the command produced: all of them passed through the host (the first 1 MiB forwarded).
        const bytes = result.truncated ? plainBytes : Buffer.byteLength(result.stdout);
        return { ms: performance.now() - started, bytes };
      };
      const plainBytes = (await plainRun('seq', SEQ_ARGS, workspace)).bytes;

      // srt's sandbox for `true` alone, no wrap work: the argv a kept wrap gives, spawned directly.
      const privateTemp = realpathSync(mkdtempSync(join(tmpdir(), 'bastion-bench-tmp-')));
      const floor = await srt.wrapCommand(
        ['true'],
        buildCommandSandboxProfile({
          home,
          userData,
          workspaceRoot: workspace,
          scratchDir: undefined,
          privateTemp,
          protectedInWorkspace: [],
          realPath: () => undefined,
          homeReads: [],
        }),
        {
          home,
          privateTemp,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: privateTemp },
          skipPlaceholder: () => true,
        },
      );
      // Ended at once: the argv stays valid (no mount points: no repository, nothing absent
      // skipped), and a command counted as running would keep the cache from keeping wraps.
      floor.ended();
      const [floorCommand = 'false', ...floorArgs] = floor.argv;

      const bastionTrue: number[] = [];
      const fullWrapTrue: number[] = [];
      const plainTrue: number[] = [];
      const bareBwrapTrue: number[] = [];
      // This process's CPU (user + system, its threads included) per run: less moved by the load than time.
      const bastionCpu: number[] = [];
      /** The same plus what the host spends after the command pre-starting the next one's sandbox. */
      const bastionCpuWithPrestart: number[] = [];
      const plainCpu: number[] = [];
      const cpuOf = async (run: () => Promise<Timed>, into: number[]): Promise<Timed> => {
        const before = process.cpuUsage();
        const timed = await run();
        const used = process.cpuUsage(before);
        into.push((used.user + used.system) / 1000);
        return timed;
      };
      const sandboxAloneTrue: number[] = [];
      await bastionRun('true', []);
      await bastionRun('true', []);
      const cachedBefore = cachedWraps;
      const prestartedBefore = prestartedRuns;
      for (let i = 0; i < LATENCY_RUNS; i += 1) {
        plainTrue.push((await cpuOf(() => plainRun('true', [], workspace), plainCpu)).ms);
        bareBwrapTrue.push((await plainRun('bwrap', BARE_BWRAP_TRUE, workspace)).ms);
        sandboxAloneTrue.push((await plainRun(floorCommand, floorArgs, workspace)).ms);
        const before = process.cpuUsage();
        bastionTrue.push((await cpuOf(() => bastionRun('true', []), bastionCpu)).ms);
        // The model's turn between two commands: the next sandbox is pre-started in it, not during the baselines.
        await delay(TURN_GAP_MS);
        const used = process.cpuUsage(before);
        bastionCpuWithPrestart.push((used.user + used.system) / 1000);
      }
      const servedFromCache = cachedWraps - cachedBefore;
      const servedPrestarted = prestartedRuns - prestartedBefore;
      // The same in a project-sized repository, the host running from it (as `bastion start` there).
      const repositoryTrue: number[] = [];
      process.chdir(repository);
      await bastionRun('true', [], inRepository);
      await bastionRun('true', [], inRepository);
      for (let i = 0; i < LATENCY_RUNS; i += 1) repositoryTrue.push((await bastionRun('true', [], inRepository)).ms);
      process.chdir(workspace);
      // A new directory in the workspace before each: srt's scan must run again (a full wrap).
      for (let i = 0; i < LATENCY_RUNS; i += 1) {
        mkdirSync(join(workspace, `changed-${i}`));
        fullWrapTrue.push((await bastionRun('true', [])).ms);
      }
      rmSync(privateTemp, { recursive: true, force: true });
      const bastionSeq: Timed[] = [];
      const plainSeq: Timed[] = [];
      for (let i = 0; i < THROUGHPUT_RUNS; i += 1) {
        plainSeq.push(await plainRun('seq', SEQ_ARGS, workspace));
        bastionSeq.push(await bastionRun('seq', SEQ_ARGS));
      }
      const p50Bastion = median(bastionTrue);
      const p50Plain = median(plainTrue);
      const mbps = (runs: Timed[], startCost: number) =>
        median(runs.map((run) => run.bytes / 1e6 / (Math.max(run.ms - startCost, 1) / 1000)));
      const rawMbps = (runs: Timed[]) => median(runs.map((run) => run.bytes / 1e6 / (run.ms / 1000)));
      return [
        figure('`true` p50 latency', 'ms', p50Bastion, p50Plain, 'overhead ≤ +25 ms', (_r, b, p) => b - p <= 25),
        figure(
          '`true` p50 latency vs a bare `bwrap --unshare-net --ro-bind / / true`',
          'ms',
          p50Bastion,
          median(bareBwrapTrue),
          '≤ 2× bare bwrap',
          (r) => r <= 2,
        ),
        figure(
          "`true` p50 latency: srt's sandbox alone (the same bwrap argv, spawned directly) vs bare bwrap",
          'ms',
          median(sandboxAloneTrue),
          median(bareBwrapTrue),
          'informational: the floor under srt',
          () => true,
        ),
        figure(
          "`true` p50 CPU of the host's side (this process: tool, frames, executor, the spawn) vs a plain spawn's",
          'ms',
          median(bastionCpu),
          median(plainCpu),
          'informational',
          () => true,
        ),
        figure(
          "`true` p50 CPU of the host's side with the next sandbox's pre-start (profile, wrap cache check, spawn) vs a plain spawn's",
          'ms',
          median(bastionCpuWithPrestart),
          median(plainCpu),
          'informational',
          () => true,
        ),
        figure(
          '`true` p50 latency after a workspace change (full wrap by srt) vs a kept wrap',
          'ms',
          median(fullWrapTrue),
          p50Bastion,
          'informational',
          () => true,
        ),
        figure(
          `\`true\` p50 latency in a git repository of ${repositoryDirs} directories vs the empty workspace`,
          'ms',
          median(repositoryTrue),
          p50Bastion,
          'informational: the per-command git repository scans',
          () => true,
        ),
        figure(
          '`true` runs whose wrap was served from the cache',
          'runs',
          servedFromCache,
          LATENCY_RUNS,
          'informational',
          () => true,
        ),
        figure(
          '`true` runs handed to a sandbox pre-started after the run before',
          'runs',
          servedPrestarted,
          LATENCY_RUNS,
          'informational',
          () => true,
        ),
        figure(
          '`seq 1 1000000` streaming throughput (start cost subtracted)',
          'MB/s',
          mbps(bastionSeq, p50Bastion),
          mbps(plainSeq, p50Plain),
          '≥ 0.5× plain',
          (r) => r >= 0.5,
        ),
        figure(
          '`seq 1 1000000` raw throughput (start cost included)',
          'MB/s',
          rawMbps(bastionSeq),
          rawMbps(plainSeq),
          'informational',
          () => true,
        ),
      ];
    } finally {
      await executor?.close();
      db.close();
      await srt.release();
      process.env.HOME = realHome;
      process.chdir(realCwd);
      rmSync(root, { recursive: true, force: true });
    }
  },
};
