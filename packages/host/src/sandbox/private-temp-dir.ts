/**
 * Private temp dirs: 0700, made in the host's claimed temp root (host-temp-root.ts: every host
 * claims one, a CLI host for its whole process, an in-process host for itself), never in the shared
 * temp dir itself. One per host for the sandboxed sidecar's TMPDIR (createPrivateTempDir, removed
 * when the host stops), so SQLite and Node temp files never land where other processes can see
 * them; one per command and per MCP server start (makePrivateTemp). The root lies in the parent of
 * this user's host temp roots, which every sandbox read-denies (bastion-temp-denies.ts); a dir made
 * elsewhere (`base` left to the process's temp dir: a command executor built without a host, in
 * tests) is made with that parent beside it, denied the same way.
 */
import { chmodSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBastionTempParent } from './bastion-temp-denies.js';

export interface PrivateTempDir {
  readonly path: string;
  remove(): void;
}

/** A new private temp dir named `<prefix>XXXXXX` in `base` (realpath); the caller removes it. */
export function makePrivateTemp(prefix: string, base = tmpdir()): string {
  const path = realpathSync(mkdtempSync(join(base, prefix)));
  chmodSync(path, 0o700);
  try {
    ensureBastionTempParent(path);
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    throw error;
  }
  return path;
}

/** The sidecar's TMPDIR, `bastion-sidecar-XXXXXX` in `base`, with its removal. */
export function createPrivateTempDir(base = tmpdir()): PrivateTempDir {
  const path = makePrivateTemp('bastion-sidecar-', base);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
