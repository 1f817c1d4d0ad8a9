/**
 * Test support for the command executor: a real CommandExecutor attached to a real channel pair
 * (the host's end and a stand-in for the sidecar's end, both FramedChannel over in-memory pipes),
 * on a temporary HOME, userData and workspace holding canary secrets. Commands really run, under
 * the real srt session and the per-command profile.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  COMMAND_DEFAULT_TIMEOUT_MS,
  createLogger,
  scratchDirOf,
  type Capabilities,
  type FrameOfType,
  type HostToSidecarFrame,
  type LogRecord,
  type SidecarToHostFrame,
} from '@bastion/protocol';
import { CommandExecutor } from '../../src/commands/command-executor.js';
import { PolicyStore } from '../../src/policy/policy-store.js';
import { acquireSrtSession, type SrtSession } from '../../src/sandbox/srt-session.js';
import { makeTempDir } from '@bastion/test-support';
import { connectedChannelPair } from '../../../../test/support/channel-pair.js';
import { createPlaceholderWarden } from '../../src/sandbox/placeholder-warden.js';

export const CANARY = 'CANARY-6b1f0e3c-do-not-leak';

export interface CommandRun {
  id: string;
  stdout: Uint8Array[];
  stderr: Uint8Array[];
  /** Largest decoded `command.output` chunk seen. */
  largestChunk: number;
  /** Frame types in arrival order. */
  frames: string[];
  done: Promise<FrameOfType<HostToSidecarFrame, 'command.end' | 'command.aborted' | 'command.error'>>;
  text(): string;
}

export interface CommandWorld {
  root: string;
  home: string;
  userData: string;
  workspace: string;
  outside: string;
  records: LogRecord[];
  executor: CommandExecutor;
  send(frame: SidecarToHostFrame): void;
  run(
    command: string,
    args: string[],
    overrides?: Partial<FrameOfType<SidecarToHostFrame, 'command.request'>>,
  ): CommandRun;
  abort(id: string): void;
}

let counter = 0;

export function makeCommandWorld(options: {
  srt: SrtSession | undefined;
  root: string;
  capabilities?: Capabilities;
  /**
   * `nested`: the workspace and userData live under the temporary HOME, as they do for most users.
   * `real-home`: HOME is the real one, read-only to the test (nothing is written there), PATH is
   * the host's, so the user's own toolchains are what commands find; workspace and userData stay
   * in `root`.
   */
  layout?: 'siblings' | 'nested' | 'real-home';
}): CommandWorld {
  const { root } = options;
  const layout = options.layout ?? 'siblings';
  // The passwd entry's home: tests point process.env.HOME at a temporary one around srt's start.
  const home = layout === 'real-home' ? userInfo().homedir : join(root, 'home');
  const userData = layout === 'nested' ? join(home, '.bastion') : join(root, 'userdata');
  const workspace = layout === 'nested' ? join(home, 'code', 'app') : join(root, 'workspace');
  const outside = join(root, 'outside');
  for (const dir of [userData, workspace, outside, join(userData, 'scratch', 'ses_otherxx01')]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  if (layout !== 'real-home') {
    mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, '.ssh', 'id_rsa'), `${CANARY}-ssh\n`);
    writeFileSync(join(home, '.bashrc'), '# original bashrc\n');
  }
  writeFileSync(join(userData, 'auth.json'), `{"key":"${CANARY}-auth"}\n`, { mode: 0o600 });
  writeFileSync(join(userData, 'scratch', 'ses_otherxx01', 'notes'), `${CANARY}-scratch\n`);
  writeFileSync(join(outside, 'kept.txt'), 'outside original\n');

  const records: LogRecord[] = [];
  const log = createLogger('host', (record) => records.push(record));
  const executor = new CommandExecutor({
    userData,
    home,
    log,
    srt: options.srt,
    env: { PATH: layout === 'real-home' ? (process.env.PATH ?? '/usr/bin:/bin') : '/usr/local/bin:/usr/bin:/bin' },
    policy: new PolicyStore(userData),
    warden: createPlaceholderWarden({ userData, log }),
  });

  const { host: hostEnd, sidecar: sidecarEnd } = connectedChannelPair();
  executor.attach({
    channel: hostEnd,
    config: {
      allowedOrigins: ['http://127.0.0.1:1'],
      userData,
      workspaces: [workspace],
      capabilities: options.capabilities ?? { sandbox: 'srt', shell: true, platform: process.platform },
    },
  });

  const runs = new Map<string, { run: CommandRun; settle: (frame: never) => void }>();
  const settle = (frame: FrameOfType<HostToSidecarFrame, 'command.end' | 'command.aborted' | 'command.error'>) => {
    const entry = runs.get(frame.id);
    if (!entry) throw new Error(`frame for unknown command ${frame.id}`);
    entry.run.frames.push(frame.type);
    runs.delete(frame.id);
    entry.settle(frame as never);
  };
  sidecarEnd.on('command.output', (frame) => {
    const entry = runs.get(frame.id);
    if (!entry) throw new Error(`output for unknown command ${frame.id}`);
    const data = frame.data;
    entry.run.frames.push(frame.type);
    entry.run.largestChunk = Math.max(entry.run.largestChunk, data.byteLength);
    (frame.stream === 'stdout' ? entry.run.stdout : entry.run.stderr).push(data);
  });
  sidecarEnd.on('command.end', settle);
  sidecarEnd.on('command.aborted', settle);
  sidecarEnd.on('command.error', settle);

  return {
    root,
    home,
    userData,
    workspace,
    outside,
    records,
    executor,
    send: (frame) => sidecarEnd.send(frame),
    run(command, args, overrides = {}) {
      counter += 1;
      const id = `cmd_test${counter}`;
      let settleRun: (frame: never) => void = () => undefined;
      const run: CommandRun = {
        id,
        stdout: [],
        stderr: [],
        largestChunk: 0,
        frames: [],
        done: new Promise((resolve) => {
          settleRun = resolve;
        }),
        text: () => Buffer.concat([...run.stdout, ...run.stderr]).toString('utf8'),
      };
      runs.set(id, { run, settle: settleRun });
      sidecarEnd.send({
        v: 1,
        type: 'command.request',
        id,
        command,
        args,
        cwd: workspace,
        workspace_root: workspace,
        scratch_dir: scratchDirOf(userData, 'ses_minexx0001'),
        timeout_ms: COMMAND_DEFAULT_TIMEOUT_MS,
        ...overrides,
      });
      return run;
    },
    abort(id) {
      sidecarEnd.send({ v: 1, type: 'command.abort', id });
    },
  };
}

