import { useEffect, useState } from 'react';
import { UI_MODEL_SILENT_NOTICE_MS } from '@bastion/protocol';

const TICK_MS = 1_000;

function elapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const minutes = Math.floor(total / 60);
  return minutes > 0 ? `${minutes}m ${String(total % 60).padStart(2, '0')}s` : `${total}s`;
}

/**
 * "Working… 12s" while a run is active, "Waiting for your approval" while one waits (the agent's
 * question or the host's). Being a live region, it is how a screen reader hears that a question
 * showed: the question does not take focus (prompt-focus.ts), so it also names the key to reach it.
 * When the run awaits its model (`heardAt`: when it last heard from the run, while no tool runs)
 * and the model has been silent for UI_MODEL_SILENT_NOTICE_MS, it says for how long.
 */
export function Activity({
  since,
  heardAt,
  waiting,
}: {
  since: number | undefined;
  heardAt: number | undefined;
  waiting: boolean;
}) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (since === undefined) return undefined;
    const timer = window.setInterval(() => setNow(Date.now()), TICK_MS);
    return () => window.clearInterval(timer);
  }, [since]);
  if (waiting) {
    return (
      <div className="activity" role="status" data-testid="activity">
        Waiting for your approval
        <span className="muted"> · Alt+Shift+A to answer</span>
      </div>
    );
  }
  if (since === undefined) return null;
  return (
    <div className="activity" role="status" data-testid="activity">
      <span className="spinner" aria-hidden="true" /> Working… {elapsed(now - since)}
      {heardAt !== undefined && now - heardAt >= UI_MODEL_SILENT_NOTICE_MS && (
        <span data-testid="model-silent"> · nothing from the model for {elapsed(now - heardAt)}</span>
      )}
      <span className="muted"> · Esc to stop</span>
    </div>
  );
}
