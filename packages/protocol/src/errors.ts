import type { ChannelErrorCode, WireErrorCode } from './error-codes.js';

/** Base error of the protocol package: a stable `code` callers branch on, and a cause. */
export class ProtocolError extends Error {
  override readonly name: string = 'ProtocolError';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class ChannelError extends ProtocolError {
  override readonly name = 'ChannelError';
  constructor(
    override readonly code: ChannelErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/**
 * What crosses the wire when something is refused: a code and a fixed message, never the request's
 * values. `Code` narrows it to one area's codes; a client reading an answer it did not type gets `string`.
 */
export interface WireError<Code extends string = WireErrorCode | (string & {})> {
  code: Code;
  message: string;
}
