import { useCallback, useEffect, useState } from 'react';
import type { AuditEntry, BastionApi, Session } from '@bastion/bridge';
import { AUDIT_VIEW_PAGE } from '@bastion/protocol';
import { describeError } from '../bastion.js';
import { LabelledTable, ToolName, VerdictText, type Column } from './labelled-table.js';

/** Whether a person was asked for the call, in words. */
const APPROVAL_TEXT: Record<AuditEntry['approval'], string> = {
  'not-asked': 'not asked',
  approved: 'you approved it',
  denied: 'you denied it',
  'host-asked': 'the host asked you',
};

const COLUMNS: readonly Column<AuditEntry>[] = [
  { label: 'When', cell: (entry) => new Date(entry.created_at).toLocaleTimeString() },
  { label: 'Tool', cell: (entry) => <ToolName tool={entry.tool_name} command={entry.command_name} /> },
  {
    label: 'Policy',
    cell: (entry) => (entry.verdict ? <VerdictText verdict={entry.verdict} ruleId={entry.rule_id} /> : '—'),
  },
  { label: 'Mode', cell: (entry) => entry.mode ?? '—' },
  { label: 'Approval', cell: (entry) => APPROVAL_TEXT[entry.approval] },
  {
    label: 'Outcome',
    cell: (entry) => (
      <>
        {entry.outcome}
        {entry.code && <span className="muted"> {entry.code}</span>}
      </>
    ),
  },
];

/**
 * The watchdog's audit log of one session, in Settings, newest first and AUDIT_VIEW_PAGE rows at a
 * time: every tool call's decision — the tool (and the command's name, nothing else of its
 * arguments), the policy verdict and rule, the mode, the approval and what happened. The agent keeps it in its own database, so the page says it is the
 * agent's record; the host's own log (host-audit-view.tsx) is the one the agent cannot change.
 */
export function AuditLogView({ bastion }: { bastion: BastionApi }) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [sessionId, setSessionId] = useState<string>();
  const [entries, setEntries] = useState<AuditEntry[]>();
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string>();

  useEffect(() => {
    bastion.sessions
      .list({ limit: 50 })
      .then((page) => {
        setSessions(page.sessions);
        setSessionId(page.sessions[0]?.id);
      })
      .catch((failure: unknown) => setError(describeError(failure)));
  }, [bastion]);
  /** The newest page (no cursor), or the page older than `cursor` added below those shown. */
  const load = useCallback(
    (cursor: string | undefined) => {
      if (sessionId === undefined) return;
      bastion.sessions
        .audit(sessionId, { limit: AUDIT_VIEW_PAGE, ...(cursor === undefined ? {} : { cursor }) })
        .then((page) => {
          setEntries((shown) => (cursor === undefined ? page.entries : [...(shown ?? []), ...page.entries]));
          setNext(page.next);
          setError(undefined);
        })
        .catch((failure: unknown) => setError(describeError(failure)));
    },
    [bastion, sessionId],
  );
  useEffect(() => load(undefined), [load]);

  return (
    <section className="card" aria-labelledby="audit-title">
      <h2 id="audit-title">Session audit log (the agent’s record)</h2>
      <p className="muted">
        What happened to each tool call of a session: the policy’s verdict, the mode, the approval and the outcome. The
        agent keeps this in its own database; the host audit log is the record it cannot change.
      </p>
      {error && <p className="inline-error">{error}</p>}
      <label>
        Session{' '}
        <select value={sessionId ?? ''} onChange={(event) => setSessionId(event.target.value)}>
          {sessions.map((session) => (
            <option key={session.id} value={session.id}>
              {session.title || 'Untitled session'}
            </option>
          ))}
        </select>
      </label>
      {entries && entries.length === 0 && <p className="muted">No tool calls in this session yet.</p>}
      {entries && entries.length > 0 && (
        <LabelledTable
          rows={entries}
          columns={COLUMNS}
          rowKey={(entry) => String(entry.id)}
          label="Tool calls, newest first"
        />
      )}
      {next !== null && (
        <button type="button" onClick={() => load(next)}>
          Show older calls
        </button>
      )}
    </section>
  );
}
