/**
 * The markdown parser and highlighter (markdown-renderer.tsx) are a chunk of their own: index.html
 * fetches it at once, and the app evaluates it after its first render (app.tsx), so a session's
 * newest rows never wait for it. markdown.tsx renders with it once it is in.
 */
import type * as MarkdownRenderer from './markdown-renderer.js';

type Renderer = typeof MarkdownRenderer;

let renderer: Renderer | undefined;
let loading: Promise<Renderer> | undefined;
const listeners = new Set<() => void>();

/** Loads the renderer chunk once; a failed load (the chunk unreachable) is tried again on the next call. */
export function loadMarkdownRenderer(): Promise<Renderer> {
  loading ??= import('./markdown-renderer.js').then(
    (module) => {
      renderer = module;
      for (const listener of listeners) listener();
      return module;
    },
    (failure: unknown) => {
      loading = undefined;
      throw failure;
    },
  );
  return loading;
}

/** For useSyncExternalStore: told once, when the renderer is in. */
export function subscribeMarkdownRenderer(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function loadedMarkdownRenderer(): Renderer | undefined {
  return renderer;
}
