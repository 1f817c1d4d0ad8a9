/**
 * SEC (agent shell execution), the host's command executor: receives `command.request` frames
 * from a sidecar, re-validates them (command-request-check.ts), runs each under its own
 * per-command srt profile (command-profile.ts) with an environment of only PATH, HOME, LANG,
 * TERM, TMPDIR (a private 0700 temp dir, removed afterwards), the user's git identity
 * (git-identity.ts) and, in the sandbox, PWD (bubblewrap sets it to the working directory), and
 * streams `command.output`
 * then `command.end` back. `command.abort` (or a timeout) ends the whole process tree;
 * `command.aborted` is sent only after that cleanup. At most COMMAND_MAX_CONCURRENT commands run
 * at once; up to COMMAND_MAX_QUEUED more wait, and beyond that a request is refused.
 *
 * The watchdog's policy is evaluated here on the request as it will run (command, argv, the
 * checked working directory and workspace root), whatever the sidecar asked before: a `deny` or
 * `hard-deny` is refused (COMMAND_POLICY_DENIED); for an `ask` the command is held while the host
 * asks the person itself (host-asks.ts) and refused (COMMAND_POLICY_UNAPPROVED) unless they say
 * yes — the sidecar's claim that someone approved it counts for nothing. A held command keeps its
 * slot among COMMAND_MAX_CONCURRENT.
 *
 * After a sandboxed command, while nothing runs, the next command's sandbox is started ahead
 * (prestarted-sandbox.ts says when a command is handed to it, and why that is safe).
 *
 * What it does not catch: see command-profile.ts, command-process.ts and prestarted-sandbox.ts.
 */
import {
  lstatSync,
  closeSync,
  constants,
  openSync,
  readFileSync,
  realpathSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  COMMAND_MAX_CONCURRENT,
  COMMAND_MAX_NOTICES,
  COMMAND_MAX_QUEUED,
  COMMAND_NOTICE_MAX_CHARS,
  GIT_REPOSITORY_SCAN_MAX_ENTRIES,
  NESTED_PROTECTED_MAX_DENIES,
  type Capabilities,
  type CommandErrorCode,
  type Logger,
} from '@bastion/protocol';
import {
  insideGitDirectory,
  type AbsentPathGuard,
  type PlaceholderWarden,
  type QuarantineMove,
} from '../sandbox/placeholder-warden.js';
import { makePrivateTemp } from '../sandbox/private-temp-dir.js';
import type { SrtSession, WrappedCommand } from '../sandbox/srt-session.js';
import type { SidecarHandle } from '../supervisor/sidecar-supervisor.js';
import { homeReadPaths } from '../sandbox/home-read-allowlist.js';
import {
  buildCommandSandboxProfile,
  isHarmlessWhenNew,
  workspaceGuardsWhenAbsent,
  workspaceWriteProtections,
} from './command-profile.js';
import { gitWriteProtections, scanGitRepositories, type GitRepositoryScan } from './git-write-protections.js';
import { nestedProtections, type NestedProtections } from './nested-protections.js';
import { watchCreatedRepositories, type CreatedRepositoryWatch } from './git-created-repositories.js';
import type { ProtectedLinkIndex } from '../workspaces/protected-link-targets.js';
import { DirectoryListingCache } from './directory-listing-cache.js';
import { readGitIdentity, type GitIdentityEnv } from './git-identity.js';
import { startCommandProcess, type CommandOutcome, type CommandSpawn, type RunningCommand } from './command-process.js';
import { checkCommandRequest, type CommandRequestFrame } from './command-request-check.js';
import { startPrestartedSandbox, WAITER_ARGV, waiterCanSearch, type PrestartedSandbox } from './prestarted-sandbox.js';
import type { HostAsks } from '../policy/host-asks.js';
import type { PolicyStore } from '../policy/policy-store.js';

