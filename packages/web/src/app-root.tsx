/** The app, a chunk of its own: main.tsx has started the session's requests before it loads. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';

export function renderApp(root: HTMLElement): void {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
