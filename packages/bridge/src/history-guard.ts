/**
 * SEC-004: an exposed desktop page may not turn itself into a non-desktop URL. pushState and
 * replaceState to a same-origin URL outside /desktop throw (cross-origin ones already throw);
 * if a history entry outside /desktop is reached anyway (popstate), the page is replaced by
 * /desktop/. Both are locked: not writable, not configurable. Does not catch a cross-document
 * navigation; the UI server answers those with 404 pages, which get no bridge.
 */
import { DESKTOP_HOME, isDesktopPath } from './desktop-path.js';

type HistoryMethod = (this: History, data: unknown, unused: string, url?: string | URL | null) => void;

function guard(original: HistoryMethod, name: string): HistoryMethod {
  return function guardedHistoryMethod(this: History, data, unused, url) {
    if (url !== undefined && url !== null) {
      const target = new URL(String(url), window.location.href);
      if (target.origin === window.location.origin && !isDesktopPath(target.pathname)) {
        throw new DOMException(`history.${name} outside /desktop is blocked`, 'SecurityError');
      }
    }
    original.call(this, data, unused, url);
  };
}

export function installHistoryGuard(): void {
  const prototype = History.prototype;
  for (const name of ['pushState', 'replaceState'] as const) {
    const locked = {
      value: guard(Reflect.get(prototype, name) as HistoryMethod, name),
      writable: false,
      configurable: false,
      enumerable: true,
    };
    Object.defineProperty(prototype, name, locked);
    Object.defineProperty(window.history, name, locked);
  }
  window.addEventListener('popstate', () => {
    if (!isDesktopPath(window.location.pathname)) window.location.replace(DESKTOP_HOME);
  });
}