export interface CommandExecutorOptions {
  userData: string;
  /** The HOME the host runs with; commands get it as HOME and the profile denies its secrets. */
  home: string;
  log: Logger;
  /** The srt session; required for the 'srt' posture, unused when the user consented to an unsandboxed shell. */
  srt: SrtSession | undefined;
  /** PATH and LANG the commands see (default: the host's). */
  env?: { PATH?: string; LANG?: string };
  /** The watchdog's rules; every request is checked against them before it runs. */
  policy: PolicyStore;
  /** Where a command the policy says `ask` for is put to the person, by the host; absent, nobody can be asked. */
  asks?: HostAsks;
  /** Guards the workspace paths srt would otherwise leave placeholders at (placeholder-warden.ts). */
  warden: PlaceholderWarden;
  /** Told when each command starts and ends: a command may make links the file tools must see (protected-link-targets.ts). */
  links?: ProtectedLinkIndex;
  /** Where each command's private temp dir is made: the host's temp root (default: the process's temp dir). */
  tempRoot?: string;
}

/** What `command.end` says when the warden moved something the command created. */
function quarantineNotices(moves: readonly QuarantineMove[]): string[] {
  return moves.map((move) =>
    `bastion: moved ${move.from}, created inside the sandbox where protected, to ${move.to}`.slice(
      0,
      COMMAND_NOTICE_MAX_CHARS,
    ),
  );
}

/**
 * What srt's seccomp launcher prints, alone, when the program it is to run is on no path the
 * sandbox shows (then exits 1): said in words, since to the agent and the person it reads as the
 * launcher's own failure.
 */
const PROGRAM_NOT_FOUND_IN_SANDBOX = 'apply-seccomp: execvp: No such file or directory\n';

/** Why a sandboxed program could not be found, in words (an MCP server's status says it too). */
export function programNotFound(program: string): string {
  return `${program} was not found in the sandbox: it is not installed, or it is in a folder of your home the sandbox hides (bastion doctor lists the ones it shows; BASTION_HOME_READ_ALLOW adds one)`;
}

/** What `command.end` says when the sandboxed program could not be found. */
function programNotFoundNotice(program: string): string {
  return `bastion: ${programNotFound(program)}`.slice(0, COMMAND_NOTICE_MAX_CHARS);
}

/**
 * What programs print when a host name does not resolve or no route leaves the machine (node and
 * npm, pip, cargo, git, curl, wget): sandboxed commands have no network, so one that fails after
 * printing this needed it.
 */
const NO_NETWORK_MARKERS = [
  'EAI_AGAIN',
  'ENOTFOUND',
  'ENETUNREACH',
  'Temporary failure in name resolution',
  'Could not resolve host',
  "Couldn't resolve host",
  'Name or service not known',
  'Network is unreachable',
  'unable to resolve host address',
  'failed to lookup address',
];
const NO_NETWORK_OUTPUT = new RegExp(NO_NETWORK_MARKERS.join('|'));
/** Characters of one piece of output kept to find a marker split across two pieces. */
const NO_NETWORK_OVERLAP = Math.max(...NO_NETWORK_MARKERS.map((marker) => marker.length)) - 1;

/** What `command.end` says when a sandboxed command failed for want of the network. */
function noNetworkNotice(program: string): string {
  return `bastion: ${program} seems to have needed the network, which sandboxed commands do not have (only Bastion itself reaches the model provider): run it yourself outside Bastion (e.g. to install dependencies), then ask the agent to go on`.slice(
    0,
    COMMAND_NOTICE_MAX_CHARS,
  );
}

type Sidecar = Pick<SidecarHandle, 'channel' | 'config'>;

interface Job {
  sidecar: Sidecar;
  frame: CommandRequestFrame;
  running: RunningCommand | undefined;
  abortRequested: boolean;
  /** Ends the host's question while the command is held for the person's answer. */
  asking?: AbortController | undefined;
}

/** What a pinned `commondir` holds: git reads it as "the common directory is this one". */
const COMMON_DIR_PIN = '.\n';
/**
 * Git directories whose `commondir` is pinned, with how many running commands hold each. One map
 * for the process: two hosts' commands in one workspace must not unpin under each other.
 */
const commonDirPins = new Map<string, number>();

function isOurPin(path: string): boolean {
  try {
    return readFileSync(path, 'utf8') === COMMON_DIR_PIN;
  } catch {
    return false;
  }
}

