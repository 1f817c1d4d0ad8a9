import type { ChannelErrorCode, WireErrorCode } from './error-codes.js';

/**
 * The one shape of Bastion's local errors: a stable `code` from an area's union (error-codes.ts),
 * a message chosen where it is raised, and a cause. Each package's base error (DaemonError,
 * HostError, ChannelError) extends it and only names itself, so a code outside the union a class
 * declares fails to compile at the throw site.
 */
export class CodedError<Code extends string> extends Error {
  override readonly name: string = 'CodedError';
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A channel frame or state violation; the first one closes the channel. */
export class ChannelError extends CodedError<ChannelErrorCode> {
  override readonly name = 'ChannelError';
}

/**
 * What crosses the wire when something is refused: a code and a fixed message, never the request's
 * values. `Code` narrows it to one area's codes; a client reading an answer it did not type gets `string`.
 */
export interface WireError<Code extends string = WireErrorCode | (string & {})> {
  code: Code;
  message: string;
}
