/**
 * What a failed run's final event says: a DaemonError's fixed code (for an upstream failure, what
 * it means for the session's provider), or a provider's HTTP refusal by its status. Only codes
 * cross the channel from the host, never a failure's own message.
 */
import { MODEL_MAX_UNPARSED_REPLY_BYTES, type AgentEvent, type DaemonErrorCode } from '@bastion/protocol';
import { isDaemonError, type DaemonError } from '../errors.js';
import { isStorageFailure, storageErrorOf } from '../storage/storage-error.js';
import { causeIn, providerErrorDetails } from './provider-retry.js';

/** Codes of a provider's HTTP refusal, by status. */
function providerStatusCode(status: number | undefined): string {
  if (status === 429) return 'PROVIDER_RATE_LIMITED';
  if (status !== undefined && status >= 500) return 'PROVIDER_UNAVAILABLE';
  return 'PROVIDER_FAILED';
}

/** What a provider's HTTP refusal means, by status, for `provider` (its name). */
function providerStatusText(status: number | undefined, provider: string): string {
  if (status === 429) return `${provider} is limiting requests`;
  if (status !== undefined && status >= 500) return `${provider} had an error and could not answer`;
  if (status === 404) return `${provider} has no such model, or nothing at this address`;
  return `${provider} refused the request`;
}

/**
 * What to do about a provider's HTTP refusal, by status, when the words for it are the same for
 * every provider (a 401's depend on where its key is kept: the UI and the CLI say those). It goes
 * in the run's message, so the UI and the CLI both show it.
 */
function providerStatusAdvice(status: number | undefined): string | undefined {
  if (status === 404)
    return "check the model's name (bastion models lists those on offer; Probe in Settings → Custom endpoints lists what an endpoint serves) and, for an endpoint, that its URL is its API's (often ending in /v1)";
  // A 403 is not a bad key (that is a 401) but a refusal of what the key asked for; providers use it
  // for different things, so the advice names the usual causes and points at the provider's own words.
  if (status === 403)
    return "usually the key is valid but not allowed this request: check that the key (its project or organisation) has access to this model, and the account's region and billing; for an endpoint, its server's access settings (what a 403 means varies by provider; its own message, when it sent one, says more)";
  return undefined;
}

/**
 * The AI SDK's refusals of a reply it could not read as the provider's API, by error name: what
 * was wrong with it. A server that is not that API (a URL that answers with a web page or another
 * API) or one that breaks off its stream answers like this; a retry rarely helps.
 */
const UNREADABLE_REPLIES: Readonly<Record<string, string>> = {
  AI_JSONParseError: 'a part of it is not JSON',
  AI_TypeValidationError: 'a part of it is not shaped like a chat reply',
  AI_InvalidResponseDataError: 'it is not a complete chat reply',
  AI_EmptyResponseBodyError: 'it is empty',
};

/** A failed run's event when the provider's reply could not be read (fixed words; never the reply's own text). */
function unreadableReplyEvent(
  runId: string,
  error: unknown,
  provider: string,
): Extract<AgentEvent, { type: 'run-error' }> | undefined {
  const unreadable = causeIn(
    error,
    (cause): cause is Error => cause instanceof Error && Object.hasOwn(UNREADABLE_REPLIES, cause.name),
  );
  if (unreadable === undefined) return undefined;
  return {
    type: 'run-error',
    run_id: runId,
    code: 'PROVIDER_REPLY_INVALID',
    message: `${provider} sent a reply that could not be read (${UNREADABLE_REPLIES[unreadable.name]}): check that the endpoint's URL is its server's OpenAI-compatible API (often ending in /v1) and what the server's log says, then retry`,
  };
}

/**
 * What the host's upstream failures mean, for `provider` (its name): fixed texts, since only the
 * code crosses the channel (never the failure's own message). And the sidecar's bound on a reply.
 */
const UPSTREAM_FAILURES: Readonly<Partial<Record<DaemonErrorCode, (provider: string) => string>>> = {
  UPSTREAM_CONNECTION_REFUSED: (provider) =>
    `could not connect to ${provider}: the connection was refused (is its server running?)`,
  UPSTREAM_CONNECT_TIMEOUT: (provider) =>
    `could not connect to ${provider}: no answer in time (is the address right and the network up?)`,
  UPSTREAM_DNS: (provider) => `could not connect to ${provider}: its host name did not resolve (are you offline?)`,
  UPSTREAM_TLS: (provider) => `could not connect to ${provider}: its TLS certificate or handshake was not accepted`,
  UPSTREAM_CONNECTION_RESET: (provider) => `${provider} closed the connection before its answer ended`,
  UPSTREAM_HEADERS_TIMEOUT: (provider) => `${provider} took the request but did not answer in time`,
  UPSTREAM_BODY_TIMEOUT: (provider) => `${provider} stopped sending its answer partway`,
  UPSTREAM_HEADERS_OVERFLOW: (provider) => `${provider} answered with headers too large to read`,
  UPSTREAM_FAILED: (provider) => `the request to ${provider} failed`,
  PROVIDER_REPLY_TOO_LARGE: (provider) =>
    `${provider} sent one part of its reply over ${MODEL_MAX_UNPARSED_REPLY_BYTES / (1024 * 1024)} MiB (an event of its stream, or a reply not streamed), more than any model's reply needs: Bastion stopped reading it and kept nothing of it`,
};

