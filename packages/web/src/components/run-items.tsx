/** The transcript's non-tool items: reasoning, retries, errors with their Retry, and each run's summary. */
import { useState } from 'react';
import type { RunContext, TokenUsage } from '@bastion/bridge';
import { BYOK_PROVIDER_IDS, CONTEXT_COMPACT_THRESHOLD, type DaemonErrorCode } from '@bastion/protocol';
import type { SettingsCard } from '../route.js';
import type { TranscriptItem } from '../transcript.js';
import { DiffView, diffOf } from './diff-view.js';
import type { ToolView } from '../transcript.js';
import { CopyButton } from './copy-button.js';

export function Reasoning({ text, live }: { text: string; live: boolean }) {
  return (
    <details className="reasoning">
      <summary>{live ? 'Thinking…' : 'Reasoning'}</summary>
      <div className="plain-text">{text}</div>
    </details>
  );
}

function seconds(ms: number): string {
  return `${Math.max(1, Math.round(ms / 1000))}s`;
}

/** A failed attempt: while the run waits, when it tries again; then that it did, or (ended) nothing more. */
export function RetryNotice({ item }: { item: Extract<TranscriptItem, { kind: 'retry' }> }) {
  const then =
    item.settled === 'ended'
      ? ''
      : item.settled === 'retried'
        ? `; tried again after ${seconds(item.delayMs)}`
        : `; trying again in ${seconds(item.delayMs)}`;
  return (
    <p className="notice" role={item.settled === undefined ? 'status' : undefined}>
      Attempt {item.attempt} of {item.maxAttempts} failed{item.status === undefined ? '' : ` (HTTP ${item.status})`}
      {then}. <span className="muted">{item.message}</span>
    </p>
  );
}

/** What to do about a failed run, in words; `settings`: the card of Settings where it is done, if it is. */
interface Advice {
  text: string;
  settings: SettingsCard | undefined;
}

/** Where a provider's credential is set: its API key, the ChatGPT account, or a custom endpoint. */
const credentialCard = (provider: string | undefined): SettingsCard =>
  provider === 'chatgpt' ? 'chatgpt' : provider !== undefined && BYOK_PROVIDER_IDS.has(provider) ? 'keys' : 'endpoints';

/** What to do about a failed run, by its code (a key that is no daemon code fails to compile). */
const ADVICE: Readonly<Record<string, (provider: string | undefined) => Advice>> = {
  PROVIDER_KEY_MISSING: (provider) => ({
    text: `Add the API key in Settings, or run: bastion secrets set ${provider ?? 'PROVIDER'}`,
    settings: credentialCard(provider),
  }),
  ENDPOINT_NOT_GRANTED: () => ({
    text: 'This endpoint is not approved in this Bastion run: approve it in Settings → Custom endpoints.',
    settings: 'endpoints',
  }),
  RUN_INTERRUPTED: () => ({
    text: 'The agent restarted while this run was going; send the message again.',
    settings: undefined,
  }),
} satisfies Partial<Record<DaemonErrorCode, (provider: string | undefined) => Advice>>;

/** What to do when the provider answered 401: the credential Bastion sent was not accepted. */
function unauthorizedAdvice(provider: string | undefined): string {
  if (provider === 'chatgpt') return 'ChatGPT did not accept the sign-in: connect the account again in Settings.';
  if (provider !== undefined && BYOK_PROVIDER_IDS.has(provider))
    return `The provider did not accept the API key: replace it in Settings → API keys, or run: bastion secrets set ${provider}`;
  return `The endpoint did not accept its key, or needs one: set it in Settings → Custom endpoints, or run: bastion secrets set ${provider ?? 'ENDPOINT'}`;
}

function advice(code: string, status: number | undefined, provider: string | undefined): Advice | undefined {
  if (Object.hasOwn(ADVICE, code)) return ADVICE[code]?.(provider);
  return status === 401 && provider !== 'demo'
    ? { text: unauthorizedAdvice(provider), settings: credentialCard(provider) }
    : undefined;
}

