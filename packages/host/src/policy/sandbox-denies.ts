/**
 * SEC-004 watchdog, held below the sidecar: what its sandbox write-denies inside its write roots
 * for the host — userData's `host/` (policy.json, the host's audit log, its write journal and the
 * quarantine), so the sidecar, which owns the rest of userData, cannot change what the host keeps.
 * File-tool rules need no sandbox deny any more: the workspace is read-only to the sidecar, and the
 * host evaluates its rules on every write it performs for it (workspaces/workspace-writes.ts).
 *
 * What it does not catch: nothing inside `host/` is writable to the sidecar; outside it, userData
 * is the sidecar's own.
 */
import { hostOnlyDir } from '../user-data.js';

/** Everything inside its write roots the sidecar's sandbox write-denies for the host. */
export function sidecarWriteDenies(userData: string): string[] {
  return [hostOnlyDir(userData)];
}
