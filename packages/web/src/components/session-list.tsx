import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import type { BastionApi, Session } from '@bastion/bridge';
import {
  PAGE_MAX_LIMIT,
  SESSION_SEARCH_DELAY_MS,
  SESSION_SEARCH_MAX_CHARS,
  SESSION_SEARCH_PAGE_LIMIT,
  UI_SESSION_LIST_POLL_MS,
} from '@bastion/protocol';
import { describeError, formText } from '../bastion.js';
import { forgetDrafts } from '../drafts.js';
import { forgetDraftImages } from '../image-drafts.js';
import { useGrantedRoots } from '../granted-roots.js';
import {
  isAltShiftKey,
  NEW_SESSION_KEY,
  NEXT_SESSION_KEY,
  pageKeyMayAct,
  PREVIOUS_SESSION_KEY,
} from '../shortcut-keys.js';
import { sessionListWatcher } from '../notifications.js';
import {
  nextSessionSearch,
  NO_SESSION_SEARCH,
  searchTextOf,
  sessionSearchStatus,
  sessionSearchView,
} from '../session-search.js';
import { useHostAsks } from './host-ask-prompt.js';
import { modelName } from './model-picker.js';

interface Props {
  bastion: BastionApi;
  version: number;
  selectedId: string | undefined;
  onSelect: (sessionId: string | undefined) => void;
  /** New session: a new one on the default model, or the open one while it has no message. */
  onNewSession: () => Promise<void>;
  onChanged: () => void;
}

/** "14:05" today, "3 Dec" this year, "3 Dec 2025" before. */
function when(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const now = new Date();
  if (date.toDateString() === now.toDateString()) {
    return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  }
  return date.toLocaleDateString(undefined, {
    day: 'numeric',
    month: 'short',
    ...(date.getFullYear() === now.getFullYear() ? {} : { year: 'numeric' }),
  });
}

/** The last segment of a folder's path. */
const folderName = (path: string): string => path.replace(/\/+$/, '').split('/').pop() || path;

