import { defineConfig } from 'vitest/config';

/**
 * Unit tests that replace a module (vi.mock) need a module graph of their own: in a shared one, a
 * module an earlier file imported keeps the real one, and the replacement would leak into later files.
 */
const MOCKING_UNIT_TESTS = ['packages/daemon/src/undo/session-changes.test.ts'];

export default defineConfig({
  test: {
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
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts'],
          exclude: [...MOCKING_UNIT_TESTS, '**/node_modules/**', '**/dist/**'],
          // A package's own unit tests share one module graph per worker instead of importing it
          // afresh for each file: a third of the CPU time (29 against 82 s here). Each puts back what it
          // changes (fake timers, PATH); spies are restored after each test.
          isolate: false,
          restoreMocks: true,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', ...MOCKING_UNIT_TESTS],
        },
      },
    ],
  },
});
