/**
 * SEC-004 (outer sandbox): the schema check every srt policy Bastion builds must pass before it
 * wraps anything. srt's own schema runs first (it refuses malformed entries and some broad domain
 * patterns); then Bastion's refinements, which fail closed on what would quietly hollow the
 * sandbox out: a `*` or bare-TLD domain, an open local binding or all Unix sockets, a disabled
 * filesystem policy, a write root that is `/`, HOME or one of its ancestors, a system temp dir
 * itself or a glob, any HOME secret missing from the read denies or re-opened by allowRead, and any
 * HOME secret at, under or above a write root missing from the write denies (everywhere else
 * nothing is writable, so a write deny there would change nothing).
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
import { resolveHomeSecretPaths } from './home-secrets.js';

export type SandboxPolicyCheckCode =
  | 'SANDBOX_POLICY_INVALID'
  | 'SANDBOX_POLICY_BROAD_DOMAIN'
  | 'SANDBOX_POLICY_LOCAL_ACCESS'
  | 'SANDBOX_POLICY_FILESYSTEM_DISABLED'
  | 'SANDBOX_POLICY_BROAD_WRITE_ROOT'
  | 'SANDBOX_POLICY_SECRET_NOT_DENIED';

export type SandboxPolicyCheck = { ok: true } | { ok: false; code: SandboxPolicyCheckCode; message: string };

/** Directories that are shared by every process on the machine: never a write root themselves. */
const SHARED_TEMP_DIRS = ['/tmp', '/private/tmp', '/var/tmp', '/private/var/tmp', '/dev/shm'] as const;

const GLOB_CHARS = /[*?[\]{}]/;

function entryPath(entry: FilesystemPathEntry): string {
  return typeof entry === 'string' ? entry : entry.path;
}

export function isAtOrUnder(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function fail(code: SandboxPolicyCheckCode, message: string): SandboxPolicyCheck {
  return { ok: false, code, message };
}

/** `*`, `*.com`, `com`, `localhost`: any host pattern whose named part has no dot is too broad. */
function isBroadDomain(entry: string): boolean {
  const host = entry.startsWith('[') ? entry.slice(1, entry.indexOf(']')) : (entry.split(':')[0] ?? '');
  if (isIP(host) !== 0) return false;
  const named = host.startsWith('*.') ? host.slice(2) : host;
  return named.includes('*') || !named.includes('.') || named.startsWith('.') || named.endsWith('.');
}

function checkWriteRoot(root: string, home: string): SandboxPolicyCheck {
  if (!isAbsolute(root))
    return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `filesystem.allowWrite: "${root}" is not an absolute path`);
  if (GLOB_CHARS.test(root))
    return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `filesystem.allowWrite: "${root}" is a pattern, not a directory`);
  const path = normalize(root).replace(/(.)\/+$/, '$1');
  if (isAtOrUnder(home, path)) {
    return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `filesystem.allowWrite: "${root}" is HOME or contains it`);
  }
  if ((SHARED_TEMP_DIRS as readonly string[]).includes(path)) {
    return fail(
      'SANDBOX_POLICY_BROAD_WRITE_ROOT',
      `filesystem.allowWrite: "${root}" is a shared temp directory; use a private one`,
    );
  }
  if (resolveHomeSecretPaths(home).some((secret) => isAtOrUnder(path, secret.replace(/\*$/, '')))) {
    return fail('SANDBOX_POLICY_BROAD_WRITE_ROOT', `filesystem.allowWrite: "${root}" lies inside a HOME secret`);
  }
  return { ok: true };
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
  const deniedWrites = new Set(filesystem.denyWrite.map(entryPath));
  const writeRoots = filesystem.allowWrite.map(entryPath);
  for (const secret of resolveHomeSecretPaths(home)) {
    const bare = secret.replace(/\*$/, '');
    if (!deniedReads.has(secret))
      return fail('SANDBOX_POLICY_SECRET_NOT_DENIED', `filesystem.denyRead lacks "${secret}"`);
    const writable = writeRoots.some((root) => isAtOrUnder(bare, root) || isAtOrUnder(root, bare));
    if (writable && !deniedWrites.has(secret))
      return fail('SANDBOX_POLICY_SECRET_NOT_DENIED', `filesystem.denyWrite lacks "${secret}"`);
    const reopened = (filesystem.allowRead ?? [])
      .map(entryPath)
      .find((path) => isAtOrUnder(path, bare) || isAtOrUnder(bare, path));
    if (reopened !== undefined)
      return fail('SANDBOX_POLICY_SECRET_NOT_DENIED', `filesystem.allowRead "${reopened}" re-opens "${secret}"`);
  }
  return { ok: true };
}
