import { useEffect, useRef, useState } from 'react';
import type { ToolView } from '../transcript.js';

interface Props {
  tool: ToolView;
  busy: boolean;
  onAnswer: (approved: boolean, reason: string | undefined) => void;
}

/** Allow or deny one pending tool call; the daemon checks the answer against its own record. */
export function ApprovalPrompt({ tool, busy, onAnswer }: Props) {
  const [reason, setReason] = useState('');
  const region = useRef<HTMLElement>(null);
  const allow = useRef<HTMLButtonElement>(null);
  // A new prompt comes into view and takes focus, so it is never answered blind or missed.
  useEffect(() => {
    region.current?.scrollIntoView({ block: 'nearest' });
    allow.current?.focus();
  }, []);
  const input = (tool.input ?? {}) as { command?: unknown; args?: unknown; workdir?: unknown; path?: unknown };
  const args: unknown[] = Array.isArray(input.args) ? input.args : [];
  const commandLine = [input.command, ...args].map(String).join(' ');
  const isCommand = tool.toolName === 'run_command';
  return (
    <section className="approval" role="region" aria-label="Approval needed" ref={region}>
      <h2>{isCommand ? 'The agent wants to run a command' : `The agent wants to use ${tool.toolName}`}</h2>
      <p>
        <code className="approval-command">
          {isCommand ? commandLine : typeof input.path === 'string' ? input.path : tool.toolName}
        </code>
        {isCommand && typeof input.workdir === 'string' && <span className="muted"> in {input.workdir}</span>}
      </p>
      <p className="muted">In accept-edits mode, anything that is not read-only asks first.</p>
      <div className="approval-row">
        <label htmlFor="deny-reason">Reason (optional, sent to the agent if you deny)</label>
        <input id="deny-reason" value={reason} maxLength={1000} onChange={(event) => setReason(event.target.value)} />
      </div>
      <div className="approval-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => onAnswer(true, undefined)} ref={allow}>
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
