import { useEffect, useRef, useState } from 'react';
import type { BastionApi, HostCommandAsk } from '@bastion/bridge';
import { describeError } from '../bastion.js';

const RETRY_MS = 2_000;

/**
 * The commands the host holds for the person's answer, followed by waiting on host IPC
 * (`commands.asks`) again each time it answers. While this runs the host counts the page as
 * someone it can ask.
 */
export function useHostAsks(bastion: BastionApi): readonly HostCommandAsk[] {
  const [asks, setAsks] = useState<readonly HostCommandAsk[]>([]);
  useEffect(() => {
    let stopped = false;
    void (async () => {
      let revision: number | undefined;
      while (!stopped) {
        try {
          const list = await bastion.commands.asks(revision);
          if (stopped) return;
          revision = list.revision;
          setAsks(list.asks);
        } catch {
          // The host is restarting or refused: wait a little, then ask for the whole list again.
          revision = undefined;
          await new Promise((resolve) => window.setTimeout(resolve, RETRY_MS));
        }
      }
    })();
    return () => {
      stopped = true;
    };
  }, [bastion]);
  return asks;
}

/**
 * The host's own question about one held command, answered to the host (never to the agent).
 * What it shows is what the host will run; the session it belongs to is the agent's word.
 */
export function HostAskPrompt({ bastion, ask }: { bastion: BastionApi; ask: HostCommandAsk }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const region = useRef<HTMLElement>(null);
  const allow = useRef<HTMLButtonElement>(null);
  // A new question comes into view and takes focus, so it is never answered blind or missed.
  useEffect(() => {
    region.current?.scrollIntoView({ block: 'nearest' });
    allow.current?.focus();
  }, []);
  const answer = (approved: boolean) => {
    setBusy(true);
    bastion.commands
      .answer(ask.id, approved)
      .then(({ answered }) => {
        if (!answered) setError('The host no longer holds this command (it was answered, timed out or stopped).');
      })
      .catch((failure: unknown) => setError(describeError(failure)))
      .finally(() => setBusy(false));
  };
  return (
    <section className="approval" role="region" aria-label="The host asks" ref={region}>
      <h2>Bastion’s policy asks before this command runs</h2>
      <p>
        <code className="approval-command">{[ask.command, ...ask.args].join(' ')}</code>
        <span className="muted"> in {ask.cwd}</span>
      </p>
      <p className="muted">
        Rule {ask.rule_id ?? '(unnamed)'}
        {ask.reason ? `: ${ask.reason}` : ''}. The host holds the command and asks you itself; your answer goes to the
        host, not to the agent.
      </p>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      <div className="approval-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => answer(true)} ref={allow}>
          Allow
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => answer(false)}>
          Deny
        </button>
      </div>
    </section>
  );
}
