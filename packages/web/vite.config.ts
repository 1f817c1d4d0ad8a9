// The desktop app: served by the host's UI server under /desktop/, after the bridge, under a
// nonce CSP. `html.cspNonce` writes a placeholder the UI server replaces per response.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// rehype-highlight falls back to lowlight's 37 "common" grammars (~170 KB) and names them even
// when given `languages`, so they would stay in the bundle. Its own import of lowlight gets
// lowlight's createLowlight with an empty fallback; src/components/markdown.tsx passes the
// languages Bastion highlights.
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

export default defineConfig({
  base: '/desktop/',
  plugins: [highlightLanguagesOnly, react()],
  html: { cspNonce: 'BASTION_CSP_NONCE' },
  // Settings is a lazily loaded chunk (see src/app.tsx); the rest is what a session's first paint needs.
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 1024 },
});
