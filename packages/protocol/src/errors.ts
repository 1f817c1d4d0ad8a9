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

/**
 * Codes of channel v1 failures. The first one closes the channel. The `CHANNEL_FRAME_*` codes are
 * frames that fail to decode or fail their schema; the others are well-formed frames that break the
 * channel's state rules.
 */
export type ChannelErrorCode =
  | 'CHANNEL_FRAME_EMPTY'
  | 'CHANNEL_FRAME_TOO_LARGE'
  | 'CHANNEL_FRAME_UTF8'
  | 'CHANNEL_FRAME_JSON'
  | 'CHANNEL_FRAME_VERSION'
  | 'CHANNEL_FRAME_SCHEMA'
  /** A transport frame names a request id that was never started on this channel. */
  | 'CHANNEL_UNKNOWN_REQUEST'
  /** A `request.start` reuses the id of a live or finished request. */
  | 'CHANNEL_REQUEST_ID_REUSED'
  /** A body chunk carries more bytes than the receiver granted as credit. */
  | 'CHANNEL_CREDIT_EXCEEDED'
  /** A frame arrives in a state that does not accept it (a chunk after its end, a second start or bootstrap). */
  | 'CHANNEL_FRAME_OUT_OF_ORDER'
  /** A `grant.update` whose revision is not above the last one, or a `grant.applied` for a revision never sent. */
  | 'CHANNEL_GRANT_REVISION'
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
