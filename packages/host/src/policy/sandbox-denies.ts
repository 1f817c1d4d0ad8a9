/**
 * SEC-004 watchdog, held below the sidecar: what its sandbox read- and write-denies inside its
 * write roots for the host — userData's `host/` (policy.json, the host's audit log, its write
 * journal, the quarantine, mcp.json with the MCP servers' tokens and each server's data folder),
 * so the sidecar, which owns the rest of userData, can neither change what the host keeps nor
 * read it (`secret-read`; nothing the sidecar does needs it).
 * File-tool rules need no sandbox deny any more: the workspace is read-only to the sidecar, and the
 * host evaluates its rules on every write it performs for it (workspaces/workspace-writes.ts).
 *
 * What it does not catch: nothing inside `host/` is readable or writable to the sidecar; outside
 * it, userData is the sidecar's own.
 */
import { hostOnlyDir } from '../user-data.js';

/** Everything inside its write roots the sidecar's sandbox read- and write-denies for the host. */
export function sidecarHostDenies(userData: string): string[] {
  return [hostOnlyDir(userData)];
}
