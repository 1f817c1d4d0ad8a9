/**
 * The entry: small, so that it runs as soon as it arrives. A page opened on a session asks for
 * its newest events at once; the app (React and the components, app-root.tsx) is fetched
 * meanwhile (index.html preloads it; see vite.config.ts) but evaluated only when the events are
 * in, or after UI_FIRST_RENDER_WAIT_MS: evaluating it, or rendering the shell, while the request
 * is under way would hold the main thread each time the request's IPC and fetch steps wait for
 * it. The shell and the newest messages then paint together, in one render. The markdown
 * renderer is loaded by the app once it has rendered (markdown-loader.ts).
 */
import { UI_FIRST_RENDER_WAIT_MS } from '@bastion/protocol';
import { getBastion } from './bastion.js';
import { openingSettled, prefetchHistory } from './history.js';
import { parseRoute } from './route.js';
import './styles.css';

const bastion = getBastion();
const route = parseRoute(window.location.pathname);
if (bastion && route.page === 'session') prefetchHistory(bastion, route.sessionId);

const root = document.getElementById('root');
if (root) {
  openingSettled(UI_FIRST_RENDER_WAIT_MS)
    .then(() => import('./app-root.js'))
    .then(
      ({ renderApp }) => renderApp(root),
      () => {
        root.textContent = 'Bastion’s interface could not be loaded. Reload the page.';
      },
    );
}