export { makeTempDir };

/** `/` spelled as printf octal escapes, so an argument holds no path for the daemon's check to see. */
export function octalEscapedPath(path: string): string {
  return path.replaceAll('/', '\\057');
}

/** Host processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/**
 * Nothing a command wrote is at `path`: it is absent, or srt's empty mount point for a protected
 * path inside `.git` (an empty file or directory), which a kept wrap holds until the host stops
 * (wrap-cache.ts).
 */
export function holdsNothingWritten(path: string): boolean {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return true;
  return stats.isFile() ? stats.size === 0 : stats.isDirectory() && readdirSync(path).length === 0;
}

/**
 * A suite's command world under the real srt session, made before its tests and released after:
 * HOME points at the world's temporary one while srt starts (srt resolves its session's HOME
 * secrets from it), and the workspace is the host's working directory, as under `bastion start`
 * (srt's own protections resolve against it). `prepare` runs on the world before the chdir.
 */
export function useCommandWorldInWorkspace(
  prefix: string,
  prepare: (world: CommandWorld) => void = () => undefined,
): { readonly world: CommandWorld; readonly srt: SrtSession } {
  const made: { world?: CommandWorld; srt?: SrtSession } = {};
  const realCwd = process.cwd();
  const realHome = process.env.HOME;
  beforeAll(async () => {
    const root = makeTempDir(prefix);
    process.env.HOME = join(root, 'home');
    made.srt = await acquireSrtSession();
    made.world = makeCommandWorld({ srt: made.srt, root });
    prepare(made.world);
    process.chdir(made.world.workspace);
  }, 60_000);
  afterAll(async () => {
    process.chdir(realCwd);
    await made.world?.executor.close();
    await made.srt?.release();
    process.env.HOME = realHome;
  });
  return {
    get world() {
      if (made.world === undefined) throw new Error('the command world is made in beforeAll');
      return made.world;
    },
    get srt() {
      if (made.srt === undefined) throw new Error('the srt session is acquired in beforeAll');
      return made.srt;
    },
  };
}
