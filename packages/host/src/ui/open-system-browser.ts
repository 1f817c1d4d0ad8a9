/**
 * The host's `shell.openExternal`: hands a loopback URL to the system browser (xdg-open on Linux,
 * open on macOS) without a shell. Only exact-loopback http URLs are handed over; anything else is
 * refused, so this cannot become a generic "launch this" primitive. Resolves false when no opener
 * could be started; the caller then prints the URL instead.
 */
import { spawn } from 'node:child_process';

const LOOPBACK_URL = /^http:\/\/127\.0\.0\.1:[1-9][0-9]{0,4}\/[A-Za-z0-9/._~?=&%-]*$/;

export function openSystemBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  const opener = platform === 'darwin' ? 'open' : platform === 'linux' ? 'xdg-open' : undefined;
  if (opener === undefined || !LOOPBACK_URL.test(url)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true, shell: false });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
