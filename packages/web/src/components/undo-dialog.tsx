/**
 * Undo of one run, with a confirmation: the daemon's dry run lists what undo would do to each
 * file (restore, remove a file the run created, or not possible and why), and says that what the
 * run's commands changed stays. Confirming asks for the real undo; a refusal (a file changed
 * since, a run going) is shown in words and nothing was touched.
 */
import { useEffect, useRef, useState } from 'react';
import type { BastionApi, UndoFile } from '@bastion/bridge';
import { describeError } from '../bastion.js';
import { ConfirmActions, Dialog } from './dialog.js';

/** Why a file cannot be undone, for `since` ("this run", "those turns"). */
const reasons = (since: string): Record<NonNullable<UndoFile['reason']>, string> => ({
  'too-large': 'its earlier version was too large to keep',
  pruned: 'its earlier version was dropped to make room for newer runs',
  'changed-since': `it changed since ${since}`,
});

/** What undoing a file does; `turns` when it is the put-back of a rewind's turns rather than of one run. */
export function describeUndoFile(file: UndoFile, turns = false): string {
  if (file.action === 'restore') return `put back as it was before ${turns ? 'those turns' : 'the run'}`;
  if (file.action === 'remove') return `removed (${turns ? 'those turns' : 'the run'} created it)`;
  const why = file.reason === undefined ? 'no earlier copy' : reasons(turns ? 'those turns' : 'this run')[file.reason];
  return `cannot be undone: ${why}`;
}

/**
 * A put-back's dry run (undo's, rewind's), asked for once per `key`: the plan, or why it could not
 * be had (`setFailure` for the real request's refusal too), with its files that changed since and
 * those it would restore or remove.
 */
export function usePutBackPlan<T extends { files: UndoFile[] }>(dryRun: () => Promise<T>, key: string) {
  const [plan, setPlan] = useState<T>();
  const [failure, setFailure] = useState<string>();
  const ask = useRef(dryRun);
  ask.current = dryRun;
  useEffect(() => {
    let cancelled = false;
    ask
      .current()
      .then((answer) => !cancelled && setPlan(answer))
      .catch((error: unknown) => !cancelled && setFailure(describeError(error)));
    return () => {
      cancelled = true;
    };
  }, [key]);
  const conflicts = plan?.files.filter((file) => file.reason === 'changed-since') ?? [];
  const actionable = plan?.files.filter((file) => file.action !== 'none') ?? [];
  return { plan, failure, setFailure, conflicts, actionable };
}

export function UndoDialog({
  bastion,
  sessionId,
  runId,
  onClose,
  onUndone,
}: {
  bastion: BastionApi;
  sessionId: string;
  runId: string;
  onClose: () => void;
  /** Instead of onClose, once the undo is done. */
  onUndone: () => void;
}) {
  const { plan, failure, setFailure, conflicts, actionable } = usePutBackPlan(
    () => bastion.agent.undo(sessionId, runId, { dryRun: true }),
    `${sessionId} ${runId}`,
  );
  const [working, setWorking] = useState(false);
  const confirm = () => {
    setWorking(true);
    bastion.agent
      .undo(sessionId, runId)
      .then(onUndone)
      .catch((error: unknown) => {
        setFailure(describeError(error));
        setWorking(false);
      });
  };

  return (
    <Dialog title="Undo this run?" onCancel={onClose}>
      {!plan && !failure && <p className="muted">Checking the files…</p>}
      {plan && (
        <>
          <ul className="undo-files" aria-label="Files">
            {plan.files.map((file) => (
              <li key={file.path} className={file.action === 'none' ? 'undo-blocked' : undefined}>
                <code>{file.path}</code> — {describeUndoFile(file)}
              </li>
            ))}
          </ul>
          {plan.commands > 0 && (
            <p>
              This run also ran {plan.commands === 1 ? 'a command' : `${plan.commands} commands`}: undo does not restore
              what commands changed.
            </p>
          )}
          {conflicts.length > 0 && (
            <p role="alert">
              Undo is not possible while {conflicts.length === 1 ? 'a file holds' : 'files hold'} other changes than
              this run left. Nothing will be touched.
            </p>
          )}
        </>
      )}
      <ConfirmActions
        failure={failure}
        failedAs="Not undone"
        onClose={onClose}
        action={
          plan && {
            label:
              actionable.length === 0
                ? 'Undo'
                : `Undo ${actionable.length === 1 ? '1 file' : `${actionable.length} files`}`,
            disabled: working || conflicts.length > 0 || actionable.length === 0,
            onClick: confirm,
          }
        }
      />
    </Dialog>
  );
}

/** The transcript's record of an undo: what came back, what did not, and that commands' changes stay. */
export function UndoneNotice({
  restored,
  removed,
  notUndone,
  commands,
}: {
  restored: string[];
  removed: string[];
  notUndone: string[];
  commands: number;
}) {
  return (
    <div className="notice undone" role="status" data-testid="run-undone">
      <strong>Run undone.</strong>
      {restored.length > 0 && <> Restored: {restored.join(', ')}.</>}
      {removed.length > 0 && <> Removed: {removed.join(', ')}.</>}
      {notUndone.length > 0 && <> Not undone (no earlier copy): {notUndone.join(', ')}.</>}
      {commands > 0 && <> What its commands changed was not undone.</>}
    </div>
  );
}
