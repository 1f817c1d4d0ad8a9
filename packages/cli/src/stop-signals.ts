/**
 * SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed), listened for from a command's first
 * line: the first one always leads to a clean stop, even when it arrives while the host is still
 * starting (srt's own once-handler would otherwise take it and leave the host running), and none
 * kills the process before its cleanup has run.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface StopSignals {
  /** Resolves with the first stop signal. */
  readonly requested: Promise<NodeJS.Signals>;
  /** The first stop signal, once one arrived. */
  readonly received: NodeJS.Signals | undefined;
  dispose(): void;
}

export function listenForStop(): StopSignals {
  let received: NodeJS.Signals | undefined;
  let resolve: (signal: NodeJS.Signals) => void = () => undefined;
  const requested = new Promise<NodeJS.Signals>((done) => (resolve = done));
  const onSignal = (signal: NodeJS.Signals) => {
    received ??= signal;
    resolve(received);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return {
    requested,
    get received() {
      return received;
    },
    dispose() {
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    },
  };
}
