// The bridge is one classic script (IIFE), served first on every desktop page with the CSP nonce.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    lib: { entry: 'src/bridge.ts', formats: ['iife'], name: 'bastionBridge', fileName: () => 'bridge.js' },
    outDir: 'dist',
    emptyOutDir: true,
    minify: false,
    target: 'es2022',
  },
});
