import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { getBastion } from './bastion.js';
import { prefetchHistory } from './components/chat-view.js';
import { parseRoute } from './route.js';
import './styles.css';

// A page opened on a session asks for its newest events at once, in parallel with React's first render.
const bastion = getBastion();
const route = parseRoute(window.location.pathname);
if (bastion && route.page === 'session') prefetchHistory(bastion, route.sessionId);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
