// The desktop app: served by the host's UI server under /desktop/, after the bridge, under a
// nonce CSP. `html.cspNonce` writes a placeholder the UI server replaces per response.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/desktop/',
  plugins: [react()],
  html: { cspNonce: 'BASTION_CSP_NONCE' },
  // One bundle on purpose: it is read from memory on loopback, and highlight.js's common grammars
  // (most of its size) are needed as soon as the first code block renders.
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 1024 },
});