export function RunError({
  item,
  provider,
  onRetry,
  onSettings,
}: {
  item: Extract<TranscriptItem, { kind: 'error' }>;
  provider: string | undefined;
  onRetry: (() => void) | undefined;
  /** Opens Settings at a card, offered when the advice says to do something there. */
  onSettings: (card: SettingsCard) => void;
}) {
  const hint = advice(item.code, item.status, provider);
  return (
    <div className="bubble run-error" role="alert">
      <p>
        <strong>The run failed{item.status === undefined ? '' : ` — HTTP ${item.status}`}:</strong> {item.message}{' '}
        <span className="muted">({item.code})</span>
      </p>
      {item.retryAfterMs !== undefined && <p>The provider asks to wait {seconds(item.retryAfterMs)} (Retry-After).</p>}
      {hint && <p>{hint.text}</p>}
      {(onRetry || hint?.settings) && (
        <div className="run-error-actions">
          {hint?.settings && (
            <button type="button" onClick={() => onSettings(hint.settings as SettingsCard)}>
              Open Settings
            </button>
          )}
          {onRetry && (
            <button type="button" onClick={onRetry}>
              Retry
            </button>
          )}
        </div>
      )}
    </div>
  );
}

export function usageText(usage: TokenUsage): string {
  const tokens = `${usage.input_tokens.toLocaleString()} in · ${usage.output_tokens.toLocaleString()} out`;
  const cached = usage.cached_input_tokens > 0 ? ` · ${usage.cached_input_tokens.toLocaleString()} cached` : '';
  const cost = usage.cost_usd === undefined ? '' : ` · ~$${usage.cost_usd.toFixed(4)}`;
  return `${tokens}${cached}${cost}`;
}

export function UsageLine({ usage, label }: { usage: TokenUsage; label: string }) {
  return (
    <span className="usage" data-testid="usage">
      {label}: {usageText(usage)}
    </span>
  );
}

const compactNumber = new Intl.NumberFormat(undefined, { notation: 'compact' });

/**
 * How full the context window is: the tokens the last finished run's last step used, against the
 * window of the model the session uses now (`context.window`). A meter that turns amber on the way
 * to the share where older turns get summarised, and the share in words.
 */
export function ContextMeter({ context }: { context: RunContext }) {
  const percent = Math.round((100 * context.tokens) / context.window);
  const summarisedAt = Math.round(100 * CONTEXT_COMPACT_THRESHOLD);
  return (
    <span
      className="context-meter"
      data-testid="context-meter"
      title={`The last step used ${context.tokens.toLocaleString()} tokens; the session's model has a ${context.window.toLocaleString()}-token context window. Older turns are summarised at ${summarisedAt}%.`}
    >
      Context{' '}
      <meter
        aria-label="Context window used"
        min={0}
        max={context.window}
        low={(CONTEXT_COMPACT_THRESHOLD / 2) * context.window}
        high={CONTEXT_COMPACT_THRESHOLD * context.window}
        optimum={0}
        value={Math.min(context.tokens, context.window)}
      />{' '}
      {percent}% of {compactNumber.format(context.window)}
    </span>
  );
}

/**
 * The end of a run: how it ended, its tokens, Copy reply (`reply`: the run's text, as markdown),
 * and the files it changed with their diffs a click away, with Undo (`onUndo`, absent while a run
 * goes) or the word that it was undone.
 */
export function RunEnd({
  item,
  reply,
  toolOf,
  onUndo,
}: {
  item: Extract<TranscriptItem, { kind: 'run-end' }>;
  reply: string;
  toolOf: (key: string) => ToolView | undefined;
  onUndo: (() => void) | undefined;
}) {
  const [open, setOpen] = useState<string>();
  if (item.outcome === 'waiting' && item.files.length === 0 && !item.usage) return null;
  return (
    <div className={`run-end run-${item.outcome}`} data-testid="run-end">
      {item.outcome === 'stopped' && <span className="stopped">Stopped</span>}
      {/* A run that stopped to ask goes on as another run once answered: its tokens are those spent up to the question. */}
      {item.usage && (
        <UsageLine usage={item.usage} label={item.outcome === 'waiting' ? 'Up to the approval' : 'This run'} />
      )}
      {reply !== '' && <CopyButton text={reply} label="Copy reply" />}
      {item.files.length > 0 && (
        <div className="files-changed">
          <span>
            Files changed ({item.files.length}):{' '}
            {item.undone ? (
              <span className="undone-label">Undone</span>
            ) : (
              onUndo && (
                <button type="button" className="small" onClick={onUndo}>
                  Undo this run
                </button>
              )
            )}
          </span>
          <ul>
            {item.files.map((file) => {
              const tool = toolOf(file.toolKey);
              const diff = tool ? diffOf(tool.toolName, tool.input, tool.output) : undefined;
              return (
                <li key={file.path}>
                  <button
                    type="button"
                    className="link-button"
                    aria-expanded={open === file.path}
                    onClick={() => setOpen(open === file.path ? undefined : file.path)}
                  >
                    {file.path}
                  </button>
                  {open === file.path && diff !== undefined && <DiffView diff={diff} />}
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </div>
  );
}
