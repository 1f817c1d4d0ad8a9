/**
 * SEC-004 (outer sandbox), issue 21: a run_command sandbox started before its command. Most of a
 * command's start is the sandbox's own (bwrap's namespaces and mounts, then srt's seccomp helper's
 * nested user, PID and mount namespaces: bench/README.md), and none of it depends on the command.
 * So after a command, the executor starts the next sandbox ahead of time (command-executor.ts):
 * the kept wrap's exact argv (wrap-cache.ts) with, in the command's place, WAITER_SCRIPT under
 * `/bin/sh`, which says it is ready on fd 3 (a socket to the host, nothing else's), reads one
 * request there and `exec`s it with fd 3 closed. The next command runs the same validation,
 * policy, profile and wrap cache check as any, and is handed to the waiter only if its own wrap,
 * built now, `fits`: the argv before the command (every mount, namespace, the environment with its
 * private temp dir, the seccomp helper) equal word for word, the same working directory, and the
 * same inodes under every path the wrap depends on (wrap-disk-state.ts `readMountIdentity`); else
 * the sandbox is killed and the command spawned as ever. Output, timeout, abort and the kill of the
 * tree are command-process.ts's, from the hand-over on.
 *
 * Why that is the sandbox a fresh spawn would make: its mounts were made from the disk as the wrap
 * cache checked it just before it was spawned, and the executor starts one only while no command
 * runs, and gives it to the first command that starts, so no command can change the disk under it
 * before it is taken. A mount holds the inode it was made on, not the name: a name renamed over,
 * or unlinked and made again, after the spawn (git rewrites `.git/config` by rename) would leave
 * the new file outside the old mount, uncovered, where a fresh wrap would cover it; that is the
 * inode comparison. A new protected path is a new profile or a changed disk state, so a new argv.
 * While it waits it holds what a running command holds: the kept wrap (so srt's empty mount points,
 * which its binds are made on, stay: srt deletes them only once no wrap holds them, and deleting
 * one would detach its mount) and the `commondir` pins (git-write-protections.ts; made anew they
 * would be another inode), both given back when it is gone.
 * Each sandbox has a private temp dir of its own, given to the command that takes it (which
 * removes it, as its own) and to no other. Its waiter exits when the host's end of fd 3 closes,
 * so even a host killed with SIGKILL during its set-up (before bwrap's --die-with-parent is armed
 * in the namespace) leaves nothing waiting.
 *
 * What the command sees differently: the shell rebuilds the environment, so the same variables
 * and values come in another order; a program that cannot be run is not handed over (the waiter
 * finds it as execvp would, says `n`, and the command is spawned afresh), so its error is srt's
 * helper's as ever.
 *
 * What it does not catch: a name's inode changed and changed back, with the same change time,
 * between the spawn and the hand-over by a writer other than a command (the user), since no
 * command runs meanwhile; what wrap-cache.ts and wrap-disk-state.ts do not catch.
 */
import type { ChildProcess } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import type { Duplex } from 'node:stream';
import {
  COMMAND_KILL_GRACE_MS,
  PRESTARTED_SANDBOX_MAX_REQUEST_BYTES,
  PRESTARTED_SANDBOX_READY_WAIT_MS,
} from '@bastion/protocol';
import type { WrappedCommand } from '../sandbox/srt-session.js';
import { spawnCommandChild, superviseCommandChild, type RunningCommand } from './command-process.js';

/**
 * Runs as `/bin/sh -c` inside the sandbox, where srt's wrap would run the command. The request is
 * one line, `set --` words shell-quoted with newlines as `"$nl"`; the name is looked up as execvp
 * does (a path, else the first executable regular file on PATH, which the executor keeps free of
 * empty and `%` entries) and declined (`n`) when nothing would run, else `x` and exec.
 */
export const WAITER_SCRIPT = [
  "nl='",
  "'",
  'printf r >&3',
  'IFS= read -r request <&3 || exit 1',
  'eval "set -- $request"',
  'case $1 in',
  '*/*) [ -f "$1" ] && [ -x "$1" ] ;;',
  '*) found=false; rest=$PATH:',
  '  while [ -n "$rest" ]; do dir=${rest%%:*}; rest=${rest#*:}; if [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then found=true; break; fi; done',
  '  $found ;;',
  'esac || { printf n >&3; exit 1; }',
  'printf x >&3',
  'exec "$@" 3<&-',
].join('\n');

export const WAITER_ARGV: readonly string[] = ['/bin/sh', '-c', WAITER_SCRIPT];

/** A PATH the waiter looks names up in as execvp does: no empty entry (the working directory) and no `%` (dash's own meaning). */
export function waiterCanSearch(path: string): boolean {
  return !path.includes('%') && path.split(':').every((entry) => entry !== '');
}

/** POSIX single-quoting, a newline spelled `"$nl"` so the request stays one line. */
function requestWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`).replace(/\n/g, `'"$nl"'`)}'`;
}

export function waiterRequest(argv: readonly string[]): string {
  return `${argv.map(requestWord).join(' ')}\n`;
}

