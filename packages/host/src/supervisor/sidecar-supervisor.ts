/**
 * SEC-004: the host spawns and watches the sidecar. Each spawn gets a new password, sent only in
 * the stdin `bootstrap` frame (never argv, env, disk or logs). The host waits for the single
 * readiness attestation on fd 3 with the matching port before routing sockets to it, and stops
 * naming it current or routing to it the moment it is to end. Any other IPC message, a channel
 * error, a missed readiness deadline or an exit ends that sidecar and starts a new one after a
 * backoff (250 ms doubling to 10 s), with a new password. A respawn whose
 * launcher or spawn fails is retried on the same backoff; after SIDECAR_RESPAWN_MAX_ATTEMPTS in a
 * row the supervisor fails, and whoever waits for a sidecar gets SIDECAR_RESPAWN_FAILED rather than
 * waiting forever (a later restart() tries again). On stop the host sends `shutdown`, then kills;
 * no orphan survives the host.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  type ChannelError,
  elapsedMs,
  FramedChannel,
  hostToSidecarFrameSchema,
  isReadyAttestation,
  logStartupStage,
  sidecarToHostFrameSchema,
  SIDECAR_READY_TIMEOUT_MS,
  SIDECAR_RESTART_BACKOFF_INITIAL_MS,
  SIDECAR_RESTART_BACKOFF_MAX_MS,
  SIDECAR_RESPAWN_MAX_ATTEMPTS,
  SIDECAR_SHUTDOWN_GRACE_MS,
  SIDECAR_STABLE_AFTER_MS,
  type Capabilities,
  type ChatgptBootstrap,
  type Logger,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import type { DaemonSocketHost } from './daemon-socket-host.js';
import type { SidecarLauncher } from './sidecar-launcher.js';
import { generateSidecarPassword } from './sidecar-password.js';
import { forwardSidecarLogs } from './sidecar-logs.js';

export type SidecarChannel = FramedChannel<typeof sidecarToHostFrameSchema, typeof hostToSidecarFrameSchema>;

/** What the host decides for each spawn, read fresh at every (re)start. */
export interface SidecarSpawnConfig {
  allowedOrigins: string[];
  userData: string;
  workspaces: string[];
  capabilities: Capabilities;
  /** SEC-008: the effective ChatGPT OAuth profile and this spawn's host key. */
  chatgpt?: ChatgptBootstrap;
}

export interface SidecarHandle {
  readonly generation: number;
  readonly pid: number;
  readonly password: string;
  readonly channel: SidecarChannel;
  readonly config: SidecarSpawnConfig;
}

/**
 * Attaches a host module (transport, command executor) to every new sidecar's channel. It may
 * return a function that runs when that sidecar has exited (to end work it started for it).
 */
export type ChannelModule = (sidecar: SidecarHandle) => void | (() => void);

interface Running {
  child: ChildProcess;
  handle: SidecarHandle;
  ready: boolean;
  readyAt: number | undefined;
  /** Set once it is to end (#retire): never current or routed to again. */
  retired: boolean;
  cleanup: (() => void) | undefined;
  /** What the channel modules asked to run on exit. */
  detach: (() => void)[];
}

export class SidecarSupervisor {
  readonly #entry: string;
  readonly #launcher: SidecarLauncher;
  readonly #socketHost: DaemonSocketHost;
  readonly #config: () => SidecarSpawnConfig;
  readonly #log: Logger;
  readonly #sidecarLog: Logger;
  readonly #modules: ChannelModule[] = [];
  readonly #readyWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #running: Running | undefined;
  #generation = 0;
  #failures = 0;
  /** Respawns in a row whose launcher or spawn failed. */
  #spawnFailures = 0;
  /** Set when respawning gave up; whenReady() rejects with it until a restart() succeeds. */
  #failed: HostError | undefined;
  #stopping = false;
  #restartTimer: NodeJS.Timeout | undefined;
  readonly #exitGuard = () => this.#running?.child.kill('SIGKILL');

  constructor(options: {
    entry: string;
    launcher: SidecarLauncher;
    socketHost: DaemonSocketHost;
    config: () => SidecarSpawnConfig;
    log: Logger;
    /** Where the sidecar's own (re-checked) log records are written. */
    sidecarLog: Logger;
  }) {
    this.#entry = options.entry;
    this.#launcher = options.launcher;
    this.#socketHost = options.socketHost;
    this.#config = options.config;
    this.#log = options.log;
    this.#sidecarLog = options.sidecarLog;
  }

  /** The sidecar currently serving, if it has attested readiness. */
  get current(): SidecarHandle | undefined {
    return this.#running?.ready ? this.#running.handle : undefined;
  }

  addChannelModule(module: ChannelModule): void {
    this.#modules.push(module);
  }

