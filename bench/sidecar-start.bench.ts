/**
 * Issue 3: sidecar cold start (spawn → readiness attested) inside srt vs unsandboxed, same run,
 * alternating, 10 starts each. srt's one-time initialize (proxies, socat bridges) is paid once
 * per host process and reported apart. Targets: sandboxed median ≤ 2× unsandboxed and ≤ +300 ms.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type Capabilities } from '@bastion/protocol';
import {
  createPrivateTempDir,
  buildSidecarSandboxPolicy,
  acquireSrtSession,
  createSrtSidecarLauncher,
  DaemonSocketHost,
  plainLauncher,
  resolveDaemonEntry,
  type SidecarLauncher,
  SidecarSupervisor,
  createPlaceholderWarden,
} from '@bastion/host/testing';
import { makeTempDir } from '@bastion/test-support';
import { figure, median, type Benchmark } from './harness.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 10);

const silent = createLogger('bench', () => undefined);

/** One cold start: a fresh supervisor spawns the sidecar and waits for its attestation. */
async function coldStart(
  launcher: SidecarLauncher,
  socketHost: DaemonSocketHost,
  userData: string,
  capabilities: Capabilities,
): Promise<number> {
  const supervisor = new SidecarSupervisor({
    entry: resolveDaemonEntry(),
    launcher,
    socketHost,
    log: silent,
    sidecarLog: silent,
    config: () => ({ allowedOrigins: ['http://127.0.0.1:9'], userData, workspaces: [], capabilities }),
  });
  const started = performance.now();
  await supervisor.start();
  const elapsed = performance.now() - started;
  await supervisor.stop();
  return elapsed;
}

export const sidecarStartBenchmark: Benchmark = {
  id: 'sidecar-start',
  title: 'sidecar cold start (spawn → ready attested) inside srt vs unsandboxed',
  async run() {
    const root = makeTempDir('bastion-bench-start-');
    const userData = join(root, 'data');
    const home = join(root, 'home');
    const temp = createPrivateTempDir();
    const socketHost = new DaemonSocketHost(silent);
    await socketHost.listen();
    const initializeStarted = performance.now();
    const session = await acquireSrtSession();
    const initializeMs = performance.now() - initializeStarted;
    try {
      mkdirSync(userData, { mode: 0o700 });
      mkdirSync(home);
      const sandboxed = createSrtSidecarLauncher({
        session,
        policy: () =>
          buildSidecarSandboxPolicy({
            home,
            userData,
            workspaces: [],
            privateTemp: temp.path,
            homeReads: [],
            hostDenies: [],
          }),
        home,
        privateTemp: temp.path,
        warden: createPlaceholderWarden({ userData, log: silent }),
      });
      const srtCaps: Capabilities = { sandbox: 'srt', shell: true, platform: process.platform };
      const noneCaps: Capabilities = {
        sandbox: 'none',
        shell: false,
        platform: process.platform,
        reason: 'bench baseline',
      };
      // One warm-up of each, not counted (first spawn pays module loading and page-cache misses).
      await coldStart(sandboxed, socketHost, userData, srtCaps);
      await coldStart(plainLauncher, socketHost, userData, noneCaps);
      const inside: number[] = [];
      const outside: number[] = [];
      for (let i = 0; i < STARTS; i += 1) {
        inside.push(await coldStart(sandboxed, socketHost, userData, srtCaps));
        outside.push(await coldStart(plainLauncher, socketHost, userData, noneCaps));
      }
      const sandboxedMedian = median(inside);
      const plainMedian = median(outside);
      return [
        figure(
          'cold start median',
          'ms',
          sandboxedMedian,
          plainMedian,
          '≤ 2× unsandboxed and ≤ +300 ms',
          (ratio, bastion, baseline) => ratio <= 2 && bastion - baseline <= 300,
        ),
        figure('srt initialize (once per host process)', 'ms', initializeMs, plainMedian, 'informational', () => true),
      ];
    } finally {
      await session.release();
      await socketHost.close();
      temp.remove();
      rmSync(root, { recursive: true, force: true });
    }
  },
};
