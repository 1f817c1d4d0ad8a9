/**
 * SEC-008: hands an authorization URL — already checked by checkAuthorizationUrl, so exactly the
 * configured authorize endpoint — to the system browser (xdg-open / open, no shell), or prints it
 * on the host's terminal when no opener starts. The URL goes to the user only, never to a log.
 */
import { spawn } from 'node:child_process';
import type { AuthorizationOpener } from './chatgpt-coordinator.js';

export function systemBrowserOpener(options: {
  platform?: NodeJS.Platform;
  /** Where the fallback line goes (the host's terminal). */
  print: (line: string) => void;
}): AuthorizationOpener {
  const platform = options.platform ?? process.platform;
  const opener = platform === 'darwin' ? 'open' : platform === 'linux' ? 'xdg-open' : undefined;
  const print = (url: string) => options.print(`Open this address in your browser to sign in to ChatGPT:\n  ${url}\n`);
  return (url) =>
    new Promise((resolve) => {
      if (opener === undefined) {
        print(url);
        resolve(false);
        return;
      }
      const child = spawn(opener, [url], { stdio: 'ignore', detached: true, shell: false });
      child.once('error', () => {
        print(url);
        resolve(false);
      });
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    });
}
