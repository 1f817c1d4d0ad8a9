/**
 * SEC-008: the ChatGPT boundary's errors. A code and a fixed message chosen here, never a value
 * from a token response, a callback, an upstream body or a claim; no cause is attached, so nothing
 * upstream can ride along into a log or a wire error.
 */
import type { ChatgptErrorCode } from '@bastion/protocol';
import { DaemonError } from '../errors.js';

const MESSAGES: Record<ChatgptErrorCode, { status: 400 | 403 | 404 | 409 | 410 | 429 | 502 | 503; message: string }> = {
  OAUTH_UNAVAILABLE: { status: 503, message: 'ChatGPT sign-in is not configured' },
  OAUTH_HOST_ONLY: { status: 403, message: 'this route is for the host only' },
  OAUTH_ATTEMPT: { status: 404, message: 'no such sign-in attempt' },
  OAUTH_STATE: { status: 400, message: 'the sign-in state does not match' },
  OAUTH_TIMEOUT: { status: 410, message: 'the sign-in attempt expired; start again' },
  OAUTH_CANCELLED: { status: 409, message: 'the sign-in attempt was cancelled' },
  OAUTH_DENIED: { status: 403, message: 'the sign-in was not approved' },
  OAUTH_CALLBACK_PORT: { status: 503, message: 'no callback port is free' },
  OAUTH_AUTHORIZATION_URL: { status: 502, message: 'the authorization URL was refused' },
  OAUTH_EXCHANGE: { status: 502, message: 'the sign-in could not be completed' },
  OAUTH_REFRESH: { status: 403, message: 'the ChatGPT session ended; sign in again' },
  OAUTH_SIGNED_OUT: { status: 409, message: 'not signed in to ChatGPT' },
  OAUTH_SUPERSEDED: { status: 409, message: 'the ChatGPT sign-in changed meanwhile' },
  PROVIDER_ENTITLEMENT: { status: 403, message: 'this ChatGPT plan cannot use this model' },
  PROVIDER_RATE_LIMIT: { status: 429, message: 'the ChatGPT usage limit was reached; try later' },
  PROVIDER_MODEL: { status: 400, message: 'no such ChatGPT model' },
  PROVIDER_DESTINATION: { status: 400, message: 'the request is not for the ChatGPT Responses endpoint' },
};

export class ChatgptAuthError extends DaemonError {
  override readonly name = 'ChatgptAuthError';
  override readonly code: ChatgptErrorCode;
  /** The HTTP status a route answers with. */
  readonly status: (typeof MESSAGES)[ChatgptErrorCode]['status'];

  constructor(code: ChatgptErrorCode) {
    super(code, MESSAGES[code].message);
    this.code = code;
    this.status = MESSAGES[code].status;
  }
}
