import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary directory, as a real path (tmpdir may itself be a symlink). */
export function makeTempDir(prefix = 'bastion-daemon-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}
