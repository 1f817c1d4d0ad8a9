/**
 * SEC-004 (outer sandbox): the srt policy the sidecar runs under, as plain data. Reads are open
 * outside HOME (the sidecar must load Node, its own dist and node_modules, and read granted
 * workspaces); HOME is unreadable (`home-read`) except userData and the workspaces under HOME,
 * which srt binds back, and the allowlist the host passes in (home-read-allowlist.ts: what
 * Bastion runs from, toolchains, caches), bound back read-only; the HOME secrets are denied by
 * name as well; writes are closed except userData and a private temp dir, and inside userData its
 * `host/` directory is read- and write-denied (the host's, whatever the sidecar does; `secret-read`:
 * the MCP servers' tokens in mcp.json and their data folders are in it, and the sidecar needs
 * nothing there). On Linux srt mounts an empty tmpfs over `host/`, after it has bound userData
 * back (under HOME as well): the sidecar finds the directory empty, what it writes there stays in
 * that tmpfs and never reaches the disk, and the mount point cannot be removed or renamed. On
 * macOS Seatbelt denies reading and writing beneath it. The directory must exist when the sidecar
 * is wrapped, or srt would mount nothing: ensureUserData makes it before a host starts one. The granted
 * workspaces are readable and NOT writable: every write the sidecar's file tools, undo and the
 * write route make is a request the host checks and performs (workspaces/workspace-writes.ts), so
 * code running in a compromised sidecar cannot create a missing `.vscode/settings.json`,
 * `.envrc` or `AGENTS.md` there (EROFS), which no deny of an existing path could have stopped.
 * There is no direct egress (providers go through the host's transport) and no local binding.
 * The result must pass checkSandboxPolicy before it wraps anything.
 *
 * srt also makes some paths writable in every sandbox unasked: its shared TMPDIR (`/tmp/claude`)
 * and convenience dirs under the host user's HOME (`~/.npm/_logs`, `~/.claude/debug`). Those are
 * write-denied here (denies win over allows in srt), so the write roots are exactly ours.
 *
 * Every CLI host's temp dir but its own TMPDIR is read-denied (`secret-read`, bastion-temp-denies.ts),
 * as to commands: the parent of this user's host temp roots, whatever roots come and go in it while
 * the sidecar runs (a deny of each root listed at spawn would miss every Bastion started later,
 * and fail the spawn when one went before bwrap mounted over it). So a compromised sidecar reads
 * no command's, MCP server's or other Bastion's TMPDIR, nor srt's sockets in its host's root; it
 * needs none of them (its wraps have no proxy route). A CLI host's sidecar TMPDIR lies in that
 * parent and srt binds it back (a write path; named readable too, for Seatbelt).
 *
 * What it does not catch: reads outside HOME (the sidecar can read the rest of the disk its user
 * can, /etc and other users' readable files included), and writes to the device files srt keeps
 * open (/dev/null, /dev/tty, the child's stdio); the temp dirs of in-process hosts
 * (bastion-temp-denies.ts).
 */
import { getDefaultWritePaths, type NetworkConfig, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { bastionTempParentOf } from './bastion-temp-denies.js';
import { resolveHomeSecretPaths } from './home-secrets.js';
import { isAtOrUnder } from './sandbox-policy-check.js';

/** srt's unasked write paths, minus the device files the child needs for its stdio. */
export const SRT_UNASKED_WRITE_PATHS: readonly string[] = getDefaultWritePaths().filter(
  (path) => !path.startsWith('/dev/'),
);

/**
 * No direct network at all: an empty allowlist that is strict (no ask callback and no per-command
 * list can widen it), no local binding, no Unix sockets. A fresh object each call; the run_command
 * profile can use the same.
 */
export function noDirectEgress(): NetworkConfig {
  return {
    allowedDomains: [],
    deniedDomains: [],
    strictAllowlist: true,
    allowLocalBinding: false,
    allowAllUnixSockets: false,
  };
}

export interface SidecarSandboxPolicyInput {
  /** The real HOME of the user the host runs as (tests pass a temporary one). */
  home: string;
  /** Bastion's own data dir (auth.json, sessions.db): the sidecar owns these files. */
  userData: string;
  /** Workspace roots the host has granted, already realpath'd. */
  workspaces: readonly string[];
  /** The per-host private temp dir (0700), the sidecar's TMPDIR. */
  privateTemp: string;
  /** The HOME paths bound back read-only: existing allowlist entries and Bastion's own (homeReadPaths()). */
  homeReads: readonly string[];
  /** Paths inside the write roots the sidecar must neither read nor write: userData's `host/` (sidecarHostDenies()). */
  hostDenies: readonly string[];
}

export function buildSidecarSandboxPolicy(input: SidecarSandboxPolicyInput): SandboxRuntimeConfig {
  const secrets = resolveHomeSecretPaths(input.home);
  const otherTemps = bastionTempParentOf(input.privateTemp);
  const ownTempInside = isAtOrUnder(input.privateTemp, otherTemps);
  return {
    network: noDirectEgress(),
    filesystem: {
      denyRead: [input.home, ...secrets, ...input.hostDenies, otherTemps],
      // Bound back readable where they lie under HOME or the temp parent; readable elsewhere as the
      // rest of the disk is.
      allowRead: [...input.homeReads, ...input.workspaces, ...(ownTempInside ? [input.privateTemp] : [])],
      allowWrite: [input.userData, input.privateTemp],
      denyWrite: [...secrets, ...SRT_UNASKED_WRITE_PATHS, ...input.hostDenies],
    },
  };
}
