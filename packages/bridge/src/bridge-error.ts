import type { BridgeErrorCode, WireError, WireErrorCode } from '@bastion/protocol';

/**
 * What every bridge call rejects with: a stable code the app branches on, and a fixed message.
 * The bridge's own codes are typed; one read off an answer is whatever string the answer carried.
 */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  constructor(
    readonly code: BridgeErrorCode | WireErrorCode | WireError['code'],
    message: string,
    /** The HTTP status, when the daemon or the host answered; 0 when nothing answered. */
    readonly status = 0,
  ) {
    super(message);
  }
}

export function isBridgeError(error: unknown): error is BridgeError {
  return error instanceof Error && error.name === 'BridgeError' && typeof (error as BridgeError).code === 'string';
}
