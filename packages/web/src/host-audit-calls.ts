/**
 * The host's audit log as calls rather than lines. For a command, a file write or an MCP tool the
 * host answers twice: once to the sidecar's `policy.check` before the call (`check`), and again
 * where the host itself runs it (`command`, `write`, `mcp`), which is the answer it enforces. When
 * that answer is `ask`, the host puts the call to the person and writes another line with how the
 * question ended (`answer`). The agent checks a call twice before it (whether to ask, then as it
 * runs it), so a call's check is often two like lines. The log keeps them as lines; the page shows
 * them as one call.
 */
import type { HostAuditEntry } from '@bastion/protocol';

/** One call: its check, its enforcement, or both; a line from before stages were recorded stands alone. */
export interface HostAuditCall {
  /** The line that stands for the call: its earliest line the page holds. */
  first: HostAuditEntry;
  /** Its check just before it ran (the latest, when the agent checked it twice). */
  check?: HostAuditEntry;
  enforced?: HostAuditEntry;
  /** How the host's question about it ended, when the host asked. */
  answered?: HostAuditEntry;
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

/** An enforcement that asked, whose question's end `answered` records. */
const askedFor = (enforced: HostAuditEntry, answered: HostAuditEntry) =>
  enforced.answer === undefined &&
  enforced.stage === answered.stage &&
  enforced.verdict === 'ask' &&
  enforced.rule_id === answered.rule_id &&
  sameCall(enforced, answered);

/** The agent's first check of the call `check` is the second one of: the same answer for the same call. */
const twinOf = (check: HostAuditEntry) => (older: HostAuditEntry) =>
  older.stage === 'check' &&
  older.verdict === check.verdict &&
  older.rule_id === check.rule_id &&
  sameCall(older, check);

/**
 * Lines newest first (as the log pages them) into calls, newest first: each answer line takes the
 * nearest older unclaimed enforcement that asked, of the same call and stage; each enforcement the
 * nearest older unclaimed check of the same call; each check the nearest older unclaimed like
 * check (its twin). A call whose earlier lines lie on a page not read yet shows what the page
 * holds of it until that page is read.
 */
export function groupHostAuditCalls(entries: readonly HostAuditEntry[]): HostAuditCall[] {
  const claimed = new Set<number>();
  /** The position of the first unclaimed line older than `index` at which `fits` holds, claimed; -1 when none. */
  const claimOlder = (index: number, fits: (older: HostAuditEntry) => boolean): number => {
    const at = entries.findIndex((older, position) => position > index && !claimed.has(position) && fits(older));
    if (at >= 0) claimed.add(at);
    return at;
  };
  const calls: HostAuditCall[] = [];
  entries.forEach((entry, index) => {
    if (claimed.has(index)) return;
    if (entry.stage === undefined) {
      calls.push({ first: entry });
      return;
    }
    if (entry.stage === 'check') {
      calls.push({ first: entries[claimOlder(index, twinOf(entry))] ?? entry, check: entry });
      return;
    }
    const answered = entry.answer === undefined ? undefined : entry;
    const enforcedAt = answered ? claimOlder(index, (older) => askedFor(older, answered)) : index;
    const enforced = entries[enforcedAt];
    const checkAt = enforced
      ? claimOlder(enforcedAt, (older) => older.stage === 'check' && ranAfter(older) && sameCall(older, enforced))
      : -1;
    const check = entries[checkAt];
    const twin = check && entries[claimOlder(checkAt, twinOf(check))];
    calls.push({
      first: twin ?? check ?? enforced ?? entry,
      ...(check === undefined ? {} : { check }),
      ...(enforced === undefined ? {} : { enforced }),
      ...(answered === undefined ? {} : { answered }),
    });
  });
  return calls;
}
