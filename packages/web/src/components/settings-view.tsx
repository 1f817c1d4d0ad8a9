import { useEffect, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import type { BastionApi, ChatgptStatus } from '@bastion/bridge';
import { describeError, errorCode, formText } from '../bastion.js';
import { AuditLogView } from './audit-log-view.js';
import { HostAuditView } from './host-audit-view.js';
import { PolicyPanel } from './policy-panel.js';
import { DefaultModelSettings } from './default-model-settings.js';
import { EndpointsSettings } from './endpoints-settings.js';
import { McpServersSettings } from './mcp-servers-settings.js';
import { NotificationSettings } from './notification-settings.js';
import { SavedPromptsSettings } from './saved-prompts-settings.js';
import type { SettingsCard } from '../route.js';

const KEY_PROVIDERS = [
  { id: 'openai', label: 'OpenAI' },
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'openrouter', label: 'OpenRouter' },
] as const;

/** The tabs Settings groups its cards under; the id is the address's fragment (`#activity`). */
const TABS = [
  { id: 'models', label: 'Models' },
  { id: 'permissions', label: 'Permissions' },
  { id: 'mcp', label: 'MCP servers' },
  { id: 'activity', label: 'Activity' },
  { id: 'general', label: 'General' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/** The tab the address names (`#permissions`), so a reload stays on it; the first tab otherwise. */
function tabFromHash(): TabId {
  const named = window.location.hash.slice(1);
  return TABS.find((tab) => tab.id === named)?.id ?? 'models';
}

/**
 * Settings as tabs of related cards, one tab shown at a time: the ARIA tabs pattern (arrow keys,
 * Home and End move between tabs and show them). The chosen tab is written to the address's
 * fragment with replaceState, so it survives a reload without adding history entries, and a
 * fragment typed or linked to shows its tab.
 * `mcpFor`: open at the MCP servers tab, with that project chosen (`/mcp` in a session); `card`:
 * open at that card of the Models tab, scrolled to and its heading focused (a failed run's advice).
 * `onOpenSession` opens a session the host audit log names.
 */
export function SettingsView({
  bastion,
  mcpFor,
  card,
  onOpenSession,
}: {
  bastion: BastionApi;
  mcpFor?: string | undefined;
  card?: SettingsCard | undefined;
  onOpenSession: (sessionId: string) => void;
}) {
  // Bumped when keys or endpoints change, so the model lists follow.
  const [providersVersion, setProvidersVersion] = useState(0);
  const providersChanged = () => setProvidersVersion((version) => version + 1);
  const [tab, setTab] = useState<TabId>(() =>
    mcpFor !== undefined ? 'mcp' : card !== undefined ? 'models' : tabFromHash(),
  );
  useEffect(() => {
    if (card === undefined) return;
    const heading = document.getElementById(`${card}-title`);
    heading?.scrollIntoView({ block: 'start' });
    heading?.focus();
  }, [card]);

  const choose = (next: TabId, focus: boolean) => {
    setTab(next);
    window.history.replaceState(window.history.state, '', `#${next}`);
    if (focus) document.getElementById(`settings-tab-${next}`)?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const at = TABS.findIndex((candidate) => candidate.id === tab);
    const to =
      event.key === 'ArrowRight'
        ? (at + 1) % TABS.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + TABS.length) % TABS.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? TABS.length - 1
              : undefined;
    const next = to === undefined ? undefined : TABS[to];
    if (next === undefined) return;
    event.preventDefault();
    choose(next.id, true);
  };
  // The address changed by hand or by a link (`#activity`) shows that tab too.
  useEffect(() => {
    const follow = () => setTab(tabFromHash());
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  const panel = (id: TabId, cards: ReactNode) => (
    <div
      role="tabpanel"
      id={`settings-panel-${id}`}
      aria-labelledby={`settings-tab-${id}`}
      className="settings-panel"
      hidden={tab !== id}
    >
      {cards}
    </div>
  );

  return (
    <section className="settings" aria-label="Settings">
      <h1>Settings</h1>
      <div className="settings-tabs" role="tablist" aria-label="Settings sections" onKeyDown={onKeyDown}>
        {TABS.map(({ id, label }) => (
          <button
            key={id}
            type="button"
            role="tab"
            id={`settings-tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`settings-panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            onClick={() => choose(id, false)}
            data-label={label}
          >
            {label}
          </button>
        ))}
      </div>
      {/* Every panel stays mounted (hidden when not chosen), so a half-filled form survives a tab switch. */}
      {panel(
        'models',
        <>
          <DefaultModelSettings bastion={bastion} version={providersVersion} />
          <ApiKeys bastion={bastion} onChanged={providersChanged} />
          <EndpointsSettings bastion={bastion} onChanged={providersChanged} />
          <Chatgpt bastion={bastion} />
        </>,
      )}
      {panel('permissions', <PolicyPanel bastion={bastion} />)}
      {panel('mcp', <McpServersSettings bastion={bastion} focusFor={mcpFor} />)}
      {panel(
        'activity',
        <>
          <HostAuditView bastion={bastion} onOpenSession={onOpenSession} />
          <AuditLogView bastion={bastion} />
        </>,
      )}
      {panel(
        'general',
        <>
          <NotificationSettings />
          <SavedPromptsSettings bastion={bastion} />
        </>,
      )}
    </section>
  );
}

function ApiKeys({ bastion, onChanged }: { bastion: BastionApi; onChanged: () => void }) {
  const [configured, setConfigured] = useState<Record<string, boolean | undefined>>({});
  const [error, setError] = useState<string>();
  const [saved, setSaved] = useState<string>();

  const refresh = async () => {
    const entries = await Promise.all(
      KEY_PROVIDERS.map(async ({ id }) => [id, await bastion.secrets.has(id)] as const),
    );
    setConfigured(Object.fromEntries(entries));
  };
  useEffect(() => {
    refresh().catch((failure: unknown) => setError(describeError(failure)));
  }, [bastion]);

  const act = async (provider: string, action: () => Promise<void>, done: string) => {
    try {
      await action();
      await refresh();
      onChanged();
      setError(undefined);
      setSaved(`${provider}: ${done}`);
    } catch (failure) {
      setSaved(undefined);
      setError(describeError(failure));
    }
  };

  return (
    <section className="card" aria-labelledby="keys-title">
      <h2 id="keys-title" tabIndex={-1}>
        API keys
      </h2>
      <p className="muted">
        Keys are stored by the agent in auth.json (mode 0600). They are never shown again, here or anywhere.
      </p>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {saved && (
        <p className="inline-ok" role="status">
          {saved}
        </p>
      )}
      {KEY_PROVIDERS.map(({ id, label }) => (
        <form
          key={id}
          className="key-row"
          onSubmit={(event: FormEvent<HTMLFormElement>) => {
            event.preventDefault();
            const form = event.currentTarget;
            const key = formText(form, 'key');
            if (key === '') return;
            form.reset();
            void act(label, () => bastion.secrets.set(id, key), 'key saved');
          }}
        >
          <label htmlFor={`key-${id}`}>{label}</label>
          <span className={configured[id] ? 'badge badge-ok' : 'badge'} data-testid={`key-state-${id}`}>
            {configured[id] === undefined ? '…' : configured[id] ? 'configured' : 'not configured'}
          </span>
          <input
            id={`key-${id}`}
            name="key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder={configured[id] ? 'Enter a new key to replace it' : 'Paste a key'}
          />
          <button type="submit">{configured[id] ? 'Replace' : 'Save'}</button>
          <button
            type="button"
            className="danger"
            disabled={!configured[id]}
            onClick={() => void act(label, () => bastion.secrets.delete(id), 'key deleted')}
          >
            Delete
          </button>
        </form>
      ))}
    </section>
  );
}

function chatgptText(status: ChatgptStatus): string {
  switch (status.state) {
    case 'signed-out':
      return 'Not connected.';
    case 'connecting':
      return 'Finish signing in in the browser window that opened…';
    case 'connected':
      return `Connected${status.email ? ` as ${status.email}` : ''}${status.plan ? ` (${status.plan})` : ''}.`;
    case 'error':
      return `Sign-in failed${status.code ? ` (${status.code})` : ''}. Try again.`;
  }
}

function Chatgpt({ bastion }: { bastion: BastionApi }) {
  const [status, setStatus] = useState<ChatgptStatus>();
  const [error, setError] = useState<string>();
  const [unavailable, setUnavailable] = useState(false);

  const call = (action: () => Promise<ChatgptStatus>) =>
    action()
      .then((answer) => {
        setStatus(answer);
        setError(undefined);
      })
      .catch((failure: unknown) => {
        if (errorCode(failure) === 'IPC_CHANNEL') setUnavailable(true);
        else setError(describeError(failure));
      });

  useEffect(() => {
    void call(() => bastion.chatgpt.status());
  }, [bastion]);

  return (
    <section className="card" aria-labelledby="chatgpt-title">
      <h2 id="chatgpt-title" tabIndex={-1}>
        ChatGPT account (experimental)
      </h2>
      <p className="muted">
        Uses your ChatGPT plan through an experimental sign-in. Not endorsed by OpenAI. Tokens stay with the agent; this
        page only sees status.
      </p>
      {unavailable ? (
        <p className="muted" role="status">
          Not available in this Bastion build.
        </p>
      ) : (
        <>
          <p role="status">{status ? chatgptText(status) : 'Checking…'}</p>
          {error && (
            <p className="inline-error" role="alert">
              {error}
            </p>
          )}
          <div className="row">
            {status?.state !== 'connected' && status?.state !== 'connecting' && (
              <button type="button" className="primary" onClick={() => void call(() => bastion.chatgpt.connect())}>
                Connect
              </button>
            )}
            {status?.state === 'connecting' && (
              <button type="button" onClick={() => void call(() => bastion.chatgpt.cancel())}>
                Cancel
              </button>
            )}
            {status?.state === 'connected' && (
              <button type="button" className="danger" onClick={() => void call(() => bastion.chatgpt.signOut())}>
                Sign out
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
}
