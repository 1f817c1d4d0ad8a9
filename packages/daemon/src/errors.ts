import { CodedError, type DaemonErrorCode } from '@bastion/protocol';

/** Base error of the daemon: a stable `code` and a fixed, value-free message. A subclass narrows `Code` to its area. */
export class DaemonError<Code extends DaemonErrorCode = DaemonErrorCode> extends CodedError<Code> {
  override readonly name: string = 'DaemonError';
}

/** `instanceof DaemonError`, typed: a generic class's `instanceof` would leave `code` as `any`. */
export function isDaemonError(error: unknown): error is DaemonError {
  return error instanceof DaemonError;
}