export function SessionList({ bastion, version, selectedId, onSelect, onNewSession, onChanged }: Props) {
  // A session of a folder this Bastion does not work in names that folder.
  const roots = useGrantedRoots(bastion);
  // The host's own questions wait outside the daemon's record (approval_pending); each names its session.
  const hostAsks = useHostAsks(bastion);
  const [sessions, setSessions] = useState<Session[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<string>();
  /**
   * The session whose rename form was closed from inside it (Save, Enter, Esc or Cancel): its
   * Rename takes the focus back, which the closed form had; without it the focus fell to the page.
   */
  const renameClosed = useRef<string>(undefined);
  const closeRename = (sessionId: string) => {
    renameClosed.current = sessionId;
    setRenaming(undefined);
  };
  useEffect(() => {
    const sessionId = renameClosed.current;
    if (renaming !== undefined || sessionId === undefined) return;
    renameClosed.current = undefined;
    document.getElementById(`rename-${sessionId}`)?.focus();
  }, [renaming]);
  /**
   * The session whose Delete asks to be confirmed. It stays armed only while its button keeps the
   * focus (given to it on arming): Esc, a click elsewhere, Rename or another session disarm it.
   */
  const [confirmDelete, setConfirmDelete] = useState<string>();
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirmDelete !== undefined) confirmButton.current?.focus();
  }, [confirmDelete]);
  useEffect(() => setConfirmDelete(undefined), [selectedId]);
  const [query, setQuery] = useState('');

  // The daemon's matches for the box's text. Each asking is numbered; only the latest one's answer
  // is shown, so a slow answer to an earlier text never replaces a later one's.
  const [search, dispatchSearch] = useReducer(nextSessionSearch, NO_SESSION_SEARCH);
  const searchNow = useRef(search);
  searchNow.current = search;
  const askings = useRef(0);
  const askSearch = useCallback(
    (text: string, limit: number) => {
      const asking = ++askings.current;
      dispatchSearch({ type: 'ask', text, asking });
      bastion.sessions.list({ search: text, limit }).then(
        (page) => dispatchSearch({ type: 'answer', asking, page, append: false }),
        (failure: unknown) => dispatchSearch({ type: 'fail', asking, error: describeError(failure) }),
      );
    },
    [bastion],
  );
  const showOlderMatches = () => {
    const { text, asking, next, loadingMore } = searchNow.current;
    if (next === null || loadingMore) return;
    dispatchSearch({ type: 'more' });
    bastion.sessions.list({ search: text, limit: SESSION_SEARCH_PAGE_LIMIT, cursor: next }).then(
      (page) => dispatchSearch({ type: 'answer', asking, page, append: true }),
      (failure: unknown) => dispatchSearch({ type: 'fail', asking, error: describeError(failure) }),
    );
  };
  const wanted = searchTextOf(query);
  useEffect(() => {
    if (wanted === undefined) {
      if (searchNow.current.text !== '') dispatchSearch({ type: 'clear', asking: ++askings.current });
      return undefined;
    }
    const timer = window.setTimeout(() => {
      // Enter may have asked for it already.
      if (searchNow.current.text !== wanted) askSearch(wanted, SESSION_SEARCH_PAGE_LIMIT);
    }, SESSION_SEARCH_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [wanted, askSearch]);

  /**
   * Bumped to read the list again while a run goes, so its mark follows when the run ends (or
   * stops to wait for an approval), and after a read that failed (the agent restarting, or down),
   * so its alert goes once the list can be read. An approval waiting alone is not polled for: it is
   * answered in its session's view, which reads the list again.
   */
  const [poll, setPoll] = useState(0);
  /** Reads of the list that failed in a row (0 once one succeeds); each failure sets the next try. */
  const [failedReads, setFailedReads] = useState(0);
  // Each read also tells a run of another session that ended or waits (when notifications are on).
  const watchRuns = useMemo(() => sessionListWatcher(bastion), [bastion]);
  const openId = useRef(selectedId);
  openId.current = selectedId;
  useEffect(() => {
    let cancelled = false;
    bastion.sessions
      .list({ limit: 100 })
      .then((page) => {
        if (cancelled) return;
        watchRuns(page.sessions, openId.current);
        setSessions(page.sessions);
        setError(undefined);
        setFailedReads(0);
      })
      .catch((failure: unknown) => {
        if (cancelled) return;
        setError(`The sessions could not be read: ${describeError(failure)}. Trying again…`);
        setFailedReads((count) => count + 1);
      });
    // The matches shown are read again too (a session renamed, deleted or done running), as many as are shown.
    const shown = searchNow.current;
    if (shown.text !== '' && shown.sessions !== undefined) {
      askSearch(shown.text, Math.min(PAGE_MAX_LIMIT, Math.max(SESSION_SEARCH_PAGE_LIMIT, shown.sessions.length)));
    }
    return () => {
      cancelled = true;
    };
  }, [bastion, version, poll, askSearch, watchRuns]);
  const view = sessionSearchView(query, search);
  const listed = view.kind === 'all' ? sessions : view.kind === 'searching' ? view.stale : view.sessions;
  /**
   * A session deleted from the list, and its row's place: once its row is gone, the row now in that
   * place (else the last) takes the focus its Confirm delete had, which would fall to the page.
   */
  const deletedRow = useRef<{ id: string; index: number }>(undefined);
  useEffect(() => {
    const deleted = deletedRow.current;
    if (deleted === undefined || listed === undefined || listed.some((session) => session.id === deleted.id)) return;
    deletedRow.current = undefined;
    const focused = document.activeElement;
    if (focused !== null && focused !== document.body) return;
    const rows = document.querySelectorAll<HTMLButtonElement>('.session-list .session-open');
    rows[Math.min(deleted.index, rows.length - 1)]?.focus();
  }, [listed]);
  const running = (list: readonly Session[] | undefined) =>
    list?.some((session) => session.last_run?.status === 'running') === true;
  const anyWorking = running(sessions) || running(listed);
  useEffect(() => {
    if (!anyWorking && failedReads === 0) return;
    const timer = window.setTimeout(() => setPoll((count) => count + 1), UI_SESSION_LIST_POLL_MS);
    return () => window.clearTimeout(timer);
  }, [anyWorking, sessions, search, failedReads]);

  const act = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      setError(undefined);
      onChanged();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  const status = sessionSearchStatus(view);

  // Alt+Shift+N does what New session does (one session a press, not one a repeat); Alt+Shift+J
  // and K open the session below and above the open one in the list as shown (the matches while
  // searching), the first when none of them is open, nothing past either end. The listener reads
  // the latest render's list through the ref.
  const onPageKey = useRef<(event: KeyboardEvent) => void>(undefined);
  onPageKey.current = (event) => {
    if (isAltShiftKey(event, NEW_SESSION_KEY)) {
      if (!pageKeyMayAct(event)) return;
      event.preventDefault();
      if (!busy && !event.repeat) void act(onNewSession);
      return;
    }
    const step = isAltShiftKey(event, NEXT_SESSION_KEY) ? 1 : isAltShiftKey(event, PREVIOUS_SESSION_KEY) ? -1 : 0;
    if (step === 0 || !pageKeyMayAct(event)) return;
    event.preventDefault();
    const open = listed?.findIndex((session) => session.id === selectedId) ?? -1;
    const next = open === -1 ? listed?.[0] : listed?.[open + step];
    if (next !== undefined) onSelect(next.id);
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => onPageKey.current?.(event);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <aside className="sidebar" id="sessions" aria-label="Sessions">
      <div className="sidebar-head">
        <h2>Sessions</h2>
        <button
          type="button"
          className="primary"
          disabled={busy}
          title={`New session (${NEW_SESSION_KEY.name})`}
          aria-keyshortcuts={NEW_SESSION_KEY.name}
          onClick={() => void act(onNewSession)}
        >
          New session
        </button>
      </div>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {sessions === undefined && !error && <p className="muted">Loading…</p>}
      {sessions?.length === 0 && query === '' && <p className="muted">No sessions yet.</p>}
      {sessions !== undefined && (sessions.length > 0 || query !== '') && (
        <div className="session-search" role="search" aria-label="Search sessions">
          {/* Not "messages": tests and assistive tech find the message box by the word "Message". */}
          <label htmlFor="session-search" className="visually-hidden">
            Search sessions by title, prompt or reply
          </label>
          <input
            id="session-search"
            type="search"
            placeholder="Search sessions"
            autoComplete="off"
            spellCheck={false}
            maxLength={SESSION_SEARCH_MAX_CHARS}
            aria-describedby="session-search-status"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && query !== '') {
                // The box empties itself, and nothing around it (a dialog, the narrow list) closes.
                event.preventDefault();
                event.stopPropagation();
                setQuery('');
              } else if (
                event.key === 'Enter' &&
                wanted !== undefined &&
                (search.text !== wanted || search.error !== undefined)
              ) {
                // At once, without the delay; or again, after a failure.
                event.preventDefault();
                askSearch(wanted, SESSION_SEARCH_PAGE_LIMIT);
              }
            }}
          />
          <p id="session-search-status" className="muted session-search-status" role="status">
            {status}
          </p>
          {view.kind === 'failed' && (
            <p className="inline-error" role="alert">
              Could not search the sessions: {view.error}
            </p>
          )}
        </div>
      )}
      <ul className="session-list" aria-busy={view.kind === 'searching' ? true : undefined}>
        {listed?.map((session, index) => (
          <li key={session.id} className={session.id === selectedId ? 'session selected' : 'session'}>
            {renaming === session.id ? (
              <form
                className="rename"
                onSubmit={(event) => {
                  event.preventDefault();
                  const title = formText(event.currentTarget, 'title');
                  closeRename(session.id);
                  void act(() => bastion.sessions.update(session.id, { title }));
                }}
              >
                <label className="visually-hidden" htmlFor={`title-${session.id}`}>
                  Session title
                </label>
                <input
                  id={`title-${session.id}`}
                  name="title"
                  defaultValue={session.title}
                  autoFocus
                  maxLength={200}
                  onKeyDown={(event) => {
                    if (event.key !== 'Escape' || event.nativeEvent.isComposing) return;
                    // Esc gives up the new title, as Cancel does; a run going in the open session goes on.
                    event.preventDefault();
                    closeRename(session.id);
                  }}
                />
                <button type="submit">Save</button>
                <button type="button" onClick={() => closeRename(session.id)}>
                  Cancel
                </button>
              </form>
            ) : (
              <>
                <button
                  type="button"
                  className="session-open"
                  aria-current={session.id === selectedId ? 'page' : undefined}
                  onClick={() => onSelect(session.id)}
                >
                  <span className="session-title">
                    {session.approval_pending || hostAsks.some((ask) => ask.session_id === session.id) ? (
                      <span className="badge session-waiting">needs approval</span>
                    ) : (
                      session.last_run?.status === 'running' && (
                        <span className="session-running" title="A run is going">
                          <span className="spinner" aria-hidden="true" />
                          <span className="visually-hidden">Running: </span>
                        </span>
                      )
                    )}
                    {session.title || 'Untitled session'}
                  </span>
                  <span className="session-meta">
                    <time dateTime={session.updated_at}>{when(session.updated_at)}</time>
                    {' · '}
                    {modelName(session)}
                    {session.mode === 'auto' ? ' · auto' : ''}
                    {session.workspace !== null && roots !== undefined && !roots.includes(session.workspace) && (
                      <span title={session.workspace}> · in {folderName(session.workspace)}</span>
                    )}
                  </span>
                </button>
                <div className="session-actions">
                  <button
                    id={`rename-${session.id}`}
                    type="button"
                    className="small"
                    onClick={() => {
                      setConfirmDelete(undefined);
                      setRenaming(session.id);
                    }}
                    aria-label={`Rename ${session.title || 'session'}`}
                  >
                    Rename
                  </button>
                  {confirmDelete === session.id ? (
                    <button
                      ref={confirmButton}
                      type="button"
                      className="small danger"
                      onBlur={() => setConfirmDelete(undefined)}
                      onKeyDown={(event) => {
                        if (event.key !== 'Escape') return;
                        // Only the confirmation goes: a run going in the open session is not stopped.
                        event.preventDefault();
                        event.stopPropagation();
                        setConfirmDelete(undefined);
                      }}
                      onClick={() => {
                        setConfirmDelete(undefined);
                        // The open session's page goes home, where the message box takes the focus.
                        if (session.id !== selectedId) deletedRow.current = { id: session.id, index };
                        void act(async () => {
                          await bastion.sessions.delete(session.id);
                          forgetDrafts(session.id);
                          forgetDraftImages(session.id);
                          if (session.id === selectedId) onSelect(undefined);
                        });
                      }}
                    >
                      Confirm delete
                    </button>
                  ) : (
                    <button
                      type="button"
                      className="small"
                      onClick={() => setConfirmDelete(session.id)}
                      aria-label={`Delete ${session.title || 'session'}`}
                    >
                      Delete
                    </button>
                  )}
                </div>
              </>
            )}
          </li>
        ))}
      </ul>
      {view.kind === 'found' && view.more && (
        <button type="button" className="session-search-more" disabled={view.loadingMore} onClick={showOlderMatches}>
          {view.loadingMore ? 'Reading older matches…' : 'Show older matches'}
        </button>
      )}
      {view.kind === 'failed' && search.next !== null && search.sessions !== undefined && (
        <button type="button" className="session-search-more" onClick={showOlderMatches}>
          Show older matches
        </button>
      )}
    </aside>
  );
}
