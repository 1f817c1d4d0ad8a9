/**
 * SEC-004: the bridge's scope. `location.pathname` is already normalised by the URL parser, so
 * `/desktop/../x` arrives as `/x`; `/desktopX` is not a desktop path.
 */
export const DESKTOP_HOME = '/desktop/';

export function isDesktopPath(path: string): boolean {
  return path === '/desktop' || path.startsWith('/desktop/');
}
