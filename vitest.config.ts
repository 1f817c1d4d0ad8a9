import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    // Most suites wait on real processes (sidecars, sandboxes, browsers) rather than compute, so
    // more files in flight than cores shortens the run on the 2-core CI machine.
    maxWorkers: 4,
    // Generous: real sandboxes and browsers start slowly on a loaded 2-core machine; nothing here times.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    setupFiles: ['test/support/remove-temp-dirs.ts'],
  },
});
