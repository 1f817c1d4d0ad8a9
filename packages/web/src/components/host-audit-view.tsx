import { useCallback, useEffect, useState } from 'react';
import type { BastionApi, HostAuditEntry, HostAuditPage } from '@bastion/bridge';
import { HOST_AUDIT_DEFAULT_PAGE } from '@bastion/protocol';
import { describeError } from '../bastion.js';
import { LabelledTable, ToolName, type Column } from './labelled-table.js';

const STAGE_TEXT: Record<NonNullable<HostAuditEntry['stage']>, string> = {
  check: 'asked before the call',
  command: 'enforced as the host ran it',
};

const COLUMNS: readonly Column<HostAuditEntry>[] = [
  { label: 'When', cell: (entry) => new Date(entry.at).toLocaleString() },
  { label: 'Tool', cell: (entry) => <ToolName tool={entry.tool} command={entry.command} /> },
  {
    label: 'Verdict',
    cell: (entry) => (
      <>
        <span className={`badge decision-${entry.verdict}`}>{entry.verdict}</span>
        {entry.rule_id && <span className="muted"> ({entry.rule_id})</span>}
      </>
    ),
  },
  { label: 'Where', cell: (entry) => (entry.stage ? STAGE_TEXT[entry.stage] : '—') },
];

/**
 * The host's own audit log (`host/audit.jsonl`), read through host IPC and never through the
 * agent: every answer the host's policy gave, written by the host where the agent cannot write.
 * The page shows it newest first, HOST_AUDIT_DEFAULT_PAGE decisions at a time.
 */
export function HostAuditView({ bastion }: { bastion: BastionApi }) {
  const [entries, setEntries] = useState<HostAuditEntry[]>();
  const [next, setNext] = useState<number | null>(null);
  const [unreadable, setUnreadable] = useState(0);
  const [error, setError] = useState<string>();

  const load = useCallback(
    (before: number | undefined) =>
      bastion.policy
        .audit({ limit: HOST_AUDIT_DEFAULT_PAGE, ...(before === undefined ? {} : { before }) })
        .then((page: HostAuditPage) => {
          setEntries((shown) => (before === undefined ? page.entries : [...(shown ?? []), ...page.entries]));
          setNext(page.next);
          setUnreadable(page.unreadable);
          setError(undefined);
        })
        .catch((failure: unknown) => setError(describeError(failure))),
    [bastion],
  );
  useEffect(() => {
    void load(undefined);
  }, [load]);

  return (
    <section className="card" aria-labelledby="host-audit-title">
      <h2 id="host-audit-title">Host audit log</h2>
      <p className="muted">
        The host’s own record of every answer its policy gave, kept in <code>host/audit.jsonl</code>, which the agent
        cannot write. It names a command’s program, never its arguments.
      </p>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {unreadable > 0 && (
        <p className="inline-error" role="status">
          {unreadable} {unreadable === 1 ? 'line' : 'lines'} of the log could not be read and{' '}
          {unreadable === 1 ? 'is' : 'are'} not shown.
        </p>
      )}
      <div className="row">
        <button type="button" onClick={() => void load(undefined)}>
          Refresh
        </button>
      </div>
      {entries && entries.length === 0 && <p className="muted">The host has decided nothing yet.</p>}
      {entries && entries.length > 0 && (
        <LabelledTable
          rows={entries}
          columns={COLUMNS}
          rowKey={(entry, index) => `${entry.at}-${index}`}
          label="Host decisions, newest first"
        />
      )}
      {next !== null && (
        <button type="button" onClick={() => void load(next)}>
          Show older decisions
        </button>
      )}
    </section>
  );
}