/** Asked of every HOME secret each command, most of them absent: an absent path costs no exception. */
function realPath(path: string): string | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) === undefined ? undefined : realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The command's private temp dir, usually left empty: removed as such, else with what it holds. */
function removePrivateTemp(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    rmSync(path, { recursive: true, force: true });
  }
}

/** A sandbox started ahead for `sidecar`'s next command, and what the host holds for it until it is gone. */
interface Prestart {
  sidecar: Sidecar;
  sandbox: PrestartedSandbox;
  /** A command took it (and so its private temp dir, which that command removes). */
  claimed: boolean;
}

export class CommandExecutor {
  readonly #options: CommandExecutorOptions;
  readonly #queue: Job[] = [];
  /** Keyed by sidecar channel, then command id: ids are the sidecar's and only unique per sidecar. */
  readonly #jobs = new Map<Sidecar['channel'], Map<string, Job>>();
  #running = 0;
  /** Read once, the first time a command runs. */
  #gitIdentity: Promise<GitIdentityEnv> | undefined;
  #gitIdentityRead: GitIdentityEnv | undefined;
  /** What the git repository scans before and after each command read, for the next scan. */
  readonly #gitListings = new DirectoryListingCache();
  /** The sandbox waiting for the next command (prestarted-sandbox.ts), at most one. */
  #prestart: Prestart | undefined;
  /** The last sandboxed command that ended, the model for the next pre-start. */
  #lastSandboxed: { sidecar: Sidecar; frame: CommandRequestFrame } | undefined;
  /** Pre-started sandboxes not yet gone. */
  readonly #prestartsAlive = new Set<Promise<void>>();
  #closed = false;

  constructor(options: CommandExecutorOptions) {
    this.#options = options;
  }

