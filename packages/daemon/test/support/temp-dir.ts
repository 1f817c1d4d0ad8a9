import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Registered once per test file that imports this module (vitest evaluates it per file), so
// every directory made below is gone after that file's own hooks have closed what used it.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, as a real path (tmpdir may itself be a symlink), removed after the test file. */
export function makeTempDir(prefix = 'bastion-daemon-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}
