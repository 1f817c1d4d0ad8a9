/**
 * SEC-008: the ChatGPT boundary's errors. A code and a fixed message chosen here, never a value
 * from a token response, a callback, an upstream body or a claim; no cause is attached, so nothing
 * upstream can ride along into a log or a wire error.
 */
import type { ChatgptErrorCode } from '@bastion/protocol';
import { DaemonError } from '../errors.js';

/** The codes raised by the boundary's logic; OAUTH_BAD_REQUEST is the route's body reader's. */
type ChatgptFailureCode = Exclude<ChatgptErrorCode, 'OAUTH_BAD_REQUEST'>;

const MESSAGES: Record<ChatgptFailureCode, string> = {
  OAUTH_UNAVAILABLE: 'ChatGPT sign-in is not configured',
  OAUTH_HOST_ONLY: 'this route is for the host only',
  OAUTH_ATTEMPT: 'no such sign-in attempt',
  OAUTH_STATE: 'the sign-in state does not match',
  OAUTH_TIMEOUT: 'the sign-in attempt expired; start again',
  OAUTH_CANCELLED: 'the sign-in attempt was cancelled',
  OAUTH_DENIED: 'the sign-in was not approved',
  OAUTH_CALLBACK_PORT: 'no callback port is free',
  OAUTH_AUTHORIZATION_URL: 'the authorization URL was refused',
  OAUTH_EXCHANGE: 'the sign-in could not be completed',
  OAUTH_REFRESH: 'the ChatGPT session ended; sign in again',
  OAUTH_SIGNED_OUT: 'not signed in to ChatGPT',
  OAUTH_SUPERSEDED: 'the ChatGPT sign-in changed meanwhile',
  PROVIDER_ENTITLEMENT: 'this ChatGPT plan cannot use this model',
  PROVIDER_RATE_LIMIT: 'the ChatGPT usage limit was reached; try later',
  PROVIDER_MODEL: 'no such ChatGPT model',
  PROVIDER_DESTINATION: 'the request is not for the ChatGPT Responses endpoint',
};

export class ChatgptAuthError extends DaemonError<ChatgptFailureCode> {
  override readonly name = 'ChatgptAuthError';

  constructor(code: ChatgptFailureCode) {
    super(code, MESSAGES[code]);
  }
}
