/**
 * SEC (agent shell execution), `home-read`: run_command children cannot read ~/.gitconfig (HOME is
 * unreadable to them), so `git commit` would not know who the user is. The host, outside the
 * sandbox, reads only `user.name` and `user.email` from the user's global git configuration and
 * hands them to each command as GIT_AUTHOR_* / GIT_COMMITTER_*; nothing else of that file (aliases,
 * credential helpers, include paths, url rewrites with tokens) reaches the sandbox. A value with a
 * control character or longer than GIT_IDENTITY_MAX_CHARS is dropped.
 *
 * What it does not catch: the name and email themselves are visible to every command (git writes
 * them into every commit anyway).
 */
import { execFile } from 'node:child_process';
import { GIT_IDENTITY_MAX_CHARS, GIT_IDENTITY_READ_TIMEOUT_MS } from '@bastion/protocol';

export type GitIdentityEnv = Partial<
  Record<'GIT_AUTHOR_NAME' | 'GIT_AUTHOR_EMAIL' | 'GIT_COMMITTER_NAME' | 'GIT_COMMITTER_EMAIL', string>
>;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function readGlobalGitValue(home: string, path: string, key: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['config', '--global', '--get', key],
      { env: { HOME: home, PATH: path }, timeout: GIT_IDENTITY_READ_TIMEOUT_MS, maxBuffer: 4 * GIT_IDENTITY_MAX_CHARS },
      (error, stdout) => {
        const value = error ? '' : stdout.replace(/\n$/, '');
        resolve(value.length > 0 && value.length <= GIT_IDENTITY_MAX_CHARS && !CONTROL.test(value) ? value : undefined);
      },
    );
  });
}

/** The user's git identity as environment variables for a command; empty when none is set (or git is missing). */
export async function readGitIdentity(home: string, path: string): Promise<GitIdentityEnv> {
  const [name, email] = await Promise.all([
    readGlobalGitValue(home, path, 'user.name'),
    readGlobalGitValue(home, path, 'user.email'),
  ]);
  return {
    ...(name !== undefined && { GIT_AUTHOR_NAME: name, GIT_COMMITTER_NAME: name }),
    ...(email !== undefined && { GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_EMAIL: email }),
  };
}