export interface PrestartedSandbox {
  readonly privateTemp: string;
  /** Its bwrap, the leader of its process group (tests). */
  readonly pid: number | undefined;
  /**
   * Whether its waiter said it is ready, once it has (false: it is gone or did not within
   * PRESTARTED_SANDBOX_READY_WAIT_MS; it started before the command, so waiting for it is never
   * slower than a fresh spawn by much).
   */
  whenReady(): Promise<boolean>;
  /**
   * Does `wrapped` (the command's own wrap of `argv`, built now) start exactly this sandbox in
   * `cwd`, from the same inodes, and is the sandbox ready and untouched?
   */
  fits(wrapped: WrappedCommand, argv: readonly string[], cwd: string): boolean;
  /**
   * Hand `argv` to the waiter (only after `fits`): the command, supervised from now, or undefined
   * when it was not handed over or the waiter declined it (then discard the sandbox and spawn the
   * command): only after its `x` can the command have run, so it never runs twice.
   */
  take(
    argv: readonly string[],
    options: { timeoutMs: number; onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void },
  ): Promise<RunningCommand | undefined>;
  /** Kill it, its whole tree as a command's abort does (a taken one is the command's: abort that). */
  discard(): void;
  /** Settles once its process has exited, its pipes are closed and (once killed) its whole tree has died (taken or not). */
  readonly gone: Promise<void>;
}

/** Spawn `wrapped` (a kept wrap of WAITER_ARGV, its `mounts` read just before) in `cwd` with `env`. */
export function startPrestartedSandbox(
  wrapped: WrappedCommand,
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    privateTemp: string;
    mounts: string;
  },
): PrestartedSandbox {
  const [command, ...args] = wrapped.argv;
  if (command === undefined || !wrapped.diesWithParent) throw new Error('not a direct wrap');
  const prefix = wrapped.argv.slice(0, wrapped.argv.length - WAITER_ARGV.length);
  const child: ChildProcess = spawnCommandChild(
    { command, args, env: options.env, cwd: options.cwd },
    { requestChannel: true },
  );
  const channel = child.stdio[3] as Duplex | null;
  let ready = false;
  let spoiled = false;
  let taken = false;
  let supervised: RunningCommand | undefined;
  let answer: ((reply: string | undefined) => void) | undefined;
  let settleReady: (ready: boolean) => void = () => undefined;
  const readiness = new Promise<boolean>((resolve) => (settleReady = resolve));
  const spoil = () => {
    spoiled = true;
    settleReady(false);
  };
  /**
   * The waiter's answer to a request: `x` (it execs the command next) or `n`, else undefined once
   * fd 3 ends without either. Its stream delivers every byte before its end, so an end without `x`
   * means the command was never exec'd; the process's exit says nothing (it can be seen first).
   */
  const reply = (value: string | undefined) => {
    answer?.(value);
    answer = undefined;
  };
  const ended = () => {
    spoil();
    reply(undefined);
  };
  child.once('error', ended);
  child.once('exit', spoil);
  channel?.on('data', (data: Buffer) => {
    for (const byte of data.toString('latin1')) {
      if (byte === 'r' && !ready) {
        ready = true;
        settleReady(true);
      } else if ((byte === 'x' || byte === 'n') && answer !== undefined) reply(byte);
      else spoil();
    }
  });
  channel?.on('end', ended);
  channel?.on('error', ended);
  channel?.on('close', ended);
  // Once discarded (or taken), gone waits for its supervision too: the whole recorded tree dead.
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve())).then(async () => {
    await supervised?.done;
  });
  // Its output waits in the pipes (nothing reads them before a hand-over): the waiter writes none.
  const quiet = () => (child.stdout?.readableLength ?? 0) === 0 && (child.stderr?.readableLength ?? 0) === 0;

  return {
    privateTemp: options.privateTemp,
    pid: child.pid,
    whenReady() {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), PRESTARTED_SANDBOX_READY_WAIT_MS);
      });
      return Promise.race([readiness, late]).finally(() => clearTimeout(timer));
    },
    fits(own, argv, cwd) {
      return (
        ready &&
        !spoiled &&
        !taken &&
        quiet() &&
        cwd === options.cwd &&
        own.cached &&
        own.diesWithParent &&
        Buffer.byteLength(waiterRequest(argv)) <= PRESTARTED_SANDBOX_MAX_REQUEST_BYTES &&
        isDeepStrictEqual(own.argv.slice(0, own.argv.length - argv.length), prefix) &&
        own.argv.length - argv.length === prefix.length &&
        own.mounts?.() === options.mounts
      );
    },
    async take(argv, supervision) {
      if (taken || spoiled || channel === null) return undefined;
      taken = true;
      const replied = new Promise<string | undefined>((resolve) => (answer = resolve));
      channel.write(waiterRequest(argv));
      if ((await replied) !== 'x') {
        taken = false;
        return undefined;
      }
      channel.destroy();
      supervised = superviseCommandChild(child, supervision);
      return supervised;
    },
    discard() {
      ended();
      if (supervised === undefined && !taken) {
        taken = true;
        // The kill of a command's tree (command-process.ts), on a sandbox nobody took; an exited one
        // too, whose pipes must still be read to their end for it to be gone. Its tree is recorded
        // before fd 3 closes: the waiter then still blocks in `read`, and /proc's lists of children
        // can miss a process while its tree exits around the reading.
        supervised = superviseCommandChild(child, { timeoutMs: COMMAND_KILL_GRACE_MS, onOutput: () => undefined });
        supervised.abort();
      } else supervised?.abort();
      channel?.destroy();
    },
    gone,
  };
}
