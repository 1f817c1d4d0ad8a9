/**
 * SEC-004 (outer sandbox): the HOME secrets no sandboxed Bastion process may read or write. The
 * sidecar's policy denies them, and so must the per-command profile of run_command children
 * (commands/), which reuses this list. Entries are relative to HOME and resolved against the HOME
 * the host runs with; a trailing `*` is a glob srt expands against the disk at wrap time.
 *
 * What it does not catch: secrets stored elsewhere (a project's `.env`, a keyring daemon reached
 * over D-Bus, which the sandbox's seccomp filter already cuts off by denying Unix sockets).
 */
import { join } from 'node:path';

export const HOME_SECRET_PATHS = [
  // Remote-login and signing keys.
  '.ssh',
  '.gnupg',
  // Cloud and cluster credentials.
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  // Source-host and package-registry tokens.
  '.config/gh',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials*',
  // Shell start-up files: writing one is code execution in the user's next shell, reading one
  // often finds exported tokens.
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.config/fish',
] as const;

/** The HOME secrets as absolute paths under `home`. */
export function resolveHomeSecretPaths(home: string): string[] {
  return HOME_SECRET_PATHS.map((relative) => join(home, relative));
}
