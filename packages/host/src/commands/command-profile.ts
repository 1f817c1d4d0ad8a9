/**
 * SEC (agent shell execution), the kernel-level finish of the secret-dir guard: the srt profile
 * ONE run_command child runs under, built per command. It denies reads of the HOME secrets (the
 * sidecar's own list, reused) AND of the host's userData, which the sidecar itself must keep
 * reading; that closes the spec's admitted gap, where `sh -c` or `python3 -c` in `auto` could read
 * auth.json by a computed path. Writes are allowed only in the session's workspace root, its own
 * scratch dir (inside userData, re-opened alone, so every other session's stays denied) and a
 * private temp dir made for this command. No network: an empty strict allowlist behind srt's proxy.
 *
 * What it does not catch: reads of anything else the user can read (the rest of the disk), and
 * writes to the device files srt keeps writable (/dev/null and the child's stdio).
 */
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { resolveHomeSecretPaths } from '../sandbox/home-secrets.js';
import { SRT_UNASKED_WRITE_PATHS } from '../sandbox/sidecar-sandbox-policy.js';

export interface CommandProfileInput {
  /** The HOME the host runs with (a temporary one in tests). */
  home: string;
  /** The host's userData (realpath). */
  userData: string;
  /** The session's workspace root (realpath), granted by the host. */
  workspaceRoot: string;
  /** The session's scratch dir inside userData, when the command uses one. */
  scratchDir: string | undefined;
  /** This command's private temp dir (0700), its TMPDIR. */
  privateTemp: string;
}

export function buildCommandSandboxProfile(input: CommandProfileInput): SandboxRuntimeConfig {
  const secrets = resolveHomeSecretPaths(input.home);
  const writable = [input.workspaceRoot, ...(input.scratchDir === undefined ? [] : [input.scratchDir]), input.privateTemp];
  return {
    network: {
      allowedDomains: [],
      deniedDomains: [],
      strictAllowlist: true,
      allowLocalBinding: false,
      allowAllUnixSockets: false,
    },
    filesystem: {
      denyRead: [...secrets, input.userData],
      allowWrite: [...new Set(writable)],
      // srt's shared /tmp/claude is write-denied: a command's TMPDIR is its own private dir.
      denyWrite: [...secrets, ...SRT_UNASKED_WRITE_PATHS],
    },
  };
}
