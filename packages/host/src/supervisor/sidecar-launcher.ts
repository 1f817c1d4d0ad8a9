/**
 * How a sidecar process is started. The plain launcher runs the daemon's built entry with this
 * Node binary; the sandbox launcher (sandbox/) wraps the same argv. Either way the environment
 * is reduced to a short allowlist so no provider key or token in the host's environment leaks in.
 */
import { createRequire } from 'node:module';
import { SIDECAR_INITIAL_OLD_SPACE_MIB } from '@bastion/protocol';

export interface SidecarLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Runs after the process has exited (sandbox cleanup). */
  cleanup?: () => void;
}

export type SidecarLauncher = (entry: string) => Promise<SidecarLaunch>;

const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'HOME'] as const;

/**
 * V8 options the sidecar's Node runs with. The sidecar's heap is small and it reads provider
 * bodies into fresh buffers. V8 collects those young every 32 MiB of buffers, and with its
 * default heap limits a heap this small has so little headroom left that each of those collections
 * also starts a full mark-compact (sidecar-heap.test.ts counts them). Starting the old generation
 * at SIDECAR_INITIAL_OLD_SPACE_MIB gives it a fixed headroom instead, so a long stream runs
 * without full collections. It replaces `--heap-growing-percent=500`, which did the same by
 * letting the heap grow to a multiple of its live size before a full collection, so the sidecar's
 * RSS followed whatever it once held (bench/README.md, `soak`, has the figures).
 */
export const SIDECAR_NODE_OPTIONS = [`--initial-old-space-size=${SIDECAR_INITIAL_OLD_SPACE_MIB}`] as const;

/** The argv of a sidecar process: this Node binary, its options, the daemon's entry. */
export function sidecarArgv(entry: string): [string, ...string[]] {
  return [process.execPath, ...SIDECAR_NODE_OPTIONS, entry];
}

export function sidecarEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of INHERITED_ENV) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The unwrapped sidecar (no outer sandbox): the same argv and environment the sandbox launcher wraps. */
export const plainLauncher: SidecarLauncher = (entry) => {
  const [command, ...args] = sidecarArgv(entry);
  return Promise.resolve({ command, args, env: sidecarEnvironment() });
};

/** The daemon's built entry file, resolved through the workspace package (never imported). */
export function resolveDaemonEntry(): string {
  return createRequire(import.meta.url).resolve('@bastion/daemon/entry');
}
