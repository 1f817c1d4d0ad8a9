/**
 * SEC (agent shell execution), the kernel-level finish of the secret-dir guard: the srt profile
 * ONE run_command child runs under, built per command. It denies reads of HOME as a whole
 * (`home-read`: only the workspace, the scratch dir and the allowlist of home-read-allowlist.ts
 * are bound back, the allowlist read-only), of the HOME secrets by name (the sidecar's own list,
 * reused), AND of the host's userData, which the sidecar itself must keep
 * reading; that closes the spec's admitted gap, where `sh -c` or `python3 -c` in `auto` could read
 * auth.json by a computed path. Writes are allowed only in the session's workspace root, its own
 * scratch dir (inside userData, re-opened alone, so every other session's stays denied) and a
 * private temp dir made for this command; the HOME secrets are write-denied where a write root could
 * reach them. No network: an empty strict allowlist, and no relay to srt's proxy. Every other
 * Bastion temp dir of this user's CLI hosts is read-denied (bastion-temp-denies.ts), under a CLI
 * host and an in-process one alike: other commands', MCP servers' (which run under this profile
 * too), the sidecars' and other Bastions' private TMPDIRs.
 *
 * Inside the workspace, the files that make code run later OUTSIDE the sandbox are write-denied:
 * shell and tool start-up files, editor task folders, and everything git reads configuration,
 * hooks or repository locations from (git-write-protections.ts). srt has such a list of its own,
 * but resolves it against the host process's cwd, not the command's; so it is applied here
 * explicitly, against the workspace root, for each that exists (bound read-only). Each that is
 * missing (a new `.envrc`, AGENTS.md, `.vscode`…) gets no deny and so no placeholder (one would
 * show in the user's `git status`, and each costs srt's wrap): the placeholder warden guards it and
 * moves to quarantine what the command creates there, and the result says so.
 *
 * What it does not catch: reads of anything else outside HOME the user can read (the rest of the disk); writes
 * to the device files srt keeps writable (/dev/null and the child's stdio); a missing protected
 * path read by a tool outside the sandbox in the moment before the warden moves it; the temp dirs
 * of an in-process host, which claimed no root (bastion-temp-denies.ts); for the steering files
 * below the root, see nested-protections.ts; for git, git-write-protections.ts.
 */
import { basename, join } from 'node:path';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { bastionTempParentOf } from '../sandbox/bastion-temp-denies.js';
import { resolveHomeSecretPaths } from '../sandbox/home-secrets.js';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';
import { noDirectEgress, SRT_UNASKED_WRITE_PATHS } from '../sandbox/sidecar-sandbox-policy.js';
import { PROJECT_INSTRUCTION_FILES, STEERING_PATHS } from '../workspaces/steering-paths.js';

/** Relative to the workspace root: written by a command, each would run code later, unsandboxed. */
export const WORKSPACE_WRITE_PROTECTED = [
  // Git's own directories: git-write-protections.ts.
  '.gitmodules',
  '.gitconfig',
  // Shell and tool start-up files read from the project directory.
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  // Editor and agent configuration that runs tasks, tools or hooks, and direnv's `.envrc`: the list
  // the file tools are refused too (steering-paths.ts). Claude Code runs the hooks of its settings
  // unsandboxed whenever the user starts it here.
  ...STEERING_PATHS,
  // Project instructions: read into every later run's system prompt (the file tools ask before writing them).
  ...PROJECT_INSTRUCTION_FILES,
] as const;

/**
 * The absolute workspace paths to write-deny: each protected path that exists (`exists` asks without
 * following symlinks). Denying all the missing ones too costs srt's wrap several times over
 * while a command races renames in the workspace (measured by fs-race.test.ts), so a missing one
 * is guarded instead (workspaceGuardsWhenAbsent()).
 */
export function workspaceWriteProtections(root: string, exists: (path: string) => boolean): string[] {
  return WORKSPACE_WRITE_PROTECTED.map((relative) => join(root, relative)).filter(exists);
}

/**
 * A protected path that may be created freely: `.gitmodules` (`git submodule add` writes a new one,
 * and a new one runs nothing, see git-write-protections.ts; an existing one is denied). srt's own
 * list names it too; the executor neither placeholders nor guards it.
 */
export function isHarmlessWhenNew(path: string): boolean {
  return basename(path) === '.gitmodules';
}

/**
 * The paths the placeholder warden guards for a command (what appears there is moved to quarantine
 * during and after it): for each protected path that is absent, its first absent component (a
 * missing `.claude` is guarded whole, as srt would mount it), but for isHarmlessWhenNew().
 */
export function workspaceGuardsWhenAbsent(root: string, exists: (path: string) => boolean): string[] {
  const guards = new Set<string>();
  for (const relative of WORKSPACE_WRITE_PROTECTED) {
    if (isHarmlessWhenNew(relative)) continue;
    let path = root;
    for (const segment of relative.split('/')) {
      path = join(path, segment);
      if (!exists(path)) {
        guards.add(path);
        break;
      }
    }
  }
  return [...guards];
}

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
  /** The workspace paths to write-deny, from workspaceWriteProtections() and gitWriteProtections(). */
  protectedInWorkspace: readonly string[];
  /** Where a path really is (symlinks resolved), or undefined when nothing is there. */
  realPath: (path: string) => string | undefined;
  /** The HOME paths bound back read-only: existing allowlist entries (homeReadPaths()). */
  homeReads: readonly string[];
}

/**
 * The HOME secrets a command could write through its write roots: at, under or above one, by
 * their own path or, for a symlink, by where it points (a glob entry is always kept). Everywhere
 * else nothing is writable, so a write deny there changes nothing, and srt would still resolve it
 * on every wrap, a measurable share of the wrap's time (bench/README.md).
 */
function secretsInWriteReach(
  secrets: readonly string[],
  roots: readonly string[],
  realPath: CommandProfileInput['realPath'],
): string[] {
  return secrets.filter((secret) => {
    if (secret.endsWith('*')) return true;
    const places = [secret, realPath(secret)].filter((place): place is string => place !== undefined);
    return roots.some((root) => places.some((place) => isAtOrUnder(place, root) || isAtOrUnder(root, place)));
  });
}

export function buildCommandSandboxProfile(input: CommandProfileInput): SandboxRuntimeConfig {
  const secrets = resolveHomeSecretPaths(input.home);
  const writable = [
    input.workspaceRoot,
    ...(input.scratchDir === undefined ? [] : [input.scratchDir]),
    input.privateTemp,
  ];
  // Every other command's, MCP server's and Bastion's temp dir (bastion-temp-denies.ts): the
  // parent of the claimed roots is denied; srt binds the private temp dir back as a write path
  // when it lies inside, and it is named readable too, for Seatbelt, where a write allow does not
  // lift a read deny.
  const otherTemps = bastionTempParentOf(input.privateTemp);
  const ownTempInside = isAtOrUnder(input.privateTemp, otherTemps);
  return {
    network: noDirectEgress(),
    filesystem: {
      denyRead: [input.home, ...secrets, input.userData, otherTemps],
      allowRead: [...input.homeReads, ...(ownTempInside ? [input.privateTemp] : [])],
      allowWrite: [...new Set(writable)],
      // srt's shared /tmp/claude is write-denied: a command's TMPDIR is its own private dir.
      denyWrite: [
        ...secretsInWriteReach(secrets, writable, input.realPath),
        ...SRT_UNASKED_WRITE_PATHS,
        ...input.protectedInWorkspace,
      ],
    },
  };
}
