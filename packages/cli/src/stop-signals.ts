/**
 * SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed), listened for from a command's first
 * line: the first one always leads to a clean stop, even when it arrives while the host is still
 * starting (srt's own once-handler would otherwise take it and leave the host running), and none
 * kills the process before its cleanup has run.
 */
import { constants } from 'node:os';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The shell's exit code for a command a signal stopped: 128 + its number (130 for Ctrl-C's SIGINT). */
export const signalExitCode = (signal: NodeJS.Signals): number => 128 + constants.signals[signal];

export interface StopSignals {
  /** Resolves with the first stop signal. */
  readonly requested: Promise<NodeJS.Signals>;
  /** The first stop signal, once one arrived. */
  readonly received: NodeJS.Signals | undefined;
  dispose(): void;
}

/** A stop signal that arrived before the command listened (keepStopSignals), and its listener. */
let kept: { signal: NodeJS.Signals | undefined; listener: (signal: NodeJS.Signals) => void } | undefined;

function stopKeeping(): NodeJS.Signals | undefined {
  if (kept === undefined) return undefined;
  for (const signal of STOP_SIGNALS) process.off(signal, kept.listener);
  const { signal } = kept;
  kept = undefined;
  return signal;
}

/**
 * From the entry's first line (main.ts), for a command that listens from its own first line: a
 * stop signal that arrives while the command is still being loaded is kept and handed to its
 * listenForStop(). Call the result once the command has finished: a signal nobody took then ends
 * the process as it would have.
 */
export function keepStopSignals(): () => void {
  const listener = (signal: NodeJS.Signals) => {
    if (kept) kept.signal ??= signal;
  };
  kept = { signal: undefined, listener };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  return () => {
    const untaken = stopKeeping();
    if (untaken !== undefined) process.kill(process.pid, untaken);
  };
}

export function listenForStop(): StopSignals {
  let received: NodeJS.Signals | undefined;
  let resolve: (signal: NodeJS.Signals) => void = () => undefined;
  const requested = new Promise<NodeJS.Signals>((done) => (resolve = done));
  const onSignal = (signal: NodeJS.Signals) => {
    received ??= signal;
    resolve(received);
  };
  // Listening before the kept listener goes: with no listener left in between, Node stops watching
  // the signal, and one that arrived while the loop was busy loading (not dispatched yet) is lost.
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  received ??= stopKeeping();
  if (received !== undefined) resolve(received);
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
