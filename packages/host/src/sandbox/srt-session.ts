/**
 * SEC-004 (outer sandbox): this process's one srt SandboxManager. srt keeps its state in a
 * module-level singleton (HTTP/SOCKS proxies, the host-side socat bridges, mount-point
 * bookkeeping), so every host in the process shares it: the first acquire initializes it, the
 * last release resets it, which ends the bridges and proxies, so no socat outlives the hosts.
 *
 * The session's own configuration only sets the network side: an empty, strict allowlist and no
 * ask callback, so the proxy would answer every destination with 403 and no per-command list can
 * widen that; in fact nothing inside Bastion's sandboxes reaches it (see below). Filesystem rules
 * come from the policy passed to each wrap (srt's `customConfig`).
 *
 * Finding for the per-command run_command profile (issue 5), read from srt 0.0.83's
 * sandbox-manager.js: `wrapWithSandbox(command, binShell, customConfig)` and
 * `wrapWithSandboxArgv(command, binShell, customConfig, abortSignal, cwd)` take a per-call
 * `Partial<SandboxRuntimeConfig>`. Its `filesystem` lists (denyRead/allowRead/allowWrite/denyWrite)
 * REPLACE the session's, each list on its own (a missing list falls back to the session's), and
 * `filesystem.disabled` there wins outright; `credentials`, `allowPty` and
 * `allowNestedUserNamespaces` are per-call too. Its `network.allowedDomains` only decides whether
 * the command is routed through the proxy: what the proxy allows is the session's list plus a
 * list registered per command id (`registerCommandNetworkLists`), and with `strictAllowlist` on
 * (as here) only the session's. So a per-command profile is: `wrapArgv(argv, profile)` on this
 * same session, with the profile built from HOME_SECRET_PATHS + userData + other scratch dirs and
 * checked by checkSandboxPolicy (which wrapArgv does).
 *
 * No route to the proxy: every wrap asks srt for `noProxyRoute`, an option of Bastion's patch to
 * srt 0.0.83 (patches/, applied by `npm ci`'s postinstall). srt would otherwise start two socat
 * relays to its proxy inside every sandbox, wait for them to listen, and export a dozen proxy
 * variables; with it the sandbox keeps `--unshare-net` and has nothing to connect to, so every
 * connection is refused, and each wrap skips a shell, two relay starts and the wait. The same patch
 * remembers srt's `which` look-ups, which otherwise cost a process start per wrap (bench/README.md
 * has what each saves of a command's start). On Linux srt's socat is `bin/srt-socat`, which runs
 * the host-side bridges (srt starts them whatever the wraps ask) under `setpriv --pdeathsig KILL`,
 * so even a host killed with SIGKILL leaves no bridge behind.
 *
 * What it does not catch: a compromise of this process is out of the sandbox's scope (srt's proxy
 * and bridges still run here, started by initialize, though no sandbox has a route to them).
 */
