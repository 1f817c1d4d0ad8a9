import { useCallback, useEffect, useState } from 'react';
import type { BastionApi, HostAuditEntry, HostAuditPage } from '@bastion/bridge';
import { HOST_AUDIT_DEFAULT_PAGE } from '@bastion/protocol';
import { describeError } from '../bastion.js';
import { Dialog } from './dialog.js';
import { LabelledTable, ToolName, type Column } from './labelled-table.js';

const STAGE_TEXT: Record<NonNullable<HostAuditEntry['stage']>, string> = {
  check: 'asked before the call',
  command: 'enforced as the host ran it',
  write: 'enforced as the host wrote it',
  mcp: 'enforced as the host called the MCP server',
};

const DECISION_COLUMNS: readonly Column<HostAuditEntry>[] = [
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

/** The whole log also says which session the sidecar named: its word, so the header says so. */
const SESSION_COLUMN: Column<HostAuditEntry> = {
  label: 'Session (as the agent reported)',
  cell: (entry) => (entry.session_id ? <code>{entry.session_id}</code> : '—'),
};

/**
 * Decisions from the host's own audit log (`host/audit.jsonl`), read through host IPC and never
 * through the agent, newest first, HOST_AUDIT_DEFAULT_PAGE at a time; with `sessionId`, only
 * those the agent reported for that session.
 */
function HostDecisions({ bastion, sessionId }: { bastion: BastionApi; sessionId?: string }) {
  const [entries, setEntries] = useState<HostAuditEntry[]>();
  const [next, setNext] = useState<number | null>(null);
  const [unreadable, setUnreadable] = useState(0);
  const [error, setError] = useState<string>();

  const load = useCallback(
    (before: number | undefined) =>
      bastion.policy
        .audit({
          limit: HOST_AUDIT_DEFAULT_PAGE,
          ...(before === undefined ? {} : { before }),
          ...(sessionId === undefined ? {} : { session_id: sessionId }),
        })
        .then((page: HostAuditPage) => {
          setEntries((shown) => (before === undefined ? page.entries : [...(shown ?? []), ...page.entries]));
          setNext(page.next);
          setUnreadable(page.unreadable);
          setError(undefined);
        })
        .catch((failure: unknown) => setError(describeError(failure))),
    [bastion, sessionId],
  );
  useEffect(() => {
    void load(undefined);
  }, [load]);

  return (
    <>
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
      {entries && entries.length === 0 && <p className="muted">The host has recorded no decision here yet.</p>}
      {entries && entries.length > 0 && (
        <LabelledTable
          rows={entries}
          columns={sessionId === undefined ? [...DECISION_COLUMNS, SESSION_COLUMN] : DECISION_COLUMNS}
          rowKey={(entry, index) => `${entry.at}-${index}`}
          label="Host decisions, newest first"
        />
      )}
      {next !== null && (
        <button type="button" onClick={() => void load(next)}>
          Show older decisions
        </button>
      )}
    </>
  );
}

/** Settings: the host's whole audit log. */
export function HostAuditView({ bastion }: { bastion: BastionApi }) {
  return (
    <section className="card" aria-labelledby="host-audit-title">
      <h2 id="host-audit-title">Host audit log</h2>
      <p className="muted">
        The host’s own record of every answer its policy gave, kept in <code>host/audit.jsonl</code>, which the agent
        cannot write. It names a command’s program, never its arguments. The session is the one the agent named for the
        call: the host records it but cannot check it.
      </p>
      <HostDecisions bastion={bastion} />
    </section>
  );
}

/** A session's view: the decisions the host recorded for calls the agent said were this session's. */
export function HostRecordDialog({
  bastion,
  sessionId,
  onClose,
}: {
  bastion: BastionApi;
  sessionId: string;
  onClose: () => void;
}) {
  return (
    <Dialog title="The host’s record of this session" onCancel={onClose} wide>
      <p className="muted">
        Every answer the host’s policy gave for a call the agent said was part of this session, from the host’s own log
        (<code>host/audit.jsonl</code>), which the agent cannot write. The decisions are the host’s; which session a
        call belonged to is the agent’s word.
      </p>
      <HostDecisions bastion={bastion} sessionId={sessionId} />
      <div className="row dialog-actions">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
