import { useEffect, useRef } from 'react';
import type { PolicyRuleDraft } from '@bastion/bridge';
import { mcpToolTitle } from '../mcp-tool-call.js';
import { ruleMatchers } from './policy-panel.js';

interface Props {
  rule: PolicyRuleDraft;
  /** The project (workspace real path) the rule is saved for. */
  project: string;
  busy: boolean;
  error: string | undefined;
  onSave: () => void;
  onCancel: () => void;
}

/**
 * "Always allow", second step: the exact rule and the project it is for, shown before anything
 * is saved; the agent's prompt and the host's own question both confirm through it. It scrolls
 * into view inside the prompt (which scrolls on a narrow window), so the rule is read where it is
 * confirmed.
 */
export function AlwaysAllowConfirm({ rule, project, busy, error, onSave, onCancel }: Props) {
  const group = useRef<HTMLDivElement>(null);
  useEffect(() => {
    group.current?.scrollIntoView({ block: 'nearest' });
  }, []);
  return (
    <div className="approval-always" role="group" aria-label="Always allow" ref={group}>
      <p>This rule will be saved to the host&apos;s policy (policy.json), for this project only:</p>
      <p>
        <code>allow {ruleMatchers(rule)}</code>
        <span className="muted">
          {rule.command !== undefined
            ? ' (these exact first arguments, any after them)'
            : rule.tools?.length === 1 && rule.tools[0] !== undefined && mcpToolTitle(rule.tools[0]) !== undefined
              ? ' (every call of this tool, whatever its arguments)'
              : ''}{' '}
          in {project}
        </span>
      </p>
      <div className="approval-actions">
        <button type="button" className="primary" disabled={busy} onClick={onSave}>
          Save rule and allow
        </button>
        <button type="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      {error && <p role="alert">{error}</p>}
    </div>
  );
}

/**
 * Allow, Deny and "Always allow…", the answers both prompts (the agent's and the host's own)
 * offer. None takes focus when the question shows, and until `armed` (the type-ahead guard of
 * usePromptFocus) they are aria-disabled, their answers already wrapped to do nothing.
 * `onAlwaysAllow` absent: not offered.
 */
export function ApprovalActions(props: {
  busy: boolean;
  armed: boolean;
  onAllow: () => void;
  onDeny: () => void;
  onAlwaysAllow: (() => void) | undefined;
}) {
  const waiting = props.armed ? undefined : true;
  return (
    <div className="approval-actions">
      <button type="button" className="primary" disabled={props.busy} aria-disabled={waiting} onClick={props.onAllow}>
        Allow
      </button>
      <button type="button" className="danger" disabled={props.busy} aria-disabled={waiting} onClick={props.onDeny}>
        Deny
      </button>
      {props.onAlwaysAllow && (
        <button type="button" disabled={props.busy} aria-disabled={waiting} onClick={props.onAlwaysAllow}>
          Always allow…
        </button>
      )}
    </div>
  );
}
