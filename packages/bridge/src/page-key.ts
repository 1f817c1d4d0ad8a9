/**
 * SEC-004 page key, the bridge's half: the second secret host IPC demands with the host-session
 * cookie (the browser also sends the cookie to every other loopback port; the key it never sends
 * anywhere by itself). The launch redirect lands on `/desktop/#bastion-page-key=<key>`; the
 * bridge runs before any page script, so it takes the key out of the fragment, keeps it in
 * localStorage and removes it from the address bar with the native replaceState (captured before
 * the history guard wraps it) before the app can read or log the URL. localStorage is per origin,
 * so per UI port; every tab of the app shares it, and a later launch overwrites it together with
 * the cookie. The key is read again for each call, so a tab opened earlier follows a newer
 * launch. It never goes on window or in a URL again, and only to host IPC.
 *
 * Only a key that came through a redirect (the launch's: the UI origin's other redirect, `/`,
 * sets an empty fragment of its own) and has the key's form is taken: a link straight to
 * `/desktop/#bastion-page-key=…`, which any page can open, would otherwise store a key of its
 * choosing over the real one and shut every tab out until the next launch.
 *
 * Does not catch script running in a desktop page, which can read localStorage: that page is
 * inside the boundary.
 */
import { DESKTOP_PAGE_KEY_FRAGMENT } from '@bastion/protocol';

const STORAGE_NAME = 'bastion.page-key';
const FRAGMENT_PREFIX = `#${DESKTOP_PAGE_KEY_FRAGMENT}=`;
/** UI_PAGE_KEY_BYTES (32) random bytes as base64url. */
const KEY_FORM = /^[A-Za-z0-9_-]{43}$/;

/** Did this page's navigation come through a redirect (same-origin: the launch's)? */
function redirected(): boolean {
  const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
  return (navigation?.redirectCount ?? 0) > 0;
}

/** Take the key out of the launch redirect's fragment; the answer reads the current key. */
export function installPageKey(): () => string | undefined {
  const replaceState = History.prototype.replaceState.bind(window.history);
  let read: ((name: string) => string | null) | undefined;
  let write: ((name: string, value: string) => void) | undefined;
  try {
    const storage = window.localStorage;
    read = Storage.prototype.getItem.bind(storage);
    write = Storage.prototype.setItem.bind(storage);
  } catch {
    // Storage disabled: the key lives only in this page's closure below.
  }
  let held: string | undefined;
  const { hash, pathname, search } = window.location;
  if (hash.startsWith(FRAGMENT_PREFIX)) {
    const key = hash.slice(FRAGMENT_PREFIX.length);
    if (KEY_FORM.test(key) && redirected()) {
      held = key;
      try {
        write?.(STORAGE_NAME, key);
      } catch {
        // Storage full or refused: this tab still has the key in the closure.
      }
    }
    replaceState(window.history.state, '', `${pathname}${search}`);
  }
  return () => {
    try {
      const stored = read?.(STORAGE_NAME);
      if (typeof stored === 'string') return stored;
    } catch {
      // Fall back to this tab's own key.
    }
    return held;
  };
}