import { homedir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { HostError } from '../errors.js';
import { resolveHomeSecretPaths } from './home-secrets.js';
import { checkSandboxPolicy } from './sandbox-policy-check.js';
import { directArgv, WrapCache, wrapParts, type WrapParts } from './wrap-cache.js';
import { SRT_INIT_ATTEMPTS, SRT_INIT_RETRY_DELAY_MS, SRT_WRAP_ATTEMPTS } from '@bastion/protocol';

/** How a run_command child is wrapped (SrtSession.wrapCommand and keptWrap). */
export interface CommandWrapOptions {
  home: string;
  /** The command's own write root, named in the policy. */
  privateTemp: string;
  env: Readonly<Record<string, string>>;
  skipPlaceholder?: (path: string) => boolean;
}

export interface SrtSession {
  /**
   * Wrap `argv` for srt under `policy` (checked first; a failing policy throws and nothing is
   * wrapped). `env` is exported inside the sandbox, after srt's own variables, so it wins over
   * them (the launcher uses it to point TMPDIR at the private temp dir). Spawn the result with
   * `shell: false`.
   */
  wrapArgv(
    argv: readonly string[],
    policy: SandboxRuntimeConfig,
    options: {
      home: string;
      env?: Record<string, string>;
      /** Asked for each absent deny path's placeholder (placeholder-warden.ts); true makes none. */
      skipPlaceholder?: (path: string) => boolean;
    },
  ): Promise<string[]>;
  /**
   * Wrap one run_command child's `argv` (no shell: it is run as given) under `policy`, from the
   * wrap cache when the disk still holds what a kept wrap of the same profile was built from
   * (wrap-cache.ts), else by srt. `privateTemp` is the command's own write root, named in the
   * policy. `argv` runs with exactly `env` (none of srt's variables, nor the host's). Call
   * `ended()` once the process has exited.
   */
  wrapCommand(
    argv: readonly string[],
    policy: SandboxRuntimeConfig,
    options: CommandWrapOptions,
  ): Promise<WrappedCommand>;
  /**
   * wrapCommand's wrap when it is served from the wrap cache, else undefined (nothing is built):
   * for a sandbox started before its command (prestarted-sandbox.ts). Not counted as a command
   * (wrap-cache.ts `hold`).
   */
  keptWrap(
    argv: readonly string[],
    policy: SandboxRuntimeConfig,
    options: CommandWrapOptions,
  ): WrappedCommand | undefined;
  /** Call once each process wrapped by wrapArgv has exited: srt removes the mount points it made for it. */
  commandEnded(): void;
  /** Give the session back; the last release resets srt (proxies and socat bridges end). */
  release(): Promise<void>;
}

export interface WrappedCommand {
  argv: string[];
  /** Served from the wrap cache (srt was not asked). */
  cached: boolean;
  /**
   * `argv` starts bwrap itself with `--die-with-parent`, which asks the kernel to kill it when the
   * process that spawned it dies (and its sandbox with it); false for srt's shells around bwrap.
   */
  diesWithParent: boolean;
  /** The process has exited: srt removes what it made for a full wrap. */
  ended(): void;
  /**
   * For a wrap served from the cache: which inodes the paths its mounts are made from are now
   * (wrap-disk-state.ts `readMountIdentity`); undefined for a full wrap.
   */
  mounts: (() => string) | undefined;
}

const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** Runs a command with only the variables given, for a wrap that cannot set them itself. */
const ENV_BINARY = '/usr/bin/env';

function checkEnvNames(env: Readonly<Record<string, string>>): void {
  for (const name of Object.keys(env))
    if (!ENV_NAME.test(name)) throw new HostError('SANDBOX_ENV', 'invalid environment variable name');
}

/**
 * The shell srt puts around and inside bwrap. Not bash: libuv's stdio pipes are socketpairs,
 * which bash takes for a remote-shell connection, so it would source the user's ~/.bashrc on the
 * host side of the wrap (slow, noisy, and the user's code running in the host's launch path).
 */
const WRAP_SHELL = '/bin/sh';

/** POSIX single-quoting: the one shell-quoting rule the wrapped command needs. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Resolved through the package's own exports, so it is found from src/, dist/ and from the CLI's
 * bundle (packages/cli/dist/main.js), which carries this module.
 */
const SOCAT_DYING_WITH_PARENT = createRequire(import.meta.url).resolve('@bastion/host/srt-socat');

function sessionConfig(): SandboxRuntimeConfig {
  const secrets = resolveHomeSecretPaths(homedir());
  return {
    ...(process.platform === 'linux' && { socatPath: SOCAT_DYING_WITH_PARENT }),
    network: { allowedDomains: [], deniedDomains: [], strictAllowlist: true, allowLocalBinding: false },
    // A wrap without its own filesystem lists would fall back to these: deny the secrets, allow no writes.
    filesystem: { denyRead: secrets, allowWrite: [], denyWrite: secrets },
  };
}

/** bwrap's own `--die-with-parent`: bwrap sets its parent-death signal, as its child's, to SIGKILL. */
function diesWithParent(parts: WrapParts): boolean {
  return parts.bwrap.includes('--die-with-parent');
}

/** Kept wraps of this process's srt session; emptied when srt resets. */
const wrapCache = new WrapCache();

/**
 * srt's wrap of `command` (a shell string run by WRAP_SHELL). srt's wrap spawns `rg` (and `which`,
 * before the patch remembered it); once, under a fully loaded CI-like run, a wrap failed (cause not
 * captured). One more attempt; a second failure fails closed.
 */
async function srtWrap(command: string, policy: SandboxRuntimeConfig, skipPlaceholder?: (path: string) => boolean) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return (
        await SandboxManager.wrapWithSandboxArgv(command, WRAP_SHELL, policy, undefined, undefined, {
          noProxyRoute: true,
          ...(skipPlaceholder && { skipPlaceholder }),
        })
      ).argv;
    } catch (error) {
      if (attempt >= SRT_WRAP_ATTEMPTS) throw error;
    }
  }
}

