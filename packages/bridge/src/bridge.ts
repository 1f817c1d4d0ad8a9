/**
 * The bridge (SEC-004, the spec's preload): the first script of every desktop page. It defines
 * `window.bastion` — not writable, not configurable, deeply frozen — only when the document's
 * path is /desktop or under /desktop/; on any other page it defines nothing at all. It also
 * installs the history guard, and takes the host session's page key out of the launch redirect's
 * URL fragment (page-key.ts). Does not catch a bug inside /desktop that runs attacker script:
 * that script can use window.bastion like the app does; CSP and the daemon perimeter still hold.
 */
import { createApi } from './create-api.js';
import { deepFreeze } from './deep-freeze.js';
import { isDesktopPath } from './desktop-path.js';
import { installHistoryGuard } from './history-guard.js';
import { installPageKey } from './page-key.js';
import { createTransport } from './transport.js';

if (isDesktopPath(window.location.pathname)) {
  // First: it uses the native replaceState to take the key out of the address bar.
  const pageKey = installPageKey();
  installHistoryGuard();
  Object.defineProperty(window, 'bastion', {
    value: deepFreeze(createApi(createTransport(pageKey))),
    writable: false,
    configurable: false,
    enumerable: false,
  });
}
