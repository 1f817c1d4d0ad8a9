import { useEffect, useState } from 'react';
import { UI_APPROVAL_DIFF_FOLD_LINES } from '@bastion/protocol';
import type { BastionApi, HostAsk, HostAskAnswer } from '@bastion/bridge';
import { BRIDGE_RETRY_MS, describeError } from '../bastion.js';
import { mcpToolTitle } from '../mcp-tool-call.js';
import { notifyHostAsk } from '../notifications.js';
import { AlwaysAllowConfirm, ApprovalActions, useAlwaysAllowStep } from './always-allow-confirm.js';
import { CommandWords } from './command-words.js';
import { DiffView } from './diff-view.js';
import { usePromptFocus } from './prompt-focus.js';

/** The page's one wait on the host's held calls, and the views shown them. */
interface HostAskWaiter {
  bastion: BastionApi;
  views: Set<(asks: readonly HostAsk[]) => void>;
  asks: readonly HostAsk[];
}
let waiter: HostAskWaiter | undefined;

/**
 * Waits on host IPC (`asks.wait`) again each time it answers, while any view is shown the held
 * calls, and tells each the list. One wait for the page, not one a view: a wait is held open by
 * the host for up to HOST_ASK_POLL_MS and cannot be taken back, so a wait a session's view left
 * as the person opened the next one stayed open, and a few quick switches used up the browser's
 * six connections to the host (every host request of the page then waited, a session's too).
 */
async function waitOnHostAsks(current: HostAskWaiter): Promise<void> {
  let revision: number | undefined;
  while (current.views.size > 0) {
    try {
      const list = await current.bastion.asks.wait(revision);
      revision = list.revision;
      current.asks = list.asks;
      for (const view of current.views) view(list.asks);
      // Told here, not on render: a tab in the background renders late.
      list.asks.forEach(notifyHostAsk);
    } catch {
      // The host is restarting or refused: wait a little, then ask for the whole list again.
      revision = undefined;
      await new Promise((resolve) => window.setTimeout(resolve, BRIDGE_RETRY_MS));
    }
  }
  if (waiter === current) waiter = undefined;
}

/**
 * The tool calls the host holds for the person's answer. While a view uses this the host counts
 * the page as someone it can ask. A call asked after the page loaded is also told as a
 * notification, when those are on.
 */
export function useHostAsks(bastion: BastionApi): readonly HostAsk[] {
  const [asks, setAsks] = useState<readonly HostAsk[]>(() => (waiter?.bastion === bastion ? waiter.asks : []));
  useEffect(() => {
    // A view that opens as another closes (the next session) joins the wait the other was in.
    const joined = waiter?.bastion === bastion ? waiter : { bastion, views: new Set<typeof setAsks>(), asks: [] };
    joined.views.add(setAsks);
    if (joined === waiter) {
      setAsks(joined.asks);
    } else {
      waiter = joined;
      void waitOnHostAsks(joined);
    }
    return () => {
      joined.views.delete(setAsks);
    };
  }, [bastion]);
  return asks;
}

/**
 * What the held call acts on, as the host will perform it: a command line and its directory, or a
 * tool's paths, each as shell words (CommandWords), so what is shown is what runs.
 */
function HeldCall({ ask }: { ask: HostAsk }) {
  if (ask.command) {
    return (
      <p>
        <CommandWords className="approval-command" argv={[ask.command.name, ...ask.command.args]} />
        <span className="muted">
          {' '}
          in <CommandWords argv={[ask.command.cwd]} />
        </span>
      </p>
    );
  }
  // A file tool's paths are resolved and absolute; inside the project they read shorter relative to it.
  const inRoot = `${ask.workspace_root.replace(/\/+$/, '')}/`;
  const paths = (ask.paths ?? []).map((path) => (path.startsWith(inRoot) ? path.slice(inRoot.length) : path));
  return (
    <p>
      <span className="approval-command">
        <code>{mcpToolTitle(ask.tool) ?? ask.tool}</code>
        {paths.length > 0 && ' '}
        {paths.length > 0 && <CommandWords argv={paths} />}
      </span>
      <span className="muted">
        {' '}
        in <CommandWords argv={[ask.workspace_root]} />
      </span>
    </p>
  );
}

/** The question's heading: what is about to happen. */
function heldAction(ask: HostAsk): string {
  if (ask.command) return 'this command runs';
  if (ask.tool === 'write_file' || ask.tool === 'edit_file') return 'this file is written';
  const mcpTitle = mcpToolTitle(ask.tool);
  if (mcpTitle !== undefined) return `${mcpTitle} is called`;
  return ask.tool;
}

/**
 * The host's own question about one held tool call, answered to the host (never to the agent).
 * What it shows is what the host will run; the session it belongs to is the agent's word.
 * "Always allow…" shows the rule the host made from this call and would save for the project;
 * the host offers none when saving one would not stop the asking.
 */
export function HostAskPrompt({ bastion, ask }: { bastion: BastionApi; ask: HostAsk }) {
  const [busy, setBusy] = useState(false);
  const alwaysAllow = useAlwaysAllowStep();
  const [error, setError] = useState<string>();
  const { region, armed, answering } = usePromptFocus(ask.id);
  const answer = (given: HostAskAnswer) => {
    setBusy(true);
    setError(undefined);
    bastion.asks
      .answer(ask.id, given)
      .then(({ answered }) => {
        if (!answered) setError('The host no longer holds this call (it was answered, timed out or stopped).');
      })
      .catch((failure: unknown) => setError(describeError(failure)))
      .finally(() => setBusy(false));
  };
  const rule = ask.always_allow;
  return (
    <section className="approval" role="region" aria-label="The host asks" ref={region} tabIndex={-1}>
      <h2>Bastion’s policy asks before {heldAction(ask)}</h2>
      <div className="approval-body">
        <HeldCall ask={ask} />
        {/* A write's change: the host's own diff of the bytes it holds, folded and scrolled as the agent's question folds its own. */}
        {ask.diff !== undefined && (
          <div className="approval-diff">
            <DiffView diff={ask.diff} counts={false} foldLines={UI_APPROVAL_DIFF_FOLD_LINES} />
          </div>
        )}
        <p className="muted">
          Rule {ask.rule_id ?? '(unnamed)'}
          {ask.reason ? `: ${ask.reason}` : ''}. The host holds the call and asks you itself; your answer goes to the
          host, not to the agent.
          {rule
            ? ''
            : ' “Always allow” is not offered: a rule of this project asks for it (an allow cannot override it), or no rule can match it exactly.'}
        </p>
        {error && !alwaysAllow.confirming && (
          <p className="inline-error" role="alert">
            {error}
          </p>
        )}
        {rule && alwaysAllow.confirming && (
          <AlwaysAllowConfirm
            rule={rule}
            project={ask.workspace_root}
            busy={busy}
            error={error}
            onSave={() => answer('always-allow')}
            onCancel={alwaysAllow.close}
          />
        )}
      </div>
      <ApprovalActions
        busy={busy}
        armed={armed}
        onAllow={answering(() => answer('allow'))}
        onDeny={answering(() => answer('deny'))}
        onAlwaysAllow={rule && !alwaysAllow.confirming ? answering(alwaysAllow.open) : undefined}
        alwaysAllowButton={alwaysAllow.button}
      />
    </section>
  );
}