/**
 * The AI SDK's refusals of the prompt a session's stored messages make, by error name: what broke.
 * They come before anything is sent, so a retry fails the same way; the user is told what helps.
 */
const TRANSCRIPT_REFUSALS: Readonly<Record<string, string>> = {
  AI_MissingToolResultsError: 'a tool call in them has no result',
  AI_InvalidToolApprovalError: 'an approval answer in them has no approval request',
  AI_InvalidPromptError: 'they do not make a valid prompt',
};

/** A failed run's event when the session's stored messages, not the provider, are what broke. */
function transcriptErrorEvent(runId: string, error: unknown): Extract<AgentEvent, { type: 'run-error' }> | undefined {
  const name = error instanceof Error ? error.name : undefined;
  const what = name !== undefined && Object.hasOwn(TRANSCRIPT_REFUSALS, name) ? TRANSCRIPT_REFUSALS[name] : undefined;
  if (what === undefined) return undefined;
  return {
    type: 'run-error',
    run_id: runId,
    code: 'TRANSCRIPT_INVALID',
    message: `the session's stored messages cannot be sent to a model (${what}), so nothing was sent and a retry fails the same way: rewind the session to before the prompt where this began, or start a new session`,
  };
}

/**
 * The final event of a failed run: a DaemonError's fixed code (and for an upstream failure what it
 * means), TRANSCRIPT_INVALID when the stored messages could not be sent, PROVIDER_REPLY_INVALID
 * when the provider's reply could not be read, or for a provider's HTTP
 * answer its status, its Retry-After and its message (sanitized by providerErrorDetails).
 * `provider` names the session's provider.
 */
export function runErrorEvent(
  runId: string,
  error: unknown,
  provider: string,
): Extract<AgentEvent, { type: 'run-error' }> {
  const own = daemonErrorIn(error);
  if (own) {
    // An egress block names the kind of secret (a fixed text from the host's code, never the value);
    // a storage failure says what to do (a fixed text too).
    if (own.code === 'CONTEXT_COMPACTION_FAILED') return compactionErrorEvent(runId, own);
    const upstream = Object.hasOwn(UPSTREAM_FAILURES, own.code) ? UPSTREAM_FAILURES[own.code] : undefined;
    const message =
      own.code === 'EGRESS_SECRET' || isStorageFailure(own)
        ? own.message
        : (upstream?.(provider) ?? 'the model run failed');
    return { type: 'run-error', run_id: runId, code: own.code, message };
  }
  const unsentOrUnread = transcriptErrorEvent(runId, error) ?? unreadableReplyEvent(runId, error, provider);
  if (unsentOrUnread) return unsentOrUnread;
  const details = providerErrorDetails(error);
  if (!details) return { type: 'run-error', run_id: runId, code: 'PROVIDER_FAILED', message: 'the model run failed' };
  const text = providerStatusText(details.status, provider);
  const advice = providerStatusAdvice(details.status);
  const told = details.message.length > 0 ? `${text}: ${details.message}` : text;
  return {
    type: 'run-error',
    run_id: runId,
    code: providerStatusCode(details.status),
    message: advice === undefined ? told : `${told} — ${advice}`,
    ...(details.status === undefined ? {} : { status: details.status }),
    ...(details.retryAfterMs === undefined ? {} : { retry_after_ms: details.retryAfterMs }),
  };
}

/** A failed compaction: the provider's status and sanitized message when the summary call was refused. */
function compactionErrorEvent(runId: string, error: DaemonError): Extract<AgentEvent, { type: 'run-error' }> {
  const provider = providerErrorDetails(error.cause);
  const base = "the session's older turns could not be summarised to fit the model's context window";
  return {
    type: 'run-error',
    run_id: runId,
    code: error.code,
    message: provider && provider.message.length > 0 ? `${base}: ${provider.message}` : base,
    ...(provider?.status === undefined ? {} : { status: provider.status }),
  };
}

/**
 * The DaemonError behind a failed run, if any: the AI SDK and the WHATWG fetch contract wrap
 * transport failures (`TypeError('fetch failed', { cause })`), so the fixed code of the real
 * cause is found by walking a few `cause` links. Only codes cross the wire, never messages.
 */
export function daemonErrorIn(error: unknown): DaemonError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (isDaemonError(current)) return current;
    const storage = storageErrorOf(current);
    if (storage) return storage;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
