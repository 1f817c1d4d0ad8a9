import { useState } from 'react';
import type { PolicyRuleDraft } from '@bastion/bridge';
import type { ToolView } from '../transcript.js';
import { describeError } from '../bastion.js';
import { alwaysAllowRule, UI_APPROVAL_DIFF_FOLD_LINES } from '@bastion/protocol';
import { exploreTask } from '../explore-call.js';
import { mcpArgumentsText, mcpToolTitle } from '../mcp-tool-call.js';
import { AlwaysAllowConfirm, ApprovalActions, useAlwaysAllowStep } from './always-allow-confirm.js';
import { CommandWords } from './command-words.js';
import { DiffView } from './diff-view.js';
import { usePromptFocus } from './prompt-focus.js';

/** What a file tool's question asks, in words (the file and its diff under it); its raw name stays on its card. */
const FILE_CHANGES: Readonly<Record<string, string>> = {
  write_file: 'write a file',
  edit_file: 'edit a file',
};

interface Props {
  tool: ToolView;
  /** Approvals of the same step asked after this one, still waiting: each is asked once this one is answered. */
  waitingAfter: number;
  busy: boolean;
  /** The session's workspace: "Always allow" saves a rule for its project only. */
  workspace: string | null;
  /** The session asks before each file edit (so this is why a write_file or edit_file waits). */
  askBeforeWrites: boolean;
  onAlwaysAllow: (workspace: string, rule: PolicyRuleDraft) => Promise<void>;
  onAnswer: (approved: boolean, reason: string | undefined) => void;
}

/**
 * Allow or deny one pending tool call; the daemon checks the answer against its own record. Its
 * heading, the Reason field and its answers always show; what is between them (the call, why it
 * asks, the "Always allow…" step) scrolls when the card is at its height bound, which keeps the
 * transcript in view. A file tool's call shows the change it would make: the daemon's diff against
 * the file as it is (its tool-preview event, sent before the question), folded past
 * UI_APPROVAL_DIFF_FOLD_LINES and scrolling in its own box, the one part of the card that gives up
 * height (down to its first lines) so the file's name above it stays in view with the answers.
 */
export function ApprovalPrompt({
  tool,
  waitingAfter,
  busy,
  workspace,
  askBeforeWrites,
  onAlwaysAllow,
  onAnswer,
}: Props) {
  const [reason, setReason] = useState('');
  const alwaysAllow = useAlwaysAllowStep();
  const [saveError, setSaveError] = useState<string>();
  const { region, armed, answering } = usePromptFocus(tool.toolCallId);
  const input = (tool.input ?? {}) as { command?: unknown; args?: unknown; workdir?: unknown; path?: unknown };
  const args: unknown[] = Array.isArray(input.args) ? input.args : [];
  const isCommand = tool.toolName === 'run_command';
  const isExplore = tool.toolName === 'explore';
  const isFileChange = FILE_CHANGES[tool.toolName] !== undefined;
  const mcpTitle = mcpToolTitle(tool.toolName);
  // This command's program and exact arguments, or this MCP tool by name: for the project only.
  const rule = workspace !== null ? alwaysAllowRule(tool.toolName, tool.input) : undefined;
  const saveAndAllow = async () => {
    if (!rule || workspace === null) return;
    try {
      await onAlwaysAllow(workspace, rule);
      onAnswer(true, undefined);
    } catch (failure) {
      setSaveError(describeError(failure));
    }
  };
  return (
    <section className="approval" role="region" aria-label="Approval needed" ref={region} tabIndex={-1}>
      <h2>
        {isCommand
          ? 'The agent wants to run a command'
          : isExplore
            ? 'The agent wants to hand a question to an explorer'
            : `The agent wants to ${FILE_CHANGES[tool.toolName] ?? `use ${mcpTitle ?? tool.toolName}`}`}
        {waitingAfter > 0 && <span className="approval-more"> · {waitingAfter} more after this</span>}
      </h2>
      <div className="approval-body">
        {isExplore ? (
          <p className="approval-task plain-text" aria-label="Task">
            {exploreTask(tool.input)}
          </p>
        ) : mcpTitle !== undefined ? (
          <pre className="approval-arguments" aria-label="Arguments">
            {mcpArgumentsText(tool.input)}
          </pre>
        ) : (
          <p>
            <CommandWords
              className="approval-command"
              argv={
                isCommand
                  ? [input.command, ...args].map(String)
                  : [typeof input.path === 'string' ? input.path : tool.toolName]
              }
            />
            {isCommand && typeof input.workdir === 'string' && (
              <span className="muted">
                {' '}
                in <CommandWords argv={[input.workdir]} />
              </span>
            )}
          </p>
        )}
        {isFileChange &&
          (tool.previewDiff === undefined ? (
            <p className="muted" data-testid="approval-no-diff">
              No preview: the file is binary or too large to compare, or the edit does not match it.
            </p>
          ) : (
            <div className="approval-diff">
              <DiffView diff={tool.previewDiff} counts={false} foldLines={UI_APPROVAL_DIFF_FOLD_LINES} />
            </div>
          ))}
        <p className="muted">
          {isCommand
            ? 'A command that may change something asks first (or a policy rule asks for it).'
            : isExplore
              ? 'A policy rule asks for it. The explorer only reads (files, folder listings, searches) under the same rules, and changes nothing.'
              : mcpTitle !== undefined
                ? 'A tool of an MCP server you set up (Settings → MCP servers): it runs in the sandbox, and what it does is the server’s own.'
                : askBeforeWrites
                  ? 'This session asks before each file edit (“Ask before file edits”, next to Mode).'
                  : 'A file that instructs the agent asks before it changes, in every mode.'}
        </p>
        {rule && alwaysAllow.confirming && workspace !== null && (
          <AlwaysAllowConfirm
            rule={rule}
            project={workspace}
            busy={busy}
            error={saveError}
            onSave={() => void saveAndAllow()}
            onCancel={alwaysAllow.close}
          />
        )}
      </div>
      <div className="approval-row">
        <label htmlFor="deny-reason">Reason if you deny</label>
        <input
          id="deny-reason"
          value={reason}
          placeholder="optional, for the agent"
          maxLength={1000}
          onChange={(event) => setReason(event.target.value)}
          onKeyDown={(event) => {
            // Esc is the field's, as in any text box: it empties the reason, and in an empty field
            // leaves it for the card (Tab goes on to the answers). Taken here, it does not reach
            // the page's Esc, which stops the run and so withdraws this question.
            if (event.key !== 'Escape' || event.defaultPrevented) return;
            event.preventDefault();
            if (reason !== '') setReason('');
            else region.current?.focus();
          }}
        />
      </div>
      <ApprovalActions
        busy={busy}
        armed={armed}
        onAllow={answering(() => onAnswer(true, undefined))}
        onDeny={answering(() => onAnswer(false, reason.trim() || undefined))}
        onAlwaysAllow={rule && !alwaysAllow.confirming ? answering(alwaysAllow.open) : undefined}
        alwaysAllowButton={alwaysAllow.button}
      />
    </section>
  );
}
