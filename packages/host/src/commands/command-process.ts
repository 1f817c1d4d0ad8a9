/**
 * One run_command child, supervised: spawned with `shell: false` as the leader of its own process
 * group, its output streamed in chunks of at most COMMAND_OUTPUT_CHUNK_BYTES up to
 * COMMAND_MAX_OUTPUT_BYTES (then cut and flagged), and on timeout or abort the whole group gets
 * SIGTERM, then SIGKILL after COMMAND_KILL_GRACE_MS. Under srt the group leader is bwrap
 * (`--die-with-parent`, `--unshare-pid`): when it dies, the kernel kills every process in the
 * command's PID namespace, background children included. The returned promise settles only after
 * the process has exited AND every copy of its stdout/stderr is closed, i.e. after cleanup.
 *
 * What it does not catch: in the unsandboxed posture (`--unsandboxed-shell`) a descendant that
 * calls setsid() and closes its stdio leaves the group and survives; there is no PID namespace.
 */
import { spawn } from 'node:child_process';
import { COMMAND_KILL_GRACE_MS, COMMAND_MAX_OUTPUT_BYTES, COMMAND_OUTPUT_CHUNK_BYTES } from '@bastion/protocol';

export interface CommandSpawn {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface CommandOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  durationMs: number;
  /** Set when the process could not be started at all. */
  spawnFailed: boolean;
}

export interface RunningCommand {
  readonly done: Promise<CommandOutcome>;
  abort(): void;
}

export function startCommandProcess(
  target: CommandSpawn,
  options: { timeoutMs: number; onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void },
): RunningCommand {
  const started = performance.now();
  const child = spawn(target.command, target.args, {
    cwd: target.cwd,
    env: target.env,
    shell: false,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let sent = 0;
  let truncated = false;
  let timedOut = false;
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;

  const emit = (stream: 'stdout' | 'stderr', data: Buffer) => {
    const room = COMMAND_MAX_OUTPUT_BYTES - sent;
    if (room <= 0) {
      truncated = true;
      return;
    }
    const kept = data.byteLength > room ? data.subarray(0, room) : data;
    if (kept.byteLength < data.byteLength) truncated = true;
    for (let offset = 0; offset < kept.byteLength; offset += COMMAND_OUTPUT_CHUNK_BYTES) {
      options.onOutput(stream, kept.subarray(offset, offset + COMMAND_OUTPUT_CHUNK_BYTES));
    }
    sent += kept.byteLength;
  };
  // Keep reading past the bound (and discarding), so a chatty command is not blocked on a full pipe.
  child.stdout?.on('data', (data: Buffer) => emit('stdout', data));
  child.stderr?.on('data', (data: Buffer) => emit('stderr', data));

  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  const stop = () => {
    if (killTimer !== undefined) return;
    signalGroup('SIGTERM');
    killTimer = setTimeout(() => signalGroup('SIGKILL'), COMMAND_KILL_GRACE_MS);
  };
  const timeout = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);

  const done = new Promise<CommandOutcome>((resolve) => {
    let spawnFailed = false;
    child.once('error', () => {
      spawnFailed = true;
    });
    // 'close' fires after exit and after every holder of the pipes has closed them.
    child.once('close', (code, signal) => {
      clearTimeout(timeout);
      clearTimeout(killTimer);
      // A child that left the group leader behind may still hold the group: end it too.
      signalGroup('SIGKILL');
      resolve({
        exitCode: code,
        signal,
        timedOut,
        aborted,
        truncated,
        durationMs: performance.now() - started,
        spawnFailed,
      });
    });
  });

  return {
    done,
    abort() {
      aborted = true;
      stop();
    },
  };
}
