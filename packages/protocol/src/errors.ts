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

/** Codes of channel v1 failures. The first one closes the channel. */
export type ChannelErrorCode =
  | 'CHANNEL_FRAME_EMPTY'
  | 'CHANNEL_FRAME_TOO_LARGE'
  | 'CHANNEL_FRAME_UTF8'
  | 'CHANNEL_FRAME_JSON'
  | 'CHANNEL_FRAME_VERSION'
  | 'CHANNEL_FRAME_SCHEMA'
  | 'CHANNEL_FAILED'
  | 'CHANNEL_CLOSED';

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

/** What crosses the wire when something is refused: a code and a fixed message, never the request's values. */
export interface WireError {
  code: string;
  message: string;
}
