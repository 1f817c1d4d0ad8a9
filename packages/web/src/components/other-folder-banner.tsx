/**
 * A session that works in a folder this Bastion was not started in (a `bastion run` there made
 * it): its file tools and commands are refused here. The banner says so and asks the host to add
 * the folder — the host asks the person (its terminal or a confirmation page), never the page —
 * and the agent restarts with it.
 */
import { useState } from 'react';
import type { BastionApi, ConsentOutcome } from '@bastion/bridge';
import { describeError } from '../bastion.js';

/** What came of asking for the folder, in words. */
function outcomeText(outcome: ConsentOutcome, folder: string): string {
  if (outcome.outcome === 'unavailable')
    return `Nobody could be asked to approve it here. Start Bastion in that folder: bastion start --workspace ${folder}`;
  if (outcome.code === 'WORKSPACE_DECLINED') return 'Not approved: the folder stays out of reach.';
  return `The folder was refused (${outcome.code ?? 'refused'}).`;
}

export function OtherFolderBanner({
  bastion,
  folder,
  onGranted,
}: {
  bastion: BastionApi;
  folder: string;
  onGranted: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const [answer, setAnswer] = useState<string>();
  return (
    <div className="banner banner-warn other-folder" role="status">
      <p>
        This session works in <code>{folder}</code>, a folder this Bastion was not started in: the agent can neither
        read nor change it here.
      </p>
      <p>
        <button
          type="button"
          disabled={asking}
          onClick={() => {
            setAsking(true);
            setAnswer(undefined);
            bastion.workspaces
              .requestGrant(folder)
              .then(
                (outcome) => (outcome.outcome === 'granted' ? onGranted() : setAnswer(outcomeText(outcome, folder))),
                (failure: unknown) => setAnswer(describeError(failure)),
              )
              .finally(() => setAsking(false));
          }}
        >
          {asking ? 'Waiting for your approval…' : 'Work in this folder too'}
        </button>{' '}
        <span className="muted">
          Bastion asks you to confirm in its terminal or on a page it opens, then restarts the agent (a run going in
          another session stops).
        </span>
      </p>
      {answer && <p className="inline-error">{answer}</p>}
    </div>
  );
}
