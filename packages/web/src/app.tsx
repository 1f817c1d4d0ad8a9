import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { flushSync } from 'react-dom';
import type { BastionApi, Session } from '@bastion/bridge';
import { createSessionOnDefaultModel, getBastion } from './bastion.js';
import { useHostLink, type HostLink } from './host-link.js';
import { useRoute } from './route.js';
import { PostureBanner } from './components/posture-banner.js';
import { SessionList } from './components/session-list.js';
import { ChatView } from './components/chat-view.js';
import { HomeView } from './components/home-view.js';
import { loadMarkdownRenderer } from './components/markdown-loader.js';
import { setNotificationOpener } from './notifications.js';
import { LIST_FOLDED_KEY, readStoredFlag, saveStoredFlag } from './browser-prefs.js';
import { holdSessionOpen, keepNewSessions, rememberNewSession, removeLeftNewSessions } from './new-sessions.js';
import { isAltShiftKey, MESSAGE_BOX_KEY, pageKeyMayAct, SESSION_LIST_KEY } from './shortcut-keys.js';

// Settings (endpoints, policy, audit log) is its own chunk, fetched when first opened: the first
// paint of a session does not wait for it. The chunk is a module import()ed by the nonce-bearing
// entry script, which the CSP's 'strict-dynamic' allows.
const SettingsView = lazy(() =>
  import('./components/settings-view.js').then((module) => ({ default: module.SettingsView })),
);

/**
 * Whether `session` is what New session would make now: no message yet, in the folder a new session
 * works in (the first granted, the daemon's default), on the default model. False when that cannot be read.
 */
async function isLikeNewSession(bastion: BastionApi, session: Session): Promise<boolean> {
  if (session.last_run !== null) return false;
  try {
    const [{ workspaces }, models] = await Promise.all([bastion.workspaces.list(), bastion.models.list()]);
    return (
      session.workspace === workspaces[0]?.root &&
      session.provider === models.default.provider &&
      session.model === models.default.model
    );
  } catch {
    return false;
  }
}

/**
 * Said under the message box while Bastion does not answer: nothing at the page's address
 * (UNREACHABLE), or Bastion answering but its agent down or being restarted (the banner says which).
 */
function notSent(link: HostLink): string | undefined {
  if (link.state !== 'lost') return undefined;
  return link.code === 'UNREACHABLE'
    ? 'Not connected to Bastion: nothing can be sent now. Your message stays here.'
    : 'The agent is not answering (it may be restarting): nothing can be sent now. Your message stays here.';
}

/**
 * What to do while Bastion does not answer. Nothing answering at the page's address means
 * `bastion start` was stopped: a new start listens at a new address, with a new sign-in, so it
 * opens a page of its own and this one cannot follow it. A page that is refused says why.
 */
function LostBanner({ link }: { link: HostLink }) {
  if (link.state !== 'lost') return null;
  if (link.code !== 'UNREACHABLE') {
    return (
      <div className="banner banner-error" role="alert">
        Cannot reach the agent: {link.reason}. Retrying…
      </div>
    );
  }
  return (
    <div className="banner banner-error" role="alert">
      <strong>Bastion is not running</strong> (or not answering). Run <code>bastion start</code> in this project’s
      folder again: it opens a new page, as this one cannot follow a new start, so copy what you typed first.
    </div>
  );
}

