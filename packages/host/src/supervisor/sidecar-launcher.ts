/**
 * How a sidecar process is started. The plain launcher runs the daemon's built entry with this
 * Node binary; the sandbox launcher (sandbox/) wraps the same argv. Either way the environment
 * is reduced to a short allowlist so no provider key or token in the host's environment leaks in.
 */
import { createRequire } from 'node:module';

export interface SidecarLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Runs after the process has exited (sandbox cleanup). */
  cleanup?: () => void;
}

export type SidecarLauncher = (entry: string) => Promise<SidecarLaunch>;

const INHERITED_ENV = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'HOME'] as const;

export function sidecarEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of INHERITED_ENV) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export const plainLauncher: SidecarLauncher = (entry) =>
  Promise.resolve({ command: process.execPath, args: [entry], env: sidecarEnvironment() });

/** The daemon's built entry file, resolved through the workspace package (never imported). */
export function resolveDaemonEntry(): string {
  return createRequire(import.meta.url).resolve('@bastion/daemon/entry');
}
