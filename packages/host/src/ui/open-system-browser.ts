/**
 * Opens the UI's launch link in the system browser. Only exact-loopback http URLs are handed over,
 * so this cannot become a generic "launch this" primitive. Resolves false when nothing was opened;
 * the caller then prints the URL instead.
 */
import { launchSystemOpener } from '../system-opener.js';

const LOOPBACK_URL = /^http:\/\/127\.0\.0\.1:[1-9][0-9]{0,4}\/[A-Za-z0-9/._~?=&%-]*$/;

export function openSystemBrowser(url: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
  if (!LOOPBACK_URL.test(url)) return Promise.resolve(false);
  return launchSystemOpener(url, platform);
}
