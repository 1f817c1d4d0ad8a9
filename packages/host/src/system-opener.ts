/**
 * The host's one way to hand a URL to the system browser (the spec's `shell.openExternal`):
 * xdg-open on Linux, open on macOS, no shell. Callers check the URL first — the UI launch link and
 * the checked ChatGPT authorization URL are the only ones. Resolves true only when the opener
 * exited 0 or was still running after SYSTEM_OPENER_VERDICT_MS (a browser it started in the
 * foreground); an opener that is missing or exits with an error (no browser on this machine)
 * resolves false, so the caller prints the URL instead of claiming it opened.
 */
import { spawn } from 'node:child_process';
import { SYSTEM_OPENER_VERDICT_MS } from '@bastion/protocol';
import { userEnvironment } from './sandbox/host-temp-root.js';

export function launchSystemOpener(url: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const opener = platform === 'darwin' ? 'open' : platform === 'linux' ? 'xdg-open' : undefined;
  if (opener === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    // The user's own TMPDIR: a browser it starts outlives the host's temp root.
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true, shell: false, env: userEnvironment() });
    const verdict = setTimeout(() => {
      child.unref();
      resolve(true);
    }, SYSTEM_OPENER_VERDICT_MS);
    child.once('error', () => {
      clearTimeout(verdict);
      resolve(false);
    });
    child.once('exit', (code) => {
      clearTimeout(verdict);
      resolve(code === 0);
    });
  });
}
