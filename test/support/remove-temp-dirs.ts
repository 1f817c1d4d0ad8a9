/**
 * vitest setup file: after each test file, remove the temporary directories it made with
 * makeTempDir. Registered before the file's own hooks, so it runs after them (vitest runs after
 * hooks in reverse), once every host the file started has stopped.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from '@bastion/test-support';

afterAll(removeTempDirs);
