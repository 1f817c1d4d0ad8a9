import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh temporary directory, removed after the test file by `removeTempDirs` (vitest's setup file). */
export function makeTempDir(prefix = 'bastion-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Remove every directory makeTempDir made in this test file, each after `beforeRemove` has seen it. */
export function removeTempDirs(beforeRemove: (dir: string) => void = () => undefined): void {
  for (const dir of made.splice(0)) {
    beforeRemove(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