let users = 0;
let initialized: Promise<void> | undefined;
let resetting: Promise<void> | undefined;

/** srt's package directory as it appears in a stack trace of its ES modules. */
const SRT_PACKAGE_URL = pathToFileURL(
  dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime/package.json')),
).href;

/** Whether the listener being added right now is added by srt's own code (its frames are on the stack). */
function addedBySrt(): boolean {
  const trace: { stack?: string } = {};
  Error.captureStackTrace(trace, addedBySrt);
  return trace.stack?.includes(`${SRT_PACKAGE_URL}/`) ?? false;
}

/**
 * srt's initialize registers once-handlers for SIGINT and SIGTERM that reset it and do not exit:
 * one would take a user's first Ctrl-C, cancel an initialize still under way (leaking the socat
 * bridges it had started) and leave the host running. The host stops on those signals itself (its
 * stop releases this session, and so srt), so each such handler is removed as soon as srt adds it,
 * before any signal can be dispatched to it. Only srt's: the CLI adds its own stop listeners while
 * an initialize it began early (host-start-prelude.ts) is still under way, and those must stay.
 */
async function withoutSrtSignalHandlers(initialize: () => Promise<void>): Promise<void> {
  const drop = (event: string | symbol, listener: (...args: unknown[]) => void) => {
    if ((event === 'SIGINT' || event === 'SIGTERM') && addedBySrt()) {
      queueMicrotask(() => process.off(event, listener));
    }
  };
  process.on('newListener', drop);
  try {
    await initialize();
  } finally {
    process.off('newListener', drop);
  }
}

/**
 * srt's initialize starts its proxies and host-side socat bridges; on a loaded machine it
 * sometimes fails to see its bridge sockets in time ("Failed to create bridge sockets", seen in
 * CI-like runs). A fresh attempt after a reset succeeds; a persistent failure still fails closed.
 */
async function initializeWithRetry(): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await withoutSrtSignalHandlers(() => SandboxManager.initialize(sessionConfig()));
      return;
    } catch (error) {
      if (attempt >= SRT_INIT_ATTEMPTS) throw error;
      await SandboxManager.reset().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, SRT_INIT_RETRY_DELAY_MS * attempt));
    }
  }
}

/**
 * A session whose wraps may begin at once, and its initialize. srt installs its configuration
 * before its initialize's first await; what the initialize goes on to do (its dependency check,
 * then its proxies and host-side bridges) no wrap of Bastion's uses, since every wrap asks for
 * `noProxyRoute` and the patched srt makes such a wrap wait for nothing. So a host can wrap and
 * spawn its sidecar while srt's bridges come up, and waits for `initialized` before it calls
 * itself ready: a failed initialize still fails the start (SANDBOX_INIT) and ends the sidecar.
 */
export interface BegunSrtSession {
  session: SrtSession;
  /** Settles with srt's initialize; rejects with SANDBOX_INIT, the session then given back. */
  initialized: Promise<void>;
}

