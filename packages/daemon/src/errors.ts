import type { DaemonErrorCode } from '@bastion/protocol';

/** Base error of the daemon: a stable `code` and a fixed, value-free message. */
export class DaemonError extends Error {
  override readonly name: string = 'DaemonError';
  constructor(
    readonly code: DaemonErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
