/**
 * SEC-004 (outer sandbox): starts the sidecar inside srt. Each spawn wraps the daemon's argv
 * under the policy current at that moment (so a newly granted workspace takes effect on the
 * respawn), with the reduced sidecar environment and HOME set to the HOME the policy was built
 * for. The wrapped argv is
 * `/bin/sh -c 'bwrap --die-with-parent --unshare-pid … node <SIDECAR_NODE_OPTIONS> entry'`: the
 * supervisor's child is that shell, and killing it takes the whole sandboxed tree down (bwrap dies
 * with its parent, and with it the PID namespace and the sidecar in it). The IPC channel (fd 3)
 * and the transferred sockets pass through unchanged. Absent protected paths in the workspace get
 * no placeholder there, only inside `.git` (placeholder-warden.ts says why and what that misses);
 * those of the policy's own workspace denies (a configured hooks directory, an included config
 * file: sidecar-workspace-protections.ts) are guarded by the warden for the sidecar's lifetime,
 * and checked once more after it exits (its namespace is gone then), so what a compromised sidecar
 * creates there is moved to quarantine.
 *
 * What it does not catch: anything the policy allows; see sidecar-sandbox-policy.ts.
 */
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { HostError } from '../errors.js';
import { sidecarArgv, sidecarEnvironment, type SidecarLauncher } from '../supervisor/sidecar-launcher.js';
import { insideGitDirectory, type PlaceholderWarden } from './placeholder-warden.js';
import { isAtOrUnder } from './sandbox-policy-check.js';
import type { SrtSession } from './srt-session.js';

export function createSrtSidecarLauncher(options: {
  session: SrtSession;
  /** Read at every spawn. */
  policy: () => SandboxRuntimeConfig;
  /** The granted workspace roots the policy was built for, read at every spawn (none: nothing is guarded). */
  workspaces?: () => readonly string[];
  home: string;
  privateTemp: string;
  warden: PlaceholderWarden;
}): SidecarLauncher {
  return async (entry) => {
    const policy = options.policy();
    const workspaces = options.workspaces?.() ?? [];
    const denied = new Set(policy.filesystem.denyWrite);
    const guard = options.warden.guard('sidecar');
    const guarded = (path: string) =>
      denied.has(path) && !insideGitDirectory(path) && workspaces.some((root) => isAtOrUnder(path, root));
    let command: string | undefined;
    let args: string[];
    try {
      [command, ...args] = await options.session.wrapArgv(sidecarArgv(entry), policy, {
        home: options.home,
        env: { TMPDIR: options.privateTemp },
        skipPlaceholder: (path) => (guarded(path) ? guard.skip(path) : options.warden.sidecarSkip(path)),
      });
      if (command === undefined) throw new HostError('SANDBOX_WRAP', 'srt returned an empty command');
    } catch (error) {
      guard.close();
      throw error;
    }
    guard.arm();
    return {
      command,
      args,
      env: { ...sidecarEnvironment(), HOME: options.home },
      cleanup: () => {
        options.session.commandEnded();
        guard.sweep();
        guard.close();
      },
    };
  };
}
