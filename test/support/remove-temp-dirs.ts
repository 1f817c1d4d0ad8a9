/**
 * vitest setup file: after each test file, remove the temporary directories it made with
 * makeTempDir (the shared one and the daemon's own). Registered before the file's own hooks, so it
 * runs after them (vitest runs after hooks in reverse), once every host the file started has stopped.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from '@bastion/test-support';
import { removeDaemonTempDirs } from '../../packages/daemon/test/support/temp-dir.js';

afterAll(() => {
  removeTempDirs();
  removeDaemonTempDirs();
});
