/**
 * Rewind to before a prompt, with a confirmation: the daemon's dry run says how many turns leave
 * the conversation and what putting back their files would do to each (or that one changed since,
 * so the files can only stay). Confirming rewinds; the prompt's text comes back for editing. A
 * refusal is shown in words, and nothing was touched.
 */
import { useState } from 'react';
import type { BastionApi } from '@bastion/bridge';
import { describeError } from '../bastion.js';
import type { TranscriptItem } from '../transcript.js';
import { ConfirmActions, Dialog } from './dialog.js';
import { describeUndoFile, usePutBackPlan } from './undo-dialog.js';

const turnsText = (turns: number): string =>
  turns === 1 ? 'This prompt and its reply leave' : `This prompt and the ${turns - 1} after it leave`;

export function RewindDialog({
  bastion,
  sessionId,
  runId,
  prompt,
  onClose,
  onRewound,
}: {
  bastion: BastionApi;
  sessionId: string;
  runId: string;
  /** The prompt's text, when the page has it: /rewind names no prompt, so the dialog says which. */
  prompt: string | undefined;
  onClose: () => void;
  /** Instead of onClose, once rewound: the prompt's text, to edit and send again. */
  onRewound: (prompt: string) => void;
}) {
  const { plan, failure, setFailure, conflicts, actionable } = usePutBackPlan(
    () => bastion.agent.rewind(sessionId, runId, { files: true, dryRun: true }),
    `${sessionId} ${runId}`,
  );
  const [working, setWorking] = useState(false);
  const [putBack, setPutBack] = useState(true);
  const canPutBack = conflicts.length === 0 && actionable.length > 0;
  const files = canPutBack && putBack;
  const confirm = () => {
    setWorking(true);
    bastion.agent
      .rewind(sessionId, runId, { files })
      .then((answer) => onRewound(answer.prompt))
      .catch((error: unknown) => {
        setFailure(describeError(error));
        setWorking(false);
      });
  };

  return (
    <Dialog title="Rewind to before this prompt?" onCancel={onClose}>
      {prompt !== undefined && (
        <blockquote className="rewind-prompt plain-text" aria-label="Prompt">
          {prompt}
        </blockquote>
      )}
      {!plan && !failure && <p className="muted">Checking the turns and their files…</p>}
      {plan && (
        <>
          <p>
            {turnsText(plan.turns)} the conversation: the model will not see them again. They stay here, greyed, and the
            prompt comes back to the message box to edit and send.
          </p>
          {plan.files.length > 0 && (
            <fieldset className="rewind-files">
              <label>
                <input
                  type="checkbox"
                  checked={files}
                  disabled={!canPutBack}
                  onChange={(event) => setPutBack(event.target.checked)}
                />{' '}
                Also put back the files they changed
              </label>
              <ul className="undo-files" aria-label="Files">
                {plan.files.map((file) => (
                  <li key={file.path} className={file.action === 'none' ? 'undo-blocked' : undefined}>
                    <code>{file.path}</code> — {describeUndoFile(file, true)}
                  </li>
                ))}
              </ul>
              {conflicts.length > 0 && (
                <p role="alert">
                  {conflicts.length === 1 ? 'A file holds' : 'Files hold'} other changes than those turns left, so the
                  files stay as they are; the conversation can still go back.
                </p>
              )}
            </fieldset>
          )}
          {plan.commands > 0 && (
            <p>
              Those turns ran {plan.commands === 1 ? 'a command' : `${plan.commands} commands`}: what commands changed
              stays.
            </p>
          )}
        </>
      )}
      <ConfirmActions
        failure={failure}
        failedAs="Not rewound"
        onClose={onClose}
        action={
          plan && {
            label: files
              ? `Rewind and put back ${actionable.length === 1 ? '1 file' : `${actionable.length} files`}`
              : 'Rewind',
            disabled: working,
            onClick: confirm,
          }
        }
      />
    </Dialog>
  );
}

/** The transcript's record of a rewind: how many turns left the conversation, and what became of their files. */
export function RewoundNotice({
  turns,
  files,
  restored,
  removed,
  notUndone,
  commands,
}: Omit<Extract<TranscriptItem, { kind: 'rewound' }>, 'kind' | 'key' | 'runId'>) {
  return (
    <div className="notice undone" role="status" data-testid="rewound">
      <strong>Rewound.</strong> {turns === 1 ? 'That prompt and its reply are' : `Those ${turns} turns are`} no longer
      in the conversation.
      {files ? (
        <>
          {restored.length > 0 && <> Put back: {restored.join(', ')}.</>}
          {removed.length > 0 && <> Removed: {removed.join(', ')}.</>}
          {notUndone.length > 0 && <> Not put back (no earlier copy): {notUndone.join(', ')}.</>}
        </>
      ) : (
        <> The files were left as they are.</>
      )}
      {commands > 0 && <> What their commands changed stays.</>}
    </div>
  );
}
