/**
 * vitest setup file: after each test file, remove the temporary directories it made with
 * makeTempDir (the shared one and the daemon's own). Registered before the file's own hooks, so it
 * runs after them (vitest runs after hooks in reverse), once every host the file started has stopped.
 * A host a test SIGKILLed left its temp root in the system temp dir, journaled in its home: it is
 * removed first, as that home's next start would have.
 *
 * It runs in every test file, so it imports only the two modules it uses (not the packages' whole
 * testing barrels, srt among them): half a second of each file's setup.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sweepDeadHostTempRoots } from '@bastion/host/testing/temp-roots';
import { removeTempDirs } from '@bastion/test-support/temp-dirs';
import { removeDaemonTempDirs } from '../../packages/daemon/test/support/temp-dir.js';

/** How deep under a temp dir a home's `host` directory is looked for (`--home dir`, `HOME=dir`, a home in a subdir). */
const HOME_DEPTH = 3;

function sweepHomesUnder(dir: string, depth = 0): void {
  sweepDeadHostTempRoots(join(dir, 'host'));
  if (depth >= HOME_DEPTH) return;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') {
      sweepHomesUnder(join(dir, entry.name), depth + 1);
    }
  }
}

afterAll(() => {
  removeTempDirs(sweepHomesUnder);
  removeDaemonTempDirs();
});
