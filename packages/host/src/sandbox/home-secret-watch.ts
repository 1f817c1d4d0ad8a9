/**
 * SEC-004 (outer sandbox): srt resolves the HOME-secret denies against the disk when it wraps, and
 * a deny only hides what existed then. bwrap's `--ro-bind / /` is live, so a secret created while
 * the sidecar runs (`aws configure`, a first `ssh-keygen`), or replaced by rename (an editor's
 * atomic save of ~/.bashrc), would be visible inside. This watcher sees such a change in the
 * directories that hold the secrets and asks the host to respawn the sidecar, whose new wrap
 * denies the secret as it now is.
 *
 * What it does not catch: the short window between the change and the respawn (a compromised
 * sidecar polling for the file can read it then); changes inside a denied directory need no
 * respawn, since the whole directory is already hidden.
 */
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { HOME_SECRET_RESTART_DEBOUNCE_MS } from '@bastion/protocol';
import { resolveHomeSecretPaths } from './home-secrets.js';

export interface HomeSecretWatch {
  close(): void;
}

/** Does a directory entry `name` stand for `secret` (a path, or a path ending in `*`)? */
function namesSecret(name: string, secret: string): boolean {
  const last = basename(secret);
  return last.endsWith('*') ? name.startsWith(last.slice(0, -1)) : name === last;
}

export function watchHomeSecrets(home: string, onChange: () => void): HomeSecretWatch {
  const secrets = resolveHomeSecretPaths(home);
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const changed = () => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      arm();
      onChange();
    }, HOME_SECRET_RESTART_DEBOUNCE_MS);
  };

  /** Watch each existing directory that holds a secret; a directory that appears later is seen by its own parent's watch. */
  function arm(): void {
    for (const secret of secrets) {
      for (let dir = dirname(secret); dir.startsWith(home); dir = dirname(dir)) {
        if (watchers.has(dir) || !existsSync(dir)) continue;
        try {
          const watcher = watch(dir, { persistent: false }, (_event, name) => {
            // A secret, or a directory on the way to one, was created, removed or renamed.
            if (
              name === null ||
              secrets.some((s) => dirname(s) === dir && namesSecret(name, s)) ||
              secrets.some((s) => s.startsWith(`${dir}/${name}/`))
            )
              changed();
          });
          watcher.on('error', () => {
            watcher.close();
            watchers.delete(dir);
          });
          watchers.set(dir, watcher);
        } catch {
          // Gone between the check and the watch: its parent's watch reports it coming back.
        }
        if (dir === home) break;
      }
    }
  }

  arm();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
