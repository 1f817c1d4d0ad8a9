/**
 * SEC-004 (outer sandbox): starts the sidecar inside srt. Each spawn wraps the daemon's argv
 * under the policy current at that moment (so a newly granted workspace takes effect on the
 * respawn), with the reduced sidecar environment and HOME set to the HOME the policy was built
 * for. The wrapped argv is
 * `/bin/sh -c 'bwrap --die-with-parent --unshare-pid … node <SIDECAR_NODE_OPTIONS> entry'`: the
 * supervisor's child is that shell, and killing it takes the whole sandboxed tree down (bwrap dies
 * with its parent, and with it the PID namespace and the sidecar in it). The IPC channel (fd 3)
 * and the transferred sockets pass through unchanged. Absent protected paths get a placeholder
 * only inside `.git` (placeholder-warden.ts says why); the workspaces are read-only to the sidecar
 * as a whole (sidecar-sandbox-policy.ts), so nothing absent there needs guarding.
 */
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { HostError } from '../errors.js';
import { sidecarArgv, sidecarEnvironment, type SidecarLauncher } from '../supervisor/sidecar-launcher.js';
import type { PlaceholderWarden } from './placeholder-warden.js';
import type { SrtSession } from './srt-session.js';

export function createSrtSidecarLauncher(options: {
  session: SrtSession;
  /** Read at every spawn. */
  policy: () => SandboxRuntimeConfig;
  home: string;
  privateTemp: string;
  warden: PlaceholderWarden;
}): SidecarLauncher {
  return async (entry) => {
    const [command, ...args] = await options.session.wrapArgv(sidecarArgv(entry), options.policy(), {
      home: options.home,
      env: { TMPDIR: options.privateTemp },
      skipPlaceholder: (path) => options.warden.sidecarSkip(path),
    });
    if (command === undefined) throw new HostError('SANDBOX_WRAP', 'srt returned an empty command');
    return {
      command,
      args,
      env: { ...sidecarEnvironment(), HOME: options.home },
      cleanup: () => options.session.commandEnded(),
    };
  };
}
