/** Client-side routes, all under /desktop (the bridge's history guard refuses anything else). */
import { useCallback, useEffect, useState } from 'react';

/** A card of Settings' Models tab that a failed run's advice sends the user to. */
export type SettingsCard = 'keys' | 'endpoints' | 'chatgpt';

/**
 * `mcpFor`: Settings opened at the MCP servers of that project (`/mcp` in a session); `card`: at
 * that card of the Models tab (a failed run's Open Settings). Neither is in the path.
 */
export type Route =
  | { page: 'home' }
  | { page: 'session'; sessionId: string }
  | { page: 'settings'; mcpFor?: string | undefined; card?: SettingsCard | undefined };

export function parseRoute(path: string): Route {
  const session = /^\/desktop\/sessions\/([^/]+)$/.exec(path);
  if (session?.[1]) return { page: 'session', sessionId: decodeURIComponent(session[1]) };
  if (path === '/desktop/settings') return { page: 'settings' };
  return { page: 'home' };
}

export function routePath(route: Route): string {
  switch (route.page) {
    case 'home':
      return '/desktop/';
    case 'settings':
      return '/desktop/settings';
    case 'session':
      return `/desktop/sessions/${encodeURIComponent(route.sessionId)}`;
  }
}

export function useRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((next: Route) => {
    window.history.pushState(null, '', routePath(next));
    setRoute(next);
  }, []);
  return [route, navigate];
}
