/**
 * The host's audit log as calls rather than lines. For a command, a file write or an MCP tool the
 * host answers twice: once to the sidecar's `policy.check` before the call (`check`), and again
 * where the host itself runs it (`command`, `write`, `mcp`), which is the answer it enforces. The
 * log keeps them as two lines; the page shows them as one call with both stages.
 */
import type { HostAuditEntry } from '@bastion/protocol';

/** One call: its check, its enforcement, or both; a line from before stages were recorded stands alone. */
export interface HostAuditCall {
  /** The line that stands for the call: its check when the page holds it, else its only line. */
  first: HostAuditEntry;
  check?: HostAuditEntry;
  enforced?: HostAuditEntry;
}

/** Lines of one call name the same tool, program, session and run (the sidecar's word for the last two). */
function sameCall(one: HostAuditEntry, other: HostAuditEntry): boolean {
  return (
    one.tool === other.tool &&
    one.command === other.command &&
    one.session_id === other.session_id &&
    one.run_id === other.run_id
  );
}

/** A check the host refused never reached the host's own run, so it cannot be an enforcement's check. */
const ranAfter = (check: HostAuditEntry) => check.verdict !== 'deny' && check.verdict !== 'hard-deny';

/**
 * Lines newest first (as the log pages them) into calls, newest first: each enforcement takes the
 * nearest older unclaimed check of the same call. A call whose check lies on a page not read yet
 * shows its enforcement alone until that page is read.
 */
export function groupHostAuditCalls(entries: readonly HostAuditEntry[]): HostAuditCall[] {
  const claimed = new Set<number>();
  const calls: HostAuditCall[] = [];
  entries.forEach((entry, index) => {
    if (claimed.has(index)) return;
    if (entry.stage === undefined) {
      calls.push({ first: entry });
      return;
    }
    if (entry.stage === 'check') {
      calls.push({ first: entry, check: entry });
      return;
    }
    const checkIndex = entries.findIndex(
      (older, at) =>
        at > index && !claimed.has(at) && older.stage === 'check' && ranAfter(older) && sameCall(older, entry),
    );
    const check = entries[checkIndex];
    if (check) claimed.add(checkIndex);
    calls.push(check ? { first: check, check, enforced: entry } : { first: entry, enforced: entry });
  });
  return calls;
}
