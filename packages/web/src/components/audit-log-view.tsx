import { useEffect, useState } from 'react';
import type { AuditEntry, BastionApi, Session } from '@bastion/bridge';
import { describeError } from '../bastion.js';

/**
 * The watchdog's audit log of one session, in Settings: every tool call's decision — the tool (and
 * the command's name, nothing else of its arguments), the policy verdict and rule, the mode, the
 * approval and what happened.
 */
export function AuditLogView({ bastion }: { bastion: BastionApi }) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [sessionId, setSessionId] = useState<string>();
  const [entries, setEntries] = useState<AuditEntry[]>();
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
  useEffect(() => {
    if (sessionId === undefined) return;
    bastion.sessions
      .audit(sessionId)
      .then((page) => {
        setEntries(page.entries);
        setError(undefined);
      })
      .catch((failure: unknown) => setError(describeError(failure)));
  }, [bastion, sessionId]);

  return (
    <section className="card" aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <p className="muted">What the policy decided for each tool call of a session.</p>
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
        <table className="policy-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Tool</th>
              <th scope="col">Policy</th>
              <th scope="col">Mode</th>
              <th scope="col">Approval</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id}>
                <td data-label="When">{new Date(entry.created_at).toLocaleTimeString()}</td>
                <td data-label="Tool">
                  <code>{entry.command_name ? `${entry.tool_name}: ${entry.command_name}` : entry.tool_name}</code>
                </td>
                <td data-label="Policy">
                  {entry.verdict ?? '—'}
                  {entry.rule_id && <span className="muted"> ({entry.rule_id})</span>}
                </td>
                <td data-label="Mode">{entry.mode ?? '—'}</td>
                <td data-label="Approval">{entry.approval}</td>
                <td data-label="Outcome">
                  {entry.outcome}
                  {entry.code && <span className="muted"> {entry.code}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
