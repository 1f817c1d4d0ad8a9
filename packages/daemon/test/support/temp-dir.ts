import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/**
 * A fresh temporary directory, as a real path (tmpdir may itself be a symlink), removed after the
 * test file by `removeDaemonTempDirs` (vitest's setup file). No vitest import here: benchmarks
 * load this module outside vitest, where registering a hook throws.
 */
export function makeTempDir(prefix = 'bastion-daemon-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Remove every directory makeTempDir made in this test file. */
export function removeDaemonTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
