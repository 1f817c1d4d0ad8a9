/**
 * SEC-004 (outer sandbox): the schema check every srt policy Bastion builds must pass before it
 * wraps anything. srt's own schema runs first (it refuses malformed entries and some broad domain
 * patterns); then Bastion's refinements, which fail closed on what would quietly hollow the
 * sandbox out: a `*` or bare-TLD domain, an open local binding or all Unix sockets, a disabled
 * filesystem policy, a write root that is `/`, HOME or one of its ancestors, a system temp dir
 * itself or a glob, or that lies in or holds a HOME secret; HOME itself missing from the read
 * denies (`home-read`: HOME is unreadable but for what allowRead binds back); an allowRead path
 * that is not absolute, is HOME or above it, or holds or lies in a HOME secret; and any HOME secret
 * missing from the read denies. No write root
 * can reach a HOME secret (one that holds or lies in a secret is refused), so a secret's write
 * deny is the builders' defense in depth (a secret symlinked into a root), not a rule here.
 *
 * Shared by the sidecar policy (sidecar-sandbox-policy.ts) and the per-command profile of
 * run_command children, so both are refused by the same rules.
 *
 * What it does not catch: a narrow-looking but wrong root (a workspace the user granted that
 * happens to hold secrets), or an allowed domain that is itself an exfiltration channel.
 */
import { isIP } from 'node:net';
import { isAbsolute, normalize, sep } from 'node:path';
import {
  SandboxRuntimeConfigSchema,
  type FilesystemPathEntry,
  type SandboxRuntimeConfig,
} from '@anthropic-ai/sandbox-runtime';
import type { SandboxPolicyErrorCode } from '@bastion/protocol';
import { resolveHomeSecretPaths } from './home-secrets.js';

export type SandboxPolicyCheck = { ok: true } | { ok: false; code: SandboxPolicyErrorCode; message: string };

/** Directories that are shared by every process on the machine: never a write root themselves. */
const SHARED_TEMP_DIRS = ['/tmp', '/private/tmp', '/var/tmp', '/private/var/tmp', '/dev/shm'] as const;

const GLOB_CHARS = /[*?[\]{}]/;

function entryPath(entry: FilesystemPathEntry): string {
  return typeof entry === 'string' ? entry : entry.path;
}

export function isAtOrUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function fail(code: SandboxPolicyErrorCode, message: string): SandboxPolicyCheck {
  return { ok: false, code, message };
}

/** `*`, `*.com`, `com`, `localhost`: any host pattern whose named part has no dot is too broad. */
function isBroadDomain(entry: string): boolean {
  const host = entry.startsWith('[') ? entry.slice(1, entry.indexOf(']')) : (entry.split(':')[0] ?? '');
  if (isIP(host) !== 0) return false;
  const named = host.startsWith('*.') ? host.slice(2) : host;
  return named.includes('*') || !named.includes('.') || named.startsWith('.') || named.endsWith('.');
}

function checkWriteRoot(root: string, home: string, field = 'filesystem.allowWrite'): SandboxPolicyCheck {
  if (!isAbsolute(root)) return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `${field}: "${root}" is not an absolute path`);
  if (GLOB_CHARS.test(root))
    return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `${field}: "${root}" is a pattern, not a directory`);
  const path = normalize(root).replace(/(.)\/+$/, '$1');
  if (isAtOrUnder(home, path)) {
    return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `${field}: "${root}" is HOME or contains it`);
  }
  if ((SHARED_TEMP_DIRS as readonly string[]).includes(path)) {
    return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `${field}: "${root}" is a shared temp directory; use a private one`);
  }
  for (const secret of resolveHomeSecretPaths(home)) {
    const bare = secret.replace(/\*$/, '');
    if (isAtOrUnder(path, bare))
      return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `${field}: "${root}" lies inside a HOME secret`);
    // Bound back into the hidden HOME, it would show the secret, and one created there later too.
    if (isAtOrUnder(bare, path))
      return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `${field}: "${root}" holds the HOME secret "${secret}"`);
  }
  return { ok: true };
}

