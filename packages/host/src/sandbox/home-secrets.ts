/**
 * SEC-004 (outer sandbox): the HOME secrets no sandboxed Bastion process may read or write. HOME
 * as a whole is unreadable in every sandbox (home-read-allowlist.ts); these are the known secrets
 * that must stay hidden even where a path under HOME is bound back: no allowlist entry may hold or
 * lie in one, no write root may lie in one, and each is denied by name as well, so one inside a
 * granted workspace or created under a bound-back directory is still hidden. Entries are relative
 * to HOME and resolved against the HOME the host runs with; a trailing `*` is a glob srt expands
 * against the disk at wrap time.
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
  '.vault-token',
  // Other agents' and tools' sign-ins.
  '.codex',
  '.claude/.credentials.json',
  '.config/op',
  // Desktop keyrings and browser profiles (session cookies, saved passwords).
  '.local/share/keyrings',
  '.config/chromium',
  '.config/google-chrome',
  '.mozilla',
  // Shell start-up files: writing one is code execution in the user's next shell, reading one
  // often finds exported tokens.
  '.bashrc',
  '.bash_profile',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.config/fish',
  '.bash_login',
  '.zlogin',
  '.zlogout',
  // Shell histories: commands typed with tokens in them.
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
] as const;

/** The HOME secrets as absolute paths under `home`. */
export function resolveHomeSecretPaths(home: string): string[] {
  return HOME_SECRET_PATHS.map((relative) => join(home, relative));
}
