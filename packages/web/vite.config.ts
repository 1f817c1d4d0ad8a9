// The desktop app: served by the host's UI server under /desktop/, after the bridge, under a
// nonce CSP. `html.cspNonce` writes a placeholder the UI server replaces per response.
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// rehype-highlight falls back to lowlight's 37 "common" grammars (~170 KB) and names them even
// when given `languages`, so they would stay in the bundle. Its own import of lowlight gets
// lowlight's createLowlight with an empty fallback; src/components/markdown.tsx passes the
// languages Bastion highlights.
/** What the host replaces with each response's nonce (NONCE_PLACEHOLDER in host src/ui/desktop-assets.ts). */
const NONCE_PLACEHOLDER = 'BASTION_CSP_NONCE';

const LOWLIGHT_WITHOUT_COMMON = '\0lowlight-without-common';
const lowlightCore = fileURLToPath(new URL('../../node_modules/lowlight/lib/index.js', import.meta.url));
const highlightLanguagesOnly = {
  name: 'bastion-highlight-languages-only',
  enforce: 'pre' as const,
  resolveId(source: string, importer: string | undefined) {
    return source === 'lowlight' && importer?.includes('/rehype-highlight/') ? LOWLIGHT_WITHOUT_COMMON : null;
  },
  load(id: string) {
    return id === LOWLIGHT_WITHOUT_COMMON
      ? `export { createLowlight } from ${JSON.stringify(lowlightCore)};\nexport const common = {};\n`
      : null;
  },
};

// The entry (src/main.tsx) is small and imports the app and the markdown renderer dynamically,
// so it can start a session's requests before they are evaluated; index.html still fetches them
// (and what they import) at once, as modulepreload links carrying the CSP nonce.
const BASE = '/desktop/';
const PRELOADED_CHUNKS = new Set(['app-root', 'markdown-renderer']);
const preloadFirstPaintChunks: Plugin = {
  name: 'bastion-preload-first-paint-chunks',
  transformIndexHtml: {
    order: 'post',
    handler(_html, { bundle }) {
      if (!bundle) return [];
      const files = new Set<string>();
      const add = (fileName: string) => {
        const chunk = bundle[fileName];
        if (files.has(fileName) || chunk?.type !== 'chunk' || chunk.isEntry) return;
        files.add(fileName);
        chunk.imports.forEach(add);
      };
      for (const chunk of Object.values(bundle)) {
        if (chunk.type === 'chunk' && chunk.isDynamicEntry && PRELOADED_CHUNKS.has(chunk.name)) add(chunk.fileName);
      }
      return [...files].map((file) => ({
        tag: 'link',
        attrs: { rel: 'modulepreload', crossorigin: true, href: `${BASE}${file}`, nonce: NONCE_PLACEHOLDER },
        injectTo: 'head' as const,
      }));
    },
  },
};

export default defineConfig({
  base: BASE,
  plugins: [highlightLanguagesOnly, preloadFirstPaintChunks, react()],
  html: { cspNonce: NONCE_PLACEHOLDER },
  // Settings is a lazily loaded chunk (see src/app.tsx), not preloaded.
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 1024 },
});
