/**
 * SEC-008: hands an authorization URL — already checked by checkAuthorizationUrl, so exactly the
 * configured authorize endpoint — to the system browser (xdg-open / open, no shell), or prints it
 * on the host's terminal when no opener starts. The URL goes to the user only, never to a log.
 */
import { launchSystemOpener } from '../system-opener.js';
import type { AuthorizationOpener } from './chatgpt-coordinator.js';

export function systemBrowserOpener(options: {
  platform?: NodeJS.Platform;
  /** Where the fallback line goes (the host's terminal). */
  print: (line: string) => void;
}): AuthorizationOpener {
  return async (url) => {
    const opened = await launchSystemOpener(url, options.platform ?? process.platform);
    if (!opened) options.print(`Open this address in your browser to sign in to ChatGPT:\n  ${url}\n`);
    return opened;
  };
}