  /** The channel module: `supervisor.addChannelModule((sidecar) => executor.attach(sidecar))`. */
  attach(sidecar: Sidecar): () => void {
    const jobs = new Map<string, Job>();
    this.#jobs.set(sidecar.channel, jobs);
    sidecar.channel.on('command.request', (frame) => this.#onRequest(sidecar, jobs, frame));
    sidecar.channel.on('command.abort', (frame) => this.#onAbort(sidecar, jobs, frame.id));
    return () => {
      // The sidecar is gone: nobody is left to tell; end everything it started.
      this.#jobs.delete(sidecar.channel);
      if (this.#lastSandboxed?.sidecar === sidecar) this.#lastSandboxed = undefined;
      if (this.#prestart?.sidecar === sidecar) this.#discardPrestart();
      for (const job of jobs.values()) {
        job.abortRequested = true;
        job.asking?.abort();
        job.running?.abort();
      }
      for (let i = this.#queue.length - 1; i >= 0; i -= 1)
        if (this.#queue[i]?.sidecar === sidecar) this.#queue.splice(i, 1);
    };
  }

  /**
   * The host stops: kill the sandbox waiting for a command, start no other, and settle once every
   * pre-started sandbox is gone and its private temp dir removed. Commands are the channels'
   * (attach): the supervisor's stop ends them.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#discardPrestart();
    await Promise.all(this.#prestartsAlive);
  }

  /** The pre-started sandbox's bwrap pid, while one waits (tests). */
  get prestartedPid(): number | undefined {
    return this.#prestart?.sandbox.pid;
  }

  /** Commands running now, for tests and benchmarks. */
  get running(): number {
    return this.#running;
  }

  #send(sidecar: Sidecar, frame: Parameters<Sidecar['channel']['send']>[0]): void {
    if (!sidecar.channel.closed) sidecar.channel.send(frame);
  }

  #refuse(sidecar: Sidecar, id: string, code: CommandErrorCode): void {
    this.#options.log.warn('command.refused', { command_id: id, code });
    this.#send(sidecar, { v: 1, type: 'command.error', id, code });
  }

  #onRequest(sidecar: Sidecar, jobs: Map<string, Job>, frame: CommandRequestFrame): void {
    const capabilities: Capabilities = sidecar.config.capabilities;
    if (!capabilities.shell) return this.#refuse(sidecar, frame.id, 'COMMAND_SHELL_UNAVAILABLE');
    if (jobs.has(frame.id)) return this.#refuse(sidecar, frame.id, 'COMMAND_DUPLICATE_ID');
    if (this.#running >= COMMAND_MAX_CONCURRENT && this.#queue.length >= COMMAND_MAX_QUEUED) {
      return this.#refuse(sidecar, frame.id, 'COMMAND_QUEUE_FULL');
    }
    const job: Job = { sidecar, frame, running: undefined, abortRequested: false };
    jobs.set(frame.id, job);
    this.#queue.push(job);
    this.#drain();
  }

  #onAbort(sidecar: Sidecar, jobs: Map<string, Job>, id: string): void {
    const job = jobs.get(id);
    if (!job || job.abortRequested) return;
    job.abortRequested = true;
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      jobs.delete(id);
      this.#send(sidecar, { v: 1, type: 'command.aborted', id });
      return;
    }
    job.asking?.abort();
    job.running?.abort();
  }

  #drain(): void {
    while (this.#running < COMMAND_MAX_CONCURRENT) {
      const job = this.#queue.shift();
      if (!job) return;
      this.#running += 1;
      this.#options.links?.commandStarted();
      void this.#run(job).finally(() => {
        this.#running -= 1;
        this.#options.links?.commandEnded();
        this.#jobs.get(job.sidecar.channel)?.delete(job.frame.id);
        this.#drain();
        // After the command's end went out: the next sandbox is started off its path.
        if (this.#running === 0) setImmediate(() => this.#startPrestart());
      });
    }
  }

  /**
   * Give each git directory without a `commondir` one holding `.` for as long as a command runs,
   * so the profile can deny it (git-write-protections.ts says why). Returns the directories this
   * command now holds a pin in. A `commondir` that exists is left alone, unless it is a pin a
   * killed host left behind, which is adopted and so removed afterwards.
   */
  #pinCommonDirs(gitDirs: readonly string[]): string[] {
    const held: string[] = [];
    try {
      for (const gitDir of gitDirs) {
        const pin = join(gitDir, 'commondir');
        const holders = commonDirPins.get(gitDir);
        if (holders === undefined) {
          try {
            const fd = openSync(
              pin,
              constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
              0o644,
            );
            try {
              writeSync(fd, COMMON_DIR_PIN);
            } finally {
              closeSync(fd);
            }
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
            if (!isOurPin(pin)) continue;
          }
        }
        commonDirPins.set(gitDir, (holders ?? 0) + 1);
        held.push(gitDir);
      }
    } catch (error) {
      this.#unpinCommonDirs(held);
      throw error;
    }
    return held;
  }

  /** Drop this command's pins; the last holder removes the file, if it still holds only the pin. */
  #unpinCommonDirs(gitDirs: readonly string[]): void {
    for (const gitDir of gitDirs) {
      const holders = (commonDirPins.get(gitDir) ?? 1) - 1;
      if (holders > 0) {
        commonDirPins.set(gitDir, holders);
        continue;
      }
      commonDirPins.delete(gitDir);
      const pin = join(gitDir, 'commondir');
      try {
        if (isOurPin(pin)) unlinkSync(pin);
      } catch {
        // Gone already.
      }
    }
  }

  /** A command's own write root: 0700, in the host's temp root, removed after it. */
  #makeCommandTemp(): string {
    return makePrivateTemp('bastion-cmd-', this.#options.tempRoot);
  }

  async #run(job: Job): Promise<void> {
    const { sidecar, frame } = job;
    const check = checkCommandRequest(frame, {
      userData: this.#options.userData,
      grantedRoots: sidecar.config.workspaces,
    });
    if (!check.ok) return this.#refuse(sidecar, frame.id, check.code);
    const audited = { stage: 'command', session_id: frame.session_id, run_id: frame.run_id } as const;
    const verdict = this.#options.policy.evaluate(
      {
        tool: 'run_command',
        workspace_root: check.workspaceRoot,
        command: { name: frame.command, args: frame.args, cwd: check.cwd },
      },
      audited,
    );
    if (verdict.verdict !== 'none') {
      this.#options.log.info('command.policy', {
        command_id: frame.id,
        verdict: verdict.verdict,
        rule_id: verdict.rule_id ?? null,
      });
    }
    if (verdict.verdict === 'deny' || verdict.verdict === 'hard-deny') {
      return this.#refuse(sidecar, frame.id, 'COMMAND_POLICY_DENIED');
    }
    if (verdict.verdict === 'ask') {
      // Host-owned: the person is asked by the host; the frame's `approved` (the sidecar's word) is not consulted.
      const asking = new AbortController();
      job.asking = asking;
      const asks = this.#options.asks;
      const outcome = await (asks === undefined
        ? Promise.resolve('unanswered' as const)
        : asks.ask(
            {
              tool: 'run_command',
              command: { name: frame.command, args: frame.args, cwd: check.cwd },
              workspace_root: check.workspaceRoot,
              ...(verdict.rule_id === undefined ? {} : { rule_id: verdict.rule_id }),
              ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
              ...(frame.session_id === undefined ? {} : { session_id: frame.session_id }),
            },
            asking.signal,
            audited,
          ));
      job.asking = undefined;
      this.#options.log.info('command.asked', { command_id: frame.id, outcome });
      if (job.abortRequested) return this.#send(sidecar, { v: 1, type: 'command.aborted', id: frame.id });
      if (outcome !== 'approved') return this.#refuse(sidecar, frame.id, 'COMMAND_POLICY_UNAPPROVED');
    }

    const sandboxed = sidecar.config.capabilities.sandbox === 'srt';
    const gitIdentity = await this.#readGitIdentity();
    // The first command to start while a sandbox waits takes it (and its private temp dir), used or not.
    const prestarted = this.#claimPrestarted(sidecar, sandboxed);
    // Waited for before the profile and the wrap, so that their checks are as close to the hand-over as to a spawn.
    const ready = prestarted !== undefined && (await prestarted.whenReady());
    const privateTemp = prestarted?.privateTemp ?? this.#makeCommandTemp();
    const env = this.#commandEnv(privateTemp, gitIdentity);
    let target: CommandSpawn;
    let wrapped: WrappedCommand | undefined;
    let pinned: string[] = [];
    let createdRepositories: CreatedRepositoryWatch | undefined;
    let nested: NestedProtections | undefined;
    /** Said in the result whatever the command does. */
    const wrapNotices: string[] = [];
    const guard = this.#options.warden.guard(frame.id);
    const cleanUp = () => {
      guard.close();
      this.#unpinCommonDirs(pinned);
      removePrivateTemp(privateTemp);
    };
    try {
      if (sandboxed) {
        const srt = this.#options.srt;
        if (!srt) throw new Error('no srt session');
        const sandbox = this.#sandboxProfile(check, privateTemp, guard);
        ({ pinned, nested } = sandbox);
        if (!sandbox.git.scan.complete) {
          this.#options.log.warn('command.git-scan-incomplete', { command_id: frame.id });
          wrapNotices.push(
            `bastion: this workspace holds more than ${GIT_REPOSITORY_SCAN_MAX_ENTRIES} entries, too many to find every git repository in it to protect, so this command ran with the workspace read-only.`,
          );
        }
        if (sandbox.nestedOverBound) {
          this.#options.log.warn('command.nested-protected-over-bound', { command_id: frame.id });
          wrapNotices.push(
            `bastion: this workspace holds more than ${NESTED_PROTECTED_MAX_DENIES} AGENTS.md, CLAUDE.md, .envrc, .vscode, .idea, .mcp.json or .claude entries below its root, too many to protect one by one, so this command ran with the workspace read-only.`,
          );
        }
        createdRepositories = watchCreatedRepositories(sandbox.git.scan, {
          root: check.workspaceRoot,
          home: this.#options.home,
          writeRoots: [check.workspaceRoot, ...(check.scratchDir === undefined ? [] : [check.scratchDir])].map(
            (root) => realPath(root) ?? root,
          ),
          userData: realpathSync(this.#options.userData),
          commandId: frame.id,
          realPath,
        });
        // The command sees only `env`: none of srt's variables (its proxy settings included).
        wrapped = await srt.wrapCommand([frame.command, ...frame.args], sandbox.profile, {
          home: this.#options.home,
          privateTemp,
          env,
          skipPlaceholder: sandbox.skipPlaceholder,
        });
        const [command, ...args] = wrapped.argv;
        if (command === undefined) throw new Error('empty wrap');
        guard.arm();
        target = { command, args, env, cwd: check.cwd, dieWithHost: !wrapped.diesWithParent };
      } else {
        target = { command: frame.command, args: frame.args, env, cwd: check.cwd };
      }
    } catch (error) {
      prestarted?.discard();
      wrapped?.ended();
      cleanUp();
      // A code (HostError) or an error class name: never srt's message, which can name paths.
      const code = (error as { code?: unknown }).code;
      const reason = typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
      this.#options.log.warn('command.sandbox-failed', { command_id: frame.id, reason });
      return this.#refuse(sidecar, frame.id, 'COMMAND_SANDBOX_FAILED');
    }

    // The start of what the command wrote to stderr, enough to know the launcher's own message.
    let stderrHead = '';
    // Whether a sandboxed command printed what a failed name lookup or connection prints, and the
    // end of each stream so far, for a marker split across two pieces.
    let offline = false;
    const tails = { stdout: '', stderr: '' };
    const supervision = {
      timeoutMs: frame.timeout_ms,
      onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => {
        if (stream === 'stderr' && stderrHead.length <= PROGRAM_NOT_FOUND_IN_SANDBOX.length) {
          stderrHead += chunk.toString('latin1', 0, PROGRAM_NOT_FOUND_IN_SANDBOX.length + 1);
        }
        if (wrapped !== undefined && !offline) {
          const text = tails[stream] + chunk.toString('latin1');
          offline = NO_NETWORK_OUTPUT.test(text);
          tails[stream] = text.slice(-NO_NETWORK_OVERLAP);
        }
        this.#send(sidecar, { v: 1, type: 'command.output', id: frame.id, stream, data: chunk });
      },
    };
    const argv = [frame.command, ...frame.args];
    // Handed over only if the command's own wrap, built just now, starts exactly that sandbox.
    const handed =
      ready && wrapped !== undefined && !job.abortRequested && prestarted?.fits(wrapped, argv, check.cwd)
        ? await prestarted.take(argv, supervision)
        : undefined;
    if (handed === undefined) prestarted?.discard();
    if (job.abortRequested && handed === undefined) {
      wrapped?.ended();
      cleanUp();
      this.#send(sidecar, { v: 1, type: 'command.aborted', id: frame.id });
      return;
    }
    this.#options.log.info('command.started', {
      command_id: frame.id,
      sandbox: sidecar.config.capabilities.sandbox,
      wrap: wrapped === undefined ? null : wrapped.cached ? 'cached' : 'full',
      prestarted: handed !== undefined,
    });
    const running = handed ?? startCommandProcess(target, supervision);
    job.running = running;
    if (wrapped !== undefined) this.#lastSandboxed = { sidecar, frame };
    if (job.abortRequested) running.abort();
    let outcome: CommandOutcome;
    let moves: QuarantineMove[] = [];
    let after: GitRepositoryScan | undefined;
    try {
      outcome = await running.done;
    } finally {
      wrapped?.ended();
      // The command's PID namespace is gone: nothing inside can recreate what is moved now. The
      // workspace is scanned once more, for the repositories and nested steering files it made.
      if (createdRepositories !== undefined) after = this.#scanAfter(check.workspaceRoot);
      moves = guard.sweep(after === undefined ? [] : (nested?.createdSince(after) ?? []));
      cleanUp();
    }
    // The sandbox and every process in it are gone: nothing of the command's can write any more.
    const notFound = wrapped !== undefined && outcome.exitCode === 1 && stderrHead === PROGRAM_NOT_FOUND_IN_SANDBOX;
    const notices = [
      ...wrapNotices,
      ...this.#checkCreatedRepositories(frame.id, createdRepositories, after),
      ...quarantineNotices(moves),
      ...(notFound ? [programNotFoundNotice(frame.command)] : []),
      ...(offline && outcome.exitCode !== 0 ? [noNetworkNotice(frame.command)] : []),
    ].slice(0, COMMAND_MAX_NOTICES);
    this.#options.log.info('command.ended', {
      command_id: frame.id,
      exit_code: outcome.exitCode,
      signal: outcome.signal,
      duration_ms: Math.round(outcome.durationMs),
      reason: outcome.aborted ? 'aborted' : outcome.timedOut ? 'timeout' : outcome.truncated ? 'truncated' : null,
    });
    if (outcome.aborted) return this.#send(sidecar, { v: 1, type: 'command.aborted', id: frame.id });
    if (outcome.spawnFailed) return this.#refuse(sidecar, frame.id, 'COMMAND_SPAWN_FAILED');
    this.#send(sidecar, {
      v: 1,
      type: 'command.end',
      id: frame.id,
      exit_code: outcome.exitCode,
      signal: outcome.signal,
      timed_out: outcome.timedOut,
      truncated: outcome.truncated,
      duration_ms: outcome.durationMs,
      ...(notices.length > 0 ? { notices } : {}),
    });
  }

  async #readGitIdentity(): Promise<GitIdentityEnv> {
    this.#gitIdentity ??= readGitIdentity(this.#options.home, this.#path());
    this.#gitIdentityRead = await this.#gitIdentity;
    return this.#gitIdentityRead;
  }

  #path(): string {
    return this.#options.env?.PATH ?? process.env.PATH ?? '/usr/bin:/bin';
  }

  /** Exactly what a command's environment holds (bubblewrap adds PWD). */
  #commandEnv(privateTemp: string, gitIdentity: GitIdentityEnv): Record<string, string> {
    return {
      PATH: this.#path(),
      HOME: this.#options.home,
      LANG: this.#options.env?.LANG ?? process.env.LANG ?? 'C.UTF-8',
      TERM: 'dumb',
      TMPDIR: privateTemp,
      ...gitIdentity,
    };
  }

  /**
   * The command's srt profile for the workspace as it is now: the git directories' `commondir`
   * pins (held from here: the caller unpins `pinned`), the nested protections, the guard's absent
   * paths, and srt's placeholder answers.
   */
  #sandboxProfile(
    check: { workspaceRoot: string; scratchDir: string | undefined },
    privateTemp: string,
    guard: AbsentPathGuard,
  ) {
    const git = gitWriteProtections(check.workspaceRoot, { home: this.#options.home, listings: this.#gitListings });
    const pinned = this.#pinCommonDirs(git.gitDirs);
    try {
      const nested = nestedProtections(git.scan);
      const nestedOverBound = nested.denyWrite.length > NESTED_PROTECTED_MAX_DENIES;
      const nestedDenies = nestedOverBound ? [check.workspaceRoot] : nested.denyWrite;
      const exists = (path: string) => lstatSync(path, { throwIfNoEntry: false }) !== undefined;
      for (const path of workspaceGuardsWhenAbsent(check.workspaceRoot, exists)) guard.add(path);
      const profile = buildCommandSandboxProfile({
        home: this.#options.home,
        userData: realpathSync(this.#options.userData),
        workspaceRoot: check.workspaceRoot,
        scratchDir: check.scratchDir,
        privateTemp,
        protectedInWorkspace: [
          ...workspaceWriteProtections(check.workspaceRoot, exists),
          ...git.denyWrite,
          ...nestedDenies,
        ],
        realPath,
        homeReads: homeReadPaths({ home: this.#options.home }),
      });
      const skipPlaceholder = (path: string) =>
        (isHarmlessWhenNew(path) && !insideGitDirectory(path)) || guard.skip(path);
      return { profile, git, nested, nestedOverBound, pinned, skipPlaceholder };
    } catch (error) {
      this.#unpinCommonDirs(pinned);
      throw error;
    }
  }

  /** The waiting sandbox, for the command starting now: it is this command's from here, whatever it fits. */
  #claimPrestarted(sidecar: Sidecar, sandboxed: boolean): PrestartedSandbox | undefined {
    const prestart = this.#prestart;
    if (prestart === undefined) return undefined;
    this.#prestart = undefined;
    if (!sandboxed || prestart.sidecar !== sidecar) {
      prestart.sandbox.discard();
      return undefined;
    }
    prestart.claimed = true;
    return prestart.sandbox;
  }

  #discardPrestart(): void {
    this.#prestart?.sandbox.discard();
    this.#prestart = undefined;
  }

  /**
   * Start the next command's sandbox, as the last sandboxed command's would be now, if nothing runs,
   * its sidecar is still attached and the wrap cache serves its profile (a miss builds nothing).
   * Synchronous from the check that nothing runs to the spawn: no command can start in between.
   */
  #startPrestart(): void {
    const last = this.#lastSandboxed;
    const srt = this.#options.srt;
    const gitIdentity = this.#gitIdentityRead;
    if (this.#closed || this.#running > 0 || this.#prestart !== undefined || last === undefined) return;
    if (srt === undefined || gitIdentity === undefined || !this.#jobs.has(last.sidecar.channel)) return;
    if (!waiterCanSearch(this.#path())) return;
    const check = checkCommandRequest(last.frame, {
      userData: this.#options.userData,
      grantedRoots: last.sidecar.config.workspaces,
    });
    if (!check.ok) return;
    const privateTemp = this.#makeCommandTemp();
    const guard = this.#options.warden.guard('prestart');
    let pinned: string[] = [];
    let wrapped: WrappedCommand | undefined;
    let sandbox: PrestartedSandbox | undefined;
    try {
      const built = this.#sandboxProfile(check, privateTemp, guard);
      pinned = built.pinned;
      const env = this.#commandEnv(privateTemp, gitIdentity);
      wrapped = srt.keptWrap(WAITER_ARGV, built.profile, {
        home: this.#options.home,
        privateTemp,
        env,
        skipPlaceholder: built.skipPlaceholder,
      });
      if (wrapped?.mounts !== undefined && wrapped.diesWithParent) {
        sandbox = startPrestartedSandbox(wrapped, { cwd: check.cwd, env, privateTemp, mounts: wrapped.mounts() });
      }
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      this.#options.log.warn('command.prestart-failed', {
        reason: typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown',
      });
    } finally {
      // Its guard answered srt's questions; the command that takes it brings its own.
      guard.close();
    }
    if (sandbox === undefined) {
      wrapped?.ended();
      this.#unpinCommonDirs(pinned);
      removePrivateTemp(privateTemp);
      return;
    }
    const prestart: Prestart = { sidecar: last.sidecar, sandbox, claimed: false };
    this.#prestart = prestart;
    const gone = sandbox.gone.then(() => {
      this.#prestartsAlive.delete(gone);
      if (this.#prestart === prestart) this.#prestart = undefined;
      wrapped?.ended();
      this.#unpinCommonDirs(pinned);
      if (!prestart.claimed) removePrivateTemp(privateTemp);
    });
    this.#prestartsAlive.add(gone);
  }

  /** The workspace scanned after a command; undefined when that failed (the repository check then scans and reports). */
  #scanAfter(root: string): GitRepositoryScan | undefined {
    try {
      return scanGitRepositories(root, { home: this.#options.home, listings: this.#gitListings });
    } catch {
      return undefined;
    }
  }

  /** git-created-repositories.ts after a sandboxed command; a failure is reported, never hidden. */
  #checkCreatedRepositories(
    commandId: string,
    watch: CreatedRepositoryWatch | undefined,
    after: GitRepositoryScan | undefined,
  ): string[] {
    if (watch === undefined) return [];
    try {
      const notices = watch.afterCommand(after);
      if (notices.length > 0)
        this.#options.log.warn('command.git-neutralised', { command_id: commandId, count: notices.length });
      return notices;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.name : 'unknown');
      this.#options.log.error('command.git-check-failed', { command_id: commandId, reason: code });
      return [
        `Bastion could not finish checking the git repositories this command may have created (${code}): before running git in a new repository here, look at its .git/config and .git/hooks.`,
      ];
    }
  }
}