  /** Spawn the first sidecar; resolves once it is ready. */
  async start(): Promise<SidecarHandle> {
    process.once('exit', this.#exitGuard);
    await this.#spawn();
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      deadline = setTimeout(
        () => reject(new HostError('SIDECAR_NOT_READY', 'the sidecar did not become ready in time')),
        SIDECAR_READY_TIMEOUT_MS * 2,
      );
    });
    try {
      await Promise.race([this.whenReady(), timedOut]);
    } finally {
      clearTimeout(deadline);
    }
    const current = this.current;
    if (!current) throw new HostError('SIDECAR_NOT_READY', 'sidecar is not ready');
    return current;
  }

  /** Resolves when a sidecar is ready (immediately if one is). */
  whenReady(): Promise<void> {
    if (this.current) return Promise.resolve();
    if (this.#stopping) return Promise.reject(new HostError('SIDECAR_STOPPED', 'supervisor is stopped'));
    if (this.#failed) return Promise.reject(this.#failed);
    return new Promise((resolve, reject) => this.#readyWaiters.push({ resolve, reject }));
  }

  /** Replace the sidecar now (new policy, new password); resolves when the new one is ready. */
  async restart(reason: string): Promise<void> {
    this.#log.info('sidecar.restart-requested', { reason });
    const running = this.#running;
    if (running) {
      const exited = new Promise<void>((resolve) => running.child.once('exit', () => resolve()));
      this.#failures = 0;
      this.#retire(running);
      running.child.kill('SIGKILL');
      await exited;
    }
    clearTimeout(this.#restartTimer);
    this.#failed = undefined;
    this.#spawnFailures = 0;
    // Waiters registered first: a respawn that gives up rejects them.
    const ready = this.whenReady();
    if (!this.#running) this.#respawn();
    await ready;
  }

  /** Stop for good: `shutdown`, then SIGKILL after the grace period. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#restartTimer);
    for (const waiter of this.#readyWaiters.splice(0))
      waiter.reject(new HostError('SIDECAR_STOPPED', 'supervisor stopped'));
    const running = this.#running;
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => running.child.once('exit', () => resolve()));
      if (!running.handle.channel.closed) {
        try {
          running.handle.channel.send({ v: 1, type: 'shutdown' });
        } catch {
          // The channel is already gone; the kill below still ends the process.
        }
      }
      const killer = setTimeout(() => running.child.kill('SIGKILL'), SIDECAR_SHUTDOWN_GRACE_MS);
      await exited;
      clearTimeout(killer);
    }
    process.removeListener('exit', this.#exitGuard);
  }

  async #spawn(): Promise<void> {
    if (this.#stopping) return;
    const generation = ++this.#generation;
    const config = this.#config();
    const password = generateSidecarPassword();
    const spawnStarted = performance.now();
    const launch = await this.#launcher(this.#entry);
    // Building the launch: under the sandbox, srt's wrap of the sidecar's argv.
    logStartupStage(this.#log, 'sidecar-launch', elapsedMs(spawnStarted), generation);
    const child = spawn(launch.command, launch.args, {
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
      serialization: 'json',
      // A process group (and session) of its own: Ctrl-C on the terminal signals the host's group,
      // and the host decides what stops (a run, or everything, the sidecar last); the sidecar
      // still ends with its channel, and under srt with its parent (bwrap --die-with-parent).
      detached: true,
    });
    const { stdin, stdout, stderr } = child;
    if (!stdin || !stdout || !stderr || child.pid === undefined) {
      // A spawn that failed (a missing program) reports it as an 'error' event: handled here, not a crash.
      child.once('error', () => undefined);
      // Never kill() a child that has no pid: Node then calls kill(0, …), which signals every
      // process in this one's group (the terminal's job, or the test runner).
      if (child.pid !== undefined) child.kill('SIGKILL');
      launch.cleanup?.();
      throw new HostError('SIDECAR_SPAWN', 'sidecar could not be spawned');
    }
    stdin.on('error', () => undefined);
    this.#log.info('sidecar.spawned', { pid: child.pid, attempt: generation });
    const channel: SidecarChannel = new FramedChannel({
      source: stdout,
      sink: stdin,
      inbound: sidecarToHostFrameSchema,
      outbound: hostToSidecarFrameSchema,
      onClose: (error) => this.#onChannelClose(generation, error),
    });
    const handle: SidecarHandle = { generation, pid: child.pid, password, channel, config };
    const running: Running = {
      child,
      handle,
      ready: false,
      readyAt: undefined,
      retired: false,
      cleanup: launch.cleanup,
      detach: [],
    };
    this.#running = running;
    forwardSidecarLogs(stderr, this.#sidecarLog);
    for (const module of this.#modules) {
      const detach = module(handle);
      if (detach) running.detach.push(detach);
    }

    const readyTimer = setTimeout(() => {
      this.#log.error('sidecar.ready-timeout', { pid: child.pid ?? null });
      child.kill('SIGKILL');
    }, SIDECAR_READY_TIMEOUT_MS);

    child.on('message', (message: unknown) => {
      // What a process on its way out still had queued changes nothing.
      if (running.retired) return;
      if (!running.ready && isReadyAttestation(message, this.#socketHost.port)) {
        clearTimeout(readyTimer);
        running.ready = true;
        running.readyAt = Date.now();
        this.#socketHost.setTarget(child);
        this.#log.info('sidecar.ready', {
          pid: child.pid ?? null,
          attempt: generation,
          duration_ms: elapsedMs(spawnStarted),
        });
        for (const waiter of this.#readyWaiters.splice(0)) waiter.resolve();
        return;
      }
      this.#log.error('sidecar.ipc-violation', { pid: child.pid ?? null });
      this.#retire(running);
      child.kill('SIGKILL');
    });
    child.once('disconnect', () => this.#retire(running));
    child.once('exit', (code, signal) => {
      clearTimeout(readyTimer);
      this.#onExit(running, code, signal);
    });

    channel.send({
      v: 1,
      type: 'bootstrap',
      password,
      daemon_port: this.#socketHost.port,
      allowed_origins: config.allowedOrigins,
      user_data: config.userData,
      workspaces: config.workspaces,
      capabilities: config.capabilities,
      ...(config.chatgpt ? { chatgpt: config.chatgpt } : {}),
    });
  }

  #onChannelClose(generation: number, error: ChannelError | undefined): void {
    const running = this.#running;
    if (!running || running.handle.generation !== generation) return;
    if (error) this.#log.error('sidecar.channel-failed', { code: error.code });
    this.#retire(running);
    running.child.kill('SIGKILL');
  }

  /**
   * From the moment a sidecar is to end (killed, or its IPC channel gone) it is no longer current
   * and no socket goes to it. Its 'exit' is seen only some turns of the event loop later (up to
   * ~60 ms measured under srt); named current until then, it would have its password handed to
   * the page by server-info and be transferred connections that die with it, so a send made in
   * that gap failed UNREACHABLE. whenReady() waits for the next sidecar instead.
   */
  #retire(running: Running): void {
    running.retired = true;
    running.ready = false;
    if (this.#running === running) this.#socketHost.setTarget(undefined);
  }

  #onExit(running: Running, code: number | null, signal: NodeJS.Signals | null): void {
    running.cleanup?.();
    for (const detach of running.detach.splice(0)) detach();
    if (this.#running !== running) return;
    this.#running = undefined;
    this.#socketHost.setTarget(undefined);
    this.#log.info('sidecar.exited', { exit_code: code, signal });
    if (this.#stopping) return;
    if (running.readyAt !== undefined && Date.now() - running.readyAt >= SIDECAR_STABLE_AFTER_MS) this.#failures = 0;
    this.#scheduleRespawn();
  }

  #scheduleRespawn(): void {
    const delay = Math.min(SIDECAR_RESTART_BACKOFF_INITIAL_MS * 2 ** this.#failures, SIDECAR_RESTART_BACKOFF_MAX_MS);
    this.#failures += 1;
    this.#log.warn('sidecar.restart-scheduled', { delay_ms: delay, attempt: this.#failures });
    this.#restartTimer = setTimeout(() => this.#respawn(), delay);
  }

  /** Spawn a replacement; a failed launch is retried on the backoff, up to the limit, then the supervisor fails. */
  #respawn(): void {
    this.#spawn().then(
      () => {
        this.#spawnFailures = 0;
      },
      (error: unknown) => {
        this.#spawnFailures += 1;
        const code = (error as { code?: unknown }).code;
        this.#log.error('sidecar.spawn-failed', {
          code: typeof code === 'string' ? code : 'UNKNOWN',
          attempt: this.#spawnFailures,
        });
        if (this.#stopping) return;
        if (this.#spawnFailures < SIDECAR_RESPAWN_MAX_ATTEMPTS) {
          this.#scheduleRespawn();
          return;
        }
        this.#failed = new HostError(
          'SIDECAR_RESPAWN_FAILED',
          `the agent process could not be started again (${this.#spawnFailures} attempts failed)`,
          { cause: error },
        );
        this.#log.error('sidecar.respawn-gave-up', { code: 'SIDECAR_RESPAWN_FAILED', attempt: this.#spawnFailures });
        for (const waiter of this.#readyWaiters.splice(0)) waiter.reject(this.#failed);
      },
    );
  }
}
