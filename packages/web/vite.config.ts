// The desktop app: served by the host's UI server under /desktop/, after the bridge, under a
// nonce CSP. `html.cspNonce` writes a placeholder the UI server replaces per response.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/desktop/',
  plugins: [react()],
  html: { cspNonce: 'BASTION_CSP_NONCE' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
});
