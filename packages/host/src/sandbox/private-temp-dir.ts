/**
 * The sidecar's private temp dir: one per host, 0700, under the system temp dir but never the
 * shared temp dir itself, and removed when the host stops. It is the sandboxed sidecar's TMPDIR,
 * so SQLite and Node temp files never land where other processes can see them.
 */
import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateTempDir {
  readonly path: string;
  remove(): void;
}

export function createPrivateTempDir(prefix = 'bastion-sidecar-'): PrivateTempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  chmodSync(path, 0o700);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
