/**
 * One run_command child, supervised: spawned with `shell: false` as the leader of its own process
 * group, its output streamed in chunks of at most COMMAND_OUTPUT_CHUNK_BYTES up to
 * COMMAND_MAX_OUTPUT_BYTES (then cut and flagged), and on timeout or abort the whole tree gets
 * SIGTERM, then SIGKILL after COMMAND_KILL_GRACE_MS. The returned promise settles only after the
 * process has exited AND every copy of its stdout/stderr is closed AND (once stopped) every process
 * of its recorded tree has died, i.e. after cleanup.
 *
 * The tree, not just the group. Under srt the group leader is bwrap (`--unshare-pid`; the wrap
 * cache runs it without srt's shells, wrap-cache.ts); the namespace's init is a second bwrap, cloned into a session of its own, which asks for
 * SIGKILL on its parent's death (`--die-with-parent`) only once its setup is done. An abort in
 * that window (measured: a `command.abort` 26 ms after spawn) killed the outer bwrap and left the
 * init, and the command under it, running for ever, re-parented to init and outside the group.
 * So stop() first freezes the group (SIGSTOP: nothing in it can fork or die meanwhile), records
 * every descendant with its start time, signals the group and those descendants, and the SIGKILL
 * round reaches each recorded process that still is the same process. Killing a namespace's init
 * kills everything in that namespace, background children included. The group leader dies with
 * the host, so a host killed with SIGKILL takes it, and through bwrap's --die-with-parent the
 * sandbox, down with it (without it the leader was re-parented to init and the command ran on):
 * bwrap spawned directly (the wrap cache's argv) asks for that itself with --die-with-parent, and
 * any other leader (srt's shell around bwrap) is spawned under `setpriv --pdeathsig KILL`.
 *
 * What it does not catch: in the unsandboxed posture (`--unsandboxed-shell`) a descendant that
 * calls setsid() and closes its stdio leaves the group and survives; there is no PID namespace, and
 * a SIGKILLed host leaves the command running. A host SIGKILLed inside a command's sandbox setup
 * can leave that namespace's init behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  COMMAND_KILL_GRACE_MS,
  COMMAND_MAX_OUTPUT_BYTES,
  COMMAND_OUTPUT_CHUNK_BYTES,
  COMMAND_TREE_EXIT_POLL_MS,
} from '@bastion/protocol';
import { descendantPids, isSameProcessRunning, processStartTime } from '../process-tree.js';

export interface CommandSpawn {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Spawn under `setpriv --pdeathsig KILL` (for a sandbox wrap whose leader does not ask for its
   * parent-death signal itself: a missing program inside it is no spawn error anyway).
   */
  dieWithHost?: boolean;
}

function onPath(program: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** util-linux setpriv (essential on Debian/Ubuntu); without it the command is spawned directly. */
const SETPRIV = process.platform === 'linux' ? onPath('setpriv') : undefined;

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
  return superviseCommandChild(spawnCommandChild(target), options);
}

/**
 * The child as startCommandProcess spawns it, not yet supervised. With `requestChannel`, fd 3 is a
 * socket to the host as well (a pre-started sandbox's waiter reads its command from it:
 * prestarted-sandbox.ts; an MCP server's shell, the user's variables: mcp-hub.ts); its output
 * waits in the pipes until superviseCommandChild reads it.
 * With `stdin`, its stdin is a pipe from the host (an MCP server's requests) instead of nothing.
 */
export function spawnCommandChild(
  target: CommandSpawn,
  options: { requestChannel?: boolean; stdin?: boolean } = {},
): ChildProcess {
  // The group leader dies with the host, even a SIGKILLed one: under srt it is bwrap, whose
  // namespace init dies with it (--die-with-parent) and takes the namespace down.
  const [command, args] =
    target.dieWithHost && SETPRIV !== undefined
      ? [SETPRIV, ['--pdeathsig', 'KILL', '--', target.command, ...target.args]]
      : [target.command, target.args];
  return spawn(command, args, {
    cwd: target.cwd,
    env: target.env,
    shell: false,
    detached: true,
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(options.requestChannel ? ['pipe' as const] : [])],
  });
}

/**
 * Supervise a child spawnCommandChild made, from now: its timeout, output bounds, abort and the
 * kill of its whole tree, all as for a command started by startCommandProcess.
 */
export function superviseCommandChild(
  child: ChildProcess,
  options: { timeoutMs: number; onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void },
): RunningCommand {
  const started = performance.now();
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

  const signal = (target: number, name: NodeJS.Signals) => {
    try {
      process.kill(target, name);
    } catch {
      // Already gone.
    }
  };
  /**
   * The child's process group. Once the child is reaped its pid is free again, but Linux hands a
   * pid out only while no process group of that id is left: a process found at that pid then means
   * the group is gone and the id is someone else's (a reused pid made a group leader), which must
   * never be signalled.
   */
  const signalGroup = (name: NodeJS.Signals) => {
    const pid = child.pid;
    if (pid === undefined) return;
    const reaped = child.exitCode !== null || child.signalCode !== null;
    if (reaped && processStartTime(pid) !== undefined) return;
    signal(-pid, name);
  };
  /** Descendants recorded when stopping began, each with its start time. */
  let recorded: { pid: number; started: string }[] = [];
  const signalTree = (name: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    signalGroup(name);
    for (const { pid, started } of recorded) if (processStartTime(pid) === started) signal(pid, name);
  };
  const stop = () => {
    if (killTimer !== undefined || child.pid === undefined) return;
    signalGroup('SIGSTOP');
    recorded = descendantPids(child.pid).flatMap((pid) => {
      const started = processStartTime(pid);
      return started === undefined ? [] : [{ pid, started }];
    });
    signalTree('SIGTERM');
    signalTree('SIGCONT');
    killTimer = setTimeout(() => signalTree('SIGKILL'), COMMAND_KILL_GRACE_MS);
  };
  /**
   * Settles once every recorded descendant has died (SIGKILL is delivered, not yet done, when kill()
   * returns; a process that held no pipe can outlive 'close' by that much), or after
   * COMMAND_KILL_GRACE_MS for one stuck in the kernel.
   */
  const recordedTreeDead = async () => {
    const deadline = performance.now() + COMMAND_KILL_GRACE_MS;
    while (recorded.some(({ pid, started }) => isSameProcessRunning(pid, started)) && performance.now() < deadline) {
      await new Promise((wake) => setTimeout(wake, COMMAND_TREE_EXIT_POLL_MS));
    }
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
      signalTree('SIGKILL');
      const outcome: CommandOutcome = {
        exitCode: code,
        signal,
        timedOut,
        aborted,
        truncated,
        durationMs: performance.now() - started,
        spawnFailed,
      };
      resolve(recordedTreeDead().then(() => outcome));
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
