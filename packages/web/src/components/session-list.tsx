import { useEffect, useState } from 'react';
import type { BastionApi, Session } from '@bastion/bridge';
import { UI_SESSION_LIST_POLL_MS } from '@bastion/protocol';
import { createSessionOnDefaultModel, describeError, formText } from '../bastion.js';
import { forgetDrafts } from '../drafts.js';
import { forgetDraftImages } from '../image-drafts.js';
import { useGrantedRoots } from '../granted-roots.js';

interface Props {
  bastion: BastionApi;
  version: number;
  selectedId: string | undefined;
  onSelect: (sessionId: string | undefined) => void;
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

export function SessionList({ bastion, version, selectedId, onSelect, onChanged }: Props) {
  // A session of a folder this Bastion does not work in names that folder.
  const roots = useGrantedRoots(bastion);
  const [sessions, setSessions] = useState<Session[]>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [renaming, setRenaming] = useState<string>();
  const [confirmDelete, setConfirmDelete] = useState<string>();
  const [query, setQuery] = useState('');

  /**
   * Bumped to read the list again while a run goes, so its mark follows when the run ends (or
   * stops to wait for an approval). An approval waiting alone is not polled for: it is answered in
   * its session's view, which reads the list again.
   */
  const [poll, setPoll] = useState(0);
  useEffect(() => {
    let cancelled = false;
    bastion.sessions
      .list({ limit: 100 })
      .then((page) => {
        if (cancelled) return;
        setSessions(page.sessions);
        setError(undefined);
      })
      .catch((failure: unknown) => !cancelled && setError(describeError(failure)));
    return () => {
      cancelled = true;
    };
  }, [bastion, version, poll]);
  const anyWorking = sessions?.some((session) => session.last_run?.status === 'running') === true;
  useEffect(() => {
    if (!anyWorking) return;
    const timer = window.setTimeout(() => setPoll((count) => count + 1), UI_SESSION_LIST_POLL_MS);
    return () => window.clearTimeout(timer);
  }, [anyWorking, sessions]);

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

  const needle = query.trim().toLowerCase();
  const shown = needle === '' ? sessions : sessions?.filter((session) => session.title.toLowerCase().includes(needle));

  return (
    <aside className="sidebar" id="sessions" aria-label="Sessions">
      <div className="sidebar-head">
        <h2>Sessions</h2>
        <button
          type="button"
          className="primary"
          disabled={busy}
          onClick={() => void act(async () => onSelect((await createSessionOnDefaultModel(bastion)).id))}
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
      {sessions?.length === 0 && <p className="muted">No sessions yet.</p>}
      {sessions !== undefined && sessions.length > 0 && (
        <div className="session-search">
          <label htmlFor="session-search" className="visually-hidden">
            Search sessions by title
          </label>
          <input
            id="session-search"
            type="search"
            placeholder="Search by title"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
        </div>
      )}
      {shown?.length === 0 && sessions?.length !== 0 && <p className="muted">No session title matches.</p>}
      <ul className="session-list">
        {shown?.map((session) => (
          <li key={session.id} className={session.id === selectedId ? 'session selected' : 'session'}>
            {renaming === session.id ? (
              <form
                className="rename"
                onSubmit={(event) => {
                  event.preventDefault();
                  const title = formText(event.currentTarget, 'title');
                  setRenaming(undefined);
                  void act(() => bastion.sessions.update(session.id, { title }));
                }}
              >
                <label className="visually-hidden" htmlFor={`title-${session.id}`}>
                  Session title
                </label>
                <input id={`title-${session.id}`} name="title" defaultValue={session.title} autoFocus maxLength={200} />
                <button type="submit">Save</button>
                <button type="button" onClick={() => setRenaming(undefined)}>
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
                    {session.approval_pending ? (
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
                    {session.provider === 'demo' ? 'demo model' : `${session.provider} · ${session.model}`}
                    {session.mode === 'auto' ? ' · auto' : ''}
                    {session.workspace !== null && roots !== undefined && !roots.includes(session.workspace) && (
                      <span title={session.workspace}> · in {folderName(session.workspace)}</span>
                    )}
                  </span>
                </button>
                <div className="session-actions">
                  <button
                    type="button"
                    className="small"
                    onClick={() => setRenaming(session.id)}
                    aria-label={`Rename ${session.title || 'session'}`}
                  >
                    Rename
                  </button>
                  {confirmDelete === session.id ? (
                    <button
                      type="button"
                      className="small danger"
                      onClick={() => {
                        setConfirmDelete(undefined);
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
    </aside>
  );
}
