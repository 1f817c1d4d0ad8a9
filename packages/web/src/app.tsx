import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { flushSync } from 'react-dom';
import type { HandshakeResponse } from '@bastion/bridge';
import { BRIDGE_RETRY_MS, createSessionOnDefaultModel, describeError, getBastion } from './bastion.js';
import { useRoute } from './route.js';
import { PostureBanner } from './components/posture-banner.js';
import { SessionList } from './components/session-list.js';
import { ChatView } from './components/chat-view.js';
import { HomeView } from './components/home-view.js';
import { loadMarkdownRenderer } from './components/markdown-loader.js';
import { setNotificationOpener } from './notifications.js';

// Settings (endpoints, policy, audit log) is its own chunk, fetched when first opened: the first
// paint of a session does not wait for it. The chunk is a module import()ed by the nonce-bearing
// entry script, which the CSP's 'strict-dynamic' allows.
const SettingsView = lazy(() =>
  import('./components/settings-view.js').then((module) => ({ default: module.SettingsView })),
);

export function App() {
  const bastion = getBastion();
  const [route, navigate] = useRoute();
  const [handshake, setHandshake] = useState<HandshakeResponse>();
  const [linkError, setLinkError] = useState<string>();
  const [sessionsVersion, setSessionsVersion] = useState(0);
  const refreshSessions = useCallback(() => setSessionsVersion((v) => v + 1), []);
  // On a narrow screen the session list folds away while a page is open; this shows it again.
  const [sessionsShown, setSessionsShown] = useState(false);

  /**
   * New session (the list's button, `/new`): a session on the default model, opened. While the open
   * session has no message yet it is already that: its message box takes the focus, and no other
   * empty session piles up in the list.
   */
  const newSession = useCallback(async () => {
    if (!bastion) return;
    const open =
      route.page === 'session' ? await bastion.sessions.get(route.sessionId).catch(() => undefined) : undefined;
    flushSync(() => setSessionsShown(false));
    if (open?.last_run === null) {
      document.getElementById('composer-input')?.focus();
      return;
    }
    const session = await createSessionOnDefaultModel(bastion);
    refreshSessions();
    navigate({ page: 'session', sessionId: session.id });
  }, [bastion, route, navigate, refreshSessions]);

  // A notification clicked opens its session here, through the app's own route.
  useEffect(() => {
    setNotificationOpener((sessionId) => {
      setSessionsShown(false);
      navigate({ page: 'session', sessionId });
    });
    return () => setNotificationOpener(undefined);
  }, [navigate]);

  // After the first render: the renderer's chunk is evaluated once the first paint is done.
  useEffect(() => {
    loadMarkdownRenderer().catch(() => undefined);
  }, []);

  useEffect(() => {
    if (!bastion) return undefined;
    let timer: number | undefined;
    let cancelled = false;
    const attempt = () => {
      bastion
        .handshake()
        .then((answer) => {
          if (cancelled) return;
          setHandshake(answer);
          setLinkError(undefined);
        })
        .catch((error: unknown) => {
          if (cancelled) return;
          setLinkError(describeError(error));
          timer = window.setTimeout(attempt, BRIDGE_RETRY_MS);
        });
    };
    attempt();
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [bastion]);

  if (!bastion) {
    return (
      <main className="fatal" role="alert">
        <h1>Bastion cannot start here</h1>
        <p>This page has no Bastion bridge. Open Bastion from the launch link that bastion start prints.</p>
      </main>
    );
  }

  return (
    <div className="shell">
      <header className="topbar">
        <a
          className="brand"
          href="/desktop/"
          onClick={(event) => {
            event.preventDefault();
            navigate({ page: 'home' });
          }}
        >
          Bastion
        </a>
        <PostureBanner handshake={handshake} />
        <nav aria-label="Main">
          {route.page !== 'home' && (
            <button
              type="button"
              className="nav-button sessions-toggle"
              aria-expanded={sessionsShown}
              aria-controls="sessions"
              onClick={() => setSessionsShown(!sessionsShown)}
            >
              Sessions
            </button>
          )}
          <button
            type="button"
            className={route.page === 'settings' ? 'nav-button active' : 'nav-button'}
            aria-current={route.page === 'settings' ? 'page' : undefined}
            onClick={() => {
              setSessionsShown(false);
              navigate({ page: 'settings' });
            }}
          >
            Settings
          </button>
        </nav>
      </header>
      {linkError && (
        <div className="banner banner-error" role="alert">
          Cannot reach the agent: {linkError}. Retrying…
        </div>
      )}
      <div className={`layout${route.page === 'home' ? '' : ' in-page'}${sessionsShown ? ' sessions-shown' : ''}`}>
        <SessionList
          bastion={bastion}
          version={sessionsVersion}
          onChanged={refreshSessions}
          onNewSession={newSession}
          selectedId={route.page === 'session' ? route.sessionId : undefined}
          onSelect={(sessionId) => {
            setSessionsShown(false);
            navigate(sessionId ? { page: 'session', sessionId } : { page: 'home' });
          }}
        />
        <main className="content" id="content">
          {route.page === 'settings' && (
            <Suspense fallback={<p className="hint">Loading Settings…</p>}>
              <SettingsView bastion={bastion} mcpFor={route.mcpFor} />
            </Suspense>
          )}
          {route.page === 'session' && (
            <ChatView
              key={route.sessionId}
              bastion={bastion}
              sessionId={route.sessionId}
              sessionsVersion={sessionsVersion}
              onSessionChanged={refreshSessions}
              onMcpServers={(workspace) => navigate({ page: 'settings', mcpFor: workspace })}
              onNewSession={newSession}
            />
          )}
          {route.page === 'home' && (
            <HomeView
              bastion={bastion}
              onSettings={() => navigate({ page: 'settings' })}
              onStarted={(sessionId) => {
                refreshSessions();
                navigate({ page: 'session', sessionId });
              }}
            />
          )}
        </main>
      </div>
    </div>
  );
}