export async function beginSrtSession(): Promise<BegunSrtSession> {
  await resetting;
  users += 1;
  const attempt = (initialized ??= initializeWithRetry());
  let released = false;
  const session = openSession(() => {
    if (released) return false;
    released = true;
    users -= 1;
    return true;
  });
  const settled = attempt.catch((cause: unknown) => {
    if (initialized === attempt) initialized = undefined;
    if (!released) {
      released = true;
      users -= 1;
    }
    throw new HostError('SANDBOX_INIT', 'the outer sandbox (srt) could not be initialized', { cause });
  });
  // A start that fails before it waits for the initialize must not leave its failure unhandled.
  settled.catch(() => undefined);
  return { session, initialized: settled };
}

/** A session once srt's initialize has completed; throws SANDBOX_INIT (and holds nothing) when it failed. */
export async function acquireSrtSession(): Promise<SrtSession> {
  const { session, initialized } = await beginSrtSession();
  await initialized;
  return session;
}

/** The session's operations; `giveBack` answers whether this call is the one that gave it back. */
function openSession(giveBack: () => boolean): SrtSession {
  return {
    async wrapArgv(argv, policy, options) {
      const check = checkSandboxPolicy(policy, options.home);
      if (!check.ok) throw new HostError(check.code, check.message);
      checkEnvNames(options.env ?? {});
      const exports = Object.entries(options.env ?? {}).map(([name, value]) => `export ${name}=${shellQuote(value)}; `);
      const command = `${exports.join('')}exec ${argv.map(shellQuote).join(' ')}`;
      return srtWrap(command, policy, options.skipPlaceholder);
    },
    async wrapCommand(argv, policy, options) {
      const check = checkSandboxPolicy(policy, options.home);
      if (!check.ok) throw new HostError(check.code, check.message);
      checkEnvNames(options.env);
      const found = wrapCache.lookup(policy, options.privateTemp, options.home, options.skipPlaceholder);
      if ('parts' in found)
        return {
          argv: directArgv(found.parts, argv, options.env),
          cached: true,
          diesWithParent: diesWithParent(found.parts),
          ended: found.ended,
          mounts: found.mounts,
        };
      // What srt wraps: used as it is only when its wrap cannot be taken apart (then `env -i` inside
      // drops srt's own variables, its proxy settings included).
      const assignments = Object.entries(options.env).map(([name, value]) => `${name}=${value}`);
      const command = `exec ${[ENV_BINARY, '-i', ...assignments, ...argv].map(shellQuote).join(' ')}`;
      const asked: Array<[string, boolean]> = [];
      const wrapped = await srtWrap(command, policy, (path) => {
        const skipped = options.skipPlaceholder?.(path) === true;
        asked.push([path, skipped]);
        return skipped;
      });
      const parts = wrapParts(wrapped, WRAP_SHELL, command);
      const ended = wrapCache.complete(found, {
        parts,
        privateTemp: options.privateTemp,
        asked,
        resources: SandboxManager.hostResources(),
        release: () => SandboxManager.cleanupAfterCommand(),
      });
      if (parts === undefined) return { argv: wrapped, cached: false, diesWithParent: false, ended, mounts: undefined };
      return {
        argv: directArgv(parts, argv, options.env),
        cached: false,
        diesWithParent: diesWithParent(parts),
        ended,
        mounts: undefined,
      };
    },
    keptWrap(argv, policy, options) {
      const check = checkSandboxPolicy(policy, options.home);
      if (!check.ok) throw new HostError(check.code, check.message);
      checkEnvNames(options.env);
      const held = wrapCache.hold(policy, options.privateTemp, options.home, options.skipPlaceholder);
      if (held === undefined) return undefined;
      return {
        argv: directArgv(held.parts, argv, options.env),
        cached: true,
        diesWithParent: diesWithParent(held.parts),
        ended: held.ended,
        mounts: held.mounts,
      };
    },
    commandEnded() {
      SandboxManager.cleanupAfterCommand();
    },
    async release() {
      if (!giveBack()) return;
      if (users > 0) return;
      const done = initialized;
      initialized = undefined;
      wrapCache.clear();
      resetting = (async () => {
        await done?.catch(() => undefined);
        await SandboxManager.reset();
      })();
      await resetting;
      resetting = undefined;
    },
  };
}
