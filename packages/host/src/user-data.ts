/**
 * userData (`--home`, BASTION_HOME or ~/.bastion): the host's own secret dir. Created 0700; an
 * existing directory with group/other bits is tightened and the fact is reported.
 */
import { chmodSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export function resolveUserDataPath(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = explicit ?? env.BASTION_HOME ?? join(homedir(), '.bastion');
  return isAbsolute(chosen) ? chosen : resolve(chosen);
}

export function ensureUserData(path: string): { path: string; tightened: boolean } {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const mode = statSync(path).mode & 0o777;
  let tightened = false;
  if ((mode & 0o077) !== 0) {
    chmodSync(path, 0o700);
    tightened = true;
  }
  return { path: realpathSync(path), tightened };
}
