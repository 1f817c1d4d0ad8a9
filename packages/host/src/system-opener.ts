/**
 * The host's one way to hand a URL to the system browser (the spec's `shell.openExternal`):
 * xdg-open on Linux, open on macOS, no shell. Callers check the URL first — the UI launch link and
 * the checked ChatGPT authorization URL are the only ones. Resolves false when no opener started.
 */
import { spawn } from 'node:child_process';

export function launchSystemOpener(url: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const opener = platform === 'darwin' ? 'open' : platform === 'linux' ? 'xdg-open' : undefined;
  if (opener === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true, shell: false });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