export function App() {
  const bastion = getBastion();
  const [route, navigate] = useRoute();
  const { link, recheck } = useHostLink(bastion);
  /** Why nothing can be sent while Bastion does not answer. */
  const unavailable = notSent(link);
  const [sessionsVersion, setSessionsVersion] = useState(0);
  const refreshSessions = useCallback(() => setSessionsVersion((v) => v + 1), []);
  // On a narrow screen the session list folds away while a page is open; this shows it again.
  const [sessionsShown, setSessionsShown] = useState(false);
  // On a wider one it shows unless the reader folded it away, as this browser keeps.
  const [listFolded, setListFolded] = useState(() => readStoredFlag(LIST_FOLDED_KEY));

  /**
   * New session (the list's button, `/new`): a session on the default model, opened. While the open
   * session is what that would make (no message yet, in the same folder, on the default model), it
   * is that session: its message box takes the focus, and no other empty one piles up in the list.
   */
  const newSession = useCallback(async () => {
    if (!bastion) return;
    const open =
      route.page === 'session' ? await bastion.sessions.get(route.sessionId).catch(() => undefined) : undefined;
    flushSync(() => setSessionsShown(false));
    if (open && (await isLikeNewSession(bastion, open))) {
      document.getElementById('composer-input')?.focus();
      return;
    }
    const session = await createSessionOnDefaultModel(bastion, { provisional: true });
    rememberNewSession(session);
    refreshSessions();
    navigate({ page: 'session', sessionId: session.id });
  }, [bastion, route, navigate, refreshSessions]);

  const openSessionId = route.page === 'session' ? route.sessionId : undefined;
  // The open session is held as shown by this tab, for the other tabs' removal below; a session
  // left here is no longer held by the time that removal runs.
  useEffect(() => (openSessionId === undefined ? undefined : holdSessionOpen(openSessionId)), [openSessionId]);
  // A session New session made and left untouched (for another session, the home page, a new one)
  // is removed; Settings is not leaving it, as Back from there would find it gone: there it is kept,
  // as no stream of this tab shows it to the daemon meanwhile.
  useEffect(() => {
    if (!bastion) return;
    if (route.page === 'settings') {
      keepNewSessions(bastion);
      return;
    }
    void removeLeftNewSessions(bastion, openSessionId).then((removed) => {
      if (removed) refreshSessions();
    });
  }, [bastion, route.page, openSessionId, refreshSessions]);

  // A notification clicked opens its session here, through the app's own route.
  useEffect(() => {
    setNotificationOpener((sessionId) => {
      setSessionsShown(false);
      navigate({ page: 'session', sessionId });
    });
    return () => setNotificationOpener(undefined);
  }, [navigate]);

  // Alt+Shift+C: the focus to the message box (the home page's or the open session's), the session
  // list folded on a narrow window. In the box already, the key is the box's (on a Mac it types Ç).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isAltShiftKey(event, MESSAGE_BOX_KEY) || !pageKeyMayAct(event)) return;
      const box = document.getElementById('composer-input');
      if (box === null || box === document.activeElement) return;
      event.preventDefault();
      flushSync(() => setSessionsShown(false));
      box.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // Alt+Shift+S: Sessions, whichever of its buttons this window's width shows (none on the home page).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isAltShiftKey(event, SESSION_LIST_KEY) || !pageKeyMayAct(event)) return;
      const toggles = document.querySelectorAll<HTMLElement>('.sessions-toggle, .list-fold');
      const shown = Array.from(toggles).find((toggle) => toggle.offsetParent !== null);
      if (!shown) return;
      event.preventDefault();
      shown.click();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // After the first render: the renderer's chunk is evaluated once the first paint is done.
  useEffect(() => {
    loadMarkdownRenderer().catch(() => undefined);
  }, []);

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
        <PostureBanner link={link} />
        <nav aria-label="Main">
          {/* Sessions: one button for each width (the stylesheet shows the one that applies), so
              each says whether the list shows at its width, and a click acts on the list as laid
              out when it is made. */}
          {route.page !== 'home' && (
            <>
              <button
                type="button"
                className="nav-button sessions-toggle"
                title={`Sessions (${SESSION_LIST_KEY.name})`}
                aria-keyshortcuts={SESSION_LIST_KEY.name}
                aria-expanded={sessionsShown}
                aria-controls="sessions"
                onClick={() => setSessionsShown(!sessionsShown)}
              >
                Sessions
              </button>
              <button
                type="button"
                className="nav-button list-fold"
                title={`Sessions (${SESSION_LIST_KEY.name})`}
                aria-keyshortcuts={SESSION_LIST_KEY.name}
                aria-expanded={!listFolded}
                aria-controls="sessions"
                onClick={() => {
                  setListFolded(!listFolded);
                  saveStoredFlag(LIST_FOLDED_KEY, !listFolded);
                }}
              >
                Sessions
              </button>
            </>
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
      <LostBanner link={link} />
      <div
        className={`layout${route.page === 'home' ? '' : ' in-page'}${sessionsShown ? ' sessions-shown' : ''}${listFolded ? ' list-folded' : ''}`}
        onKeyDown={(event) => {
          // Esc in the session list opened by Sessions folds it, as an open list closes only
          // itself: the focus goes back to Sessions, and a run going in the open session goes on.
          // What in the list took the key first (its search box, Confirm delete, a rename) keeps it.
          const toggle = document.querySelector<HTMLElement>('.sessions-toggle');
          if (event.key !== 'Escape' || event.defaultPrevented || !sessionsShown || toggle?.offsetParent == null)
            return;
          if (!document.getElementById('sessions')?.contains(event.target as Node)) return;
          event.preventDefault();
          setSessionsShown(false);
          toggle.focus();
        }}
      >
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
              <SettingsView
                bastion={bastion}
                mcpFor={route.mcpFor}
                card={route.card}
                onOpenSession={(sessionId) => navigate({ page: 'session', sessionId })}
              />
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
              onSettings={(card) => navigate({ page: 'settings', card })}
              unavailable={unavailable}
              onLinkLost={recheck}
              onNewSession={newSession}
            />
          )}
          {route.page === 'home' && (
            <HomeView
              bastion={bastion}
              unavailable={unavailable}
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
