import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import type { PolicyRuleDraft } from '@bastion/bridge';
import { mcpToolTitle } from '../mcp-tool-call.js';
import { ruleMatchers } from './policy-panel.js';
import { useAnswerGuard } from './prompt-focus.js';

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
 * Whether a prompt's "Always allow…" step is open. `close` (Cancel, or Esc in the step) gives focus
 * back to the "Always allow…" button, which shows again: the step's own buttons, which had it, are
 * gone, and focus would fall to the page.
 */
export function useAlwaysAllowStep(): {
  confirming: boolean;
  open: () => void;
  close: () => void;
  button: RefObject<HTMLButtonElement | null>;
} {
  const [confirming, setConfirming] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const open = useCallback(() => setConfirming(true), []);
  const close = useCallback(() => {
    flushSync(() => setConfirming(false));
    button.current?.focus();
  }, []);
  return { confirming, open, close, button };
}

/**
 * "Always allow", second step: the exact rule and the project it is for, shown before anything
 * is saved; the agent's prompt and the host's own question both confirm through it. It scrolls
 * into view inside the prompt (whose body scrolls on a short window), so the rule is read where it
 * is confirmed, and its first control, Save, takes the focus that the "Always allow…" button had.
 * Save is guarded as the answers are (useAnswerGuard): an Enter held on "Always allow…" opens the
 * step and its repeats reach Save, which must not save a rule. Esc closes the step only: it is
 * taken here, so the page's Esc (which stops the run) does not see it.
 */
export function AlwaysAllowConfirm({ rule, project, busy, error, onSave, onCancel }: Props) {
  const group = useRef<HTMLDivElement>(null);
  const save = useRef<HTMLButtonElement>(null);
  const { armed, answering } = useAnswerGuard('always-allow');
  useLayoutEffect(() => {
    group.current?.scrollIntoView({ block: 'nearest' });
    save.current?.focus();
  }, []);
  return (
    <div
      className="approval-always"
      role="group"
      aria-label="Always allow"
      ref={group}
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || event.defaultPrevented) return;
        event.preventDefault();
        onCancel();
      }}
    >
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
        <button
          type="button"
          className="primary"
          ref={save}
          disabled={busy}
          aria-disabled={armed ? undefined : true}
          onClick={answering(onSave)}
        >
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
  /** The "Always allow…" button, for useAlwaysAllowStep to give focus back to. */
  alwaysAllowButton?: RefObject<HTMLButtonElement | null>;
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
        <button
          type="button"
          ref={props.alwaysAllowButton}
          disabled={props.busy}
          aria-disabled={waiting}
          onClick={props.onAlwaysAllow}
        >
          Always allow…
        </button>
      )}
    </div>
  );
}
