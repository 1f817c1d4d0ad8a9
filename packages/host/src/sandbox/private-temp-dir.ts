/**
 * Private temp dirs: 0700, made in the system temp dir (or the host's claimed root in it, for a CLI
 * host: host-temp-root.ts) but never the shared temp dir itself. One per host for the sandboxed
 * sidecar's TMPDIR (createPrivateTempDir, removed when the host stops), so SQLite and Node temp
 * files never land where other processes can see them; one per command and per MCP server start
 * (makePrivateTemp). Each is made with the parent of this user's host temp roots beside it, which
 * every sandbox read-denies (bastion-temp-denies.ts).
 */
import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBastionTempParent } from './bastion-temp-denies.js';

export interface PrivateTempDir {
  readonly path: string;
  remove(): void;
}

/** A new private temp dir named `<prefix>XXXXXX` (realpath); the caller removes it. */
export function makePrivateTemp(prefix: string): string {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  chmodSync(path, 0o700);
  try {
    ensureBastionTempParent(path);
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    throw error;
  }
  return path;
}

export function createPrivateTempDir(prefix = 'bastion-sidecar-'): PrivateTempDir {
  const path = makePrivateTemp(prefix);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