/**
 * A workspace root is a write root even where the sidecar's view of it is read-only: the host
 * writes there for the sidecar (workspaces/workspace-writes.ts) and commands write there. So it is
 * refused on the same grounds (HOME or above, a shared temp dir, a HOME secret in or around it).
 */
export function checkWorkspaceRoot(root: string, home: string): SandboxPolicyCheck {
  return checkWriteRoot(root, home, 'workspace');
}

/** Why `path` may not be bound back readable under `home`, or undefined when it may. */
export function homeReadProblem(
  path: string,
  home: string,
): { code: SandboxPolicyErrorCode; reason: string } | undefined {
  if (!isAbsolute(path) || GLOB_CHARS.test(path))
    return { code: 'SANDBOX_POLICY_HOME_READABLE', reason: 'is a pattern or not an absolute path' };
  const normalized = normalize(path).replace(/(.)\/+$/, '$1');
  if (isAtOrUnder(home, normalized)) return { code: 'SANDBOX_POLICY_HOME_READABLE', reason: 'is HOME or contains it' };
  for (const secret of resolveHomeSecretPaths(home)) {
    const bare = secret.replace(/\*$/, '');
    if (isAtOrUnder(normalized, bare) || isAtOrUnder(bare, normalized))
      return { code: 'SANDBOX_POLICY_SECRET_NOT_DENIED', reason: `re-opens the HOME secret "${secret}"` };
  }
  return undefined;
}

/**
 * Check an srt policy against srt's schema and Bastion's refinements. `home` is the HOME the
 * policy's secret denies were resolved against.
 */
export function checkSandboxPolicy(policy: SandboxRuntimeConfig, home: string): SandboxPolicyCheck {
  const parsed = SandboxRuntimeConfigSchema.safeParse(policy);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail('SANDBOX_POLICY_INVALID', `${issue?.path.join('.') ?? 'policy'}: ${issue?.message ?? 'invalid'}`);
  }
  const { network, filesystem } = policy;
  for (const entry of network.allowedDomains) {
    if (isBroadDomain(entry))
      return fail('SANDBOX_POLICY_BROAD_DOMAIN', `network.allowedDomains: "${entry}" is too broad`);
  }
  if (network.allowLocalBinding === true)
    return fail('SANDBOX_POLICY_LOCAL_ACCESS', 'network.allowLocalBinding must not be true');
  if (network.allowAllUnixSockets === true)
    return fail('SANDBOX_POLICY_LOCAL_ACCESS', 'network.allowAllUnixSockets must not be true');
  if ((network.allowUnixSockets ?? []).length > 0)
    return fail('SANDBOX_POLICY_LOCAL_ACCESS', 'network.allowUnixSockets must be empty');
  if (filesystem.disabled === true)
    return fail('SANDBOX_POLICY_FILESYSTEM_DISABLED', 'filesystem.disabled must not be true');
  for (const entry of filesystem.allowWrite) {
    const result = checkWriteRoot(entryPath(entry), home);
    if (!result.ok) return result;
  }
  const deniedReads = new Set(filesystem.denyRead.map(entryPath));
  if (!deniedReads.has(home)) return fail('SANDBOX_POLICY_HOME_READABLE', `filesystem.denyRead lacks HOME ("${home}")`);
  for (const path of (filesystem.allowRead ?? []).map(entryPath)) {
    const problem = homeReadProblem(path, home);
    if (problem !== undefined) return fail(problem.code, `filesystem.allowRead "${path}" ${problem.reason}`);
  }
  for (const secret of resolveHomeSecretPaths(home)) {
    if (!deniedReads.has(secret))
      return fail('SANDBOX_POLICY_SECRET_NOT_DENIED', `filesystem.denyRead lacks "${secret}"`);
  }
  return { ok: true };
}
