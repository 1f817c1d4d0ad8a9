import { useState } from 'react';
import type { ToolView } from '../transcript.js';

interface Props {
  tool: ToolView;
  busy: boolean;
  onAnswer: (approved: boolean, reason: string | undefined) => void;
}

/** Allow or deny one pending tool call; the daemon checks the answer against its own record. */
export function ApprovalPrompt({ tool, busy, onAnswer }: Props) {
  const [reason, setReason] = useState('');
  const input = (tool.input ?? {}) as { command?: unknown; args?: unknown };
  const args: unknown[] = Array.isArray(input.args) ? input.args : [];
  const commandLine = [input.command, ...args].map(String).join(' ');
  return (
    <section className="approval" role="region" aria-label="Approval needed">
      <h2>The agent wants to run a command</h2>
      <p>
        <code className="approval-command">{tool.toolName === 'run_command' ? commandLine : tool.toolName}</code>
      </p>
      <p className="muted">In accept-edits mode, anything that is not read-only asks first.</p>
      <label htmlFor="deny-reason">Reason (optional, sent to the agent if you deny)</label>
      <input id="deny-reason" value={reason} maxLength={1000} onChange={(event) => setReason(event.target.value)} />
      <div className="approval-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => onAnswer(true, undefined)} autoFocus>
          Allow
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => onAnswer(false, reason.trim() || undefined)}
        >
          Deny
        </button>
      </div>
    </section>
  );
}
