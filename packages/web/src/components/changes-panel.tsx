/**
 * A session's Changes, the way a pull request's "Files changed" reads: each file its file tools
 * changed so far (status, path, lines added and removed) with its diff, folded on a click, a
 * sentence where there is no diff, and Copy patch. A panel beside the transcript (over it when
 * narrow), never over the composer, so the session goes on while it is open.
 */
import { Fragment, useCallback, useEffect, useRef, useState, type CSSProperties, type RefObject } from 'react';
import type { BastionApi, SessionChange, SessionChangesResponse } from '@bastion/bridge';
import { UI_CHANGES_OPEN_FILES } from '@bastion/protocol';
import {
  changesFailure,
  changesPatch,
  changesSummary,
  commandsNote,
  moreNote,
  noDiffSentence,
  patchGapNote,
} from '../session-changes.js';
import { clampChangesWidth, PANE_MIN_PX, readChangesWidth, saveChangesWidth } from '../browser-prefs.js';
import { CopyButton } from './copy-button.js';
import { DiffView } from './diff-view.js';

export interface SessionChangesState {
  changes: SessionChangesResponse | undefined;
  /** Why the last read failed, in words; cleared by the next that succeeds. */
  failure: string | undefined;
  loading: boolean;
  /** Read them again now (the view opening, Try again). */
  reload: () => void;
}

/**
 * The session's changes, read when the session opens, each time `version` changes (a run ended,
 * one was undone) and on `reload`; an answer that comes after a newer request went is dropped.
 */
export function useSessionChanges(bastion: BastionApi, sessionId: string, version: number): SessionChangesState {
  const [changes, setChanges] = useState<SessionChangesResponse>();
  const [failure, setFailure] = useState<string>();
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const reload = useCallback(() => {
    latest.current += 1;
    const request = latest.current;
    setLoading(true);
    bastion.sessions
      .changes(sessionId)
      .then(
        (answer) => {
          if (request !== latest.current) return;
          setChanges(answer);
          setFailure(undefined);
        },
        (error: unknown) => request === latest.current && setFailure(changesFailure(error)),
      )
      .finally(() => request === latest.current && setLoading(false));
  }, [bastion, sessionId]);
  useEffect(() => {
    reload();
    // A request still going when the view leaves the session is dropped when it answers.
    return () => {
      latest.current += 1;
    };
  }, [reload, version]);
  return { changes, failure, loading, reload };
}

/** A path that, when it must wrap, wraps after a slash first. */
function WrappingPath({ path }: { path: string }) {
  const parts = path.split('/');
  return (
    <code className="changed-path">
      {parts.map((part, index) => (
        <Fragment key={index}>
          {part}
          {index < parts.length - 1 && (
            <>
              /<wbr />
            </>
          )}
        </Fragment>
      ))}
    </code>
  );
}

function ChangedFile({ file, open, onToggle }: { file: SessionChange; open: boolean; onToggle: () => void }) {
  return (
    <li className="changed-file" data-testid="changed-file">
      <button type="button" className="changed-file-head" aria-expanded={open} onClick={onToggle}>
        <span className="fold-mark" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className={`badge change-${file.status}`}>{file.status}</span>
        <WrappingPath path={file.path} />
        {file.diff !== undefined && (
          <span className="changed-lines">
            <span className="diff-add-count">+{file.additions ?? 0}</span>{' '}
            <span className="diff-del-count">−{file.deletions ?? 0}</span>
          </span>
        )}
      </button>
      {open &&
        (file.diff === undefined ? (
          <p className="muted changed-no-diff">{noDiffSentence(file.no_diff)}</p>
        ) : (
          <DiffView diff={file.diff} counts={false} />
        ))}
    </li>
  );
}

/** How far each key moves the panel's edge: an arrow 32px, Home to the panel's widest, End to its narrowest. */
const KEY_STEPS: Readonly<Record<string, number>> = {
  ArrowLeft: 32,
  ArrowRight: -32,
  Home: Infinity,
  End: -Infinity,
};

/**
 * The divider between the transcript and the panel, shown where they sit side by side: dragged,
 * or moved with the arrow keys (Home: the panel at its widest, End: at its narrowest); a
 * double-click puts the default width back; Esc closes the panel, as it does from within it.
 * `onWidth(width, keep)`: the panel's new width (undefined: the default), kept for later once the
 * drag or the key is done.
 */
function ChangesDivider({
  panel,
  onWidth,
  onClose,
}: {
  panel: RefObject<HTMLElement | null>;
  onWidth: (width: number | undefined, keep: boolean) => void;
  onClose: () => void;
}) {
  /** While dragged: where the pointer went down, the panel's width then, and the width last set. */
  const drag = useRef<{ x: number; from: number; width: number } | undefined>(undefined);
  /** The room the panel and the transcript share: the body's width less the divider's own. */
  const room = useCallback(() => {
    const element = panel.current;
    const divider = element?.previousElementSibling;
    return (element?.parentElement?.clientWidth ?? 0) - (divider instanceof HTMLElement ? divider.offsetWidth : 0);
  }, [panel]);
  /** The panel's width and that room, as laid out: the divider's value and its bounds. */
  const [shown, setShown] = useState<{ width: number; total: number }>();
  useEffect(() => {
    const element = panel.current;
    const body = element?.parentElement;
    if (!element || !body) return;
    const measure = () => setShown({ width: element.offsetWidth, total: room() });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    observer.observe(body);
    return () => observer.disconnect();
  }, [panel, room]);
  const width = () => panel.current?.offsetWidth ?? 0;
  const release = () => {
    const done = drag.current;
    drag.current = undefined;
    if (done) onWidth(done.width, true);
  };
  return (
    <div
      role="separator"
      className="changes-divider"
      aria-orientation="vertical"
      aria-controls="changes-panel"
      aria-label="Changes panel width"
      aria-valuemin={PANE_MIN_PX}
      aria-valuemax={shown && Math.max(PANE_MIN_PX, shown.total - PANE_MIN_PX)}
      aria-valuenow={shown?.width}
      aria-valuetext={shown && `${shown.width} pixels wide`}
      tabIndex={0}
      onPointerDown={(event) => {
        if (event.button !== 0) return;
        // No text is selected as the pointer moves, and its moves come here wherever it goes.
        event.preventDefault();
        event.currentTarget.setPointerCapture(event.pointerId);
        drag.current = { x: event.clientX, from: width(), width: width() };
      }}
      onPointerMove={(event) => {
        const start = drag.current;
        if (!start) return;
        start.width = clampChangesWidth(start.from + start.x - event.clientX, room());
        onWidth(start.width, false);
      }}
      onPointerUp={release}
      onPointerCancel={release}
      onDoubleClick={() => onWidth(undefined, true)}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && !event.defaultPrevented) {
          // Taken here, so the page's Esc (which stops a run) does not see it.
          event.preventDefault();
          onClose();
          return;
        }
        const step = KEY_STEPS[event.key];
        if (step === undefined) return;
        event.preventDefault();
        onWidth(clampChangesWidth(width() + step, room()), true);
      }}
    />
  );
}

/**
 * The panel: focus moves to its Close button as it opens and back where it was as it closes; Esc
 * closes it. Its width is the reader's, kept in this browser (browser-prefs.ts), else the default.
 */
export function ChangesPanel({ state, onClose }: { state: SessionChangesState; onClose: () => void }) {
  const { changes, failure, loading, reload } = state;
  const close = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(readChangesWidth);
  const resize = useCallback((next: number | undefined, keep: boolean) => {
    setWidth(next);
    if (keep) saveChangesWidth(next);
  }, []);
  /** The files whose fold the reader turned, by path: the others stay as they opened. */
  const [turned, setTurned] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    close.current?.focus();
    return () => previous?.focus();
  }, []);
  const patch = changes ? changesPatch(changes.files) : '';
  const notes = changes
    ? [commandsNote(changes.commands), moreNote(changes.more), patch === '' ? undefined : patchGapNote(changes.files)]
    : [];
  return (
    <>
      <ChangesDivider panel={panel} onWidth={resize} onClose={onClose} />
      <aside
        ref={panel}
        id="changes-panel"
        className="changes-panel"
        data-sized={width === undefined ? undefined : ''}
        style={width === undefined ? undefined : ({ '--changes-width': `${width}px` } as CSSProperties)}
        aria-labelledby="changes-title"
        onKeyDown={(event) => {
          if (event.key !== 'Escape' || event.defaultPrevented) return;
          // Taken here, so the page's Esc (which stops a run) does not see it.
          event.preventDefault();
          onClose();
        }}
      >
        <div className="changes-head">
          <h2 id="changes-title">Changes</h2>
          <div className="changes-actions">
            {patch !== '' && <CopyButton text={patch} label="Copy patch" />}
            <button type="button" className="small" ref={close} onClick={onClose}>
              Close
            </button>
          </div>
        </div>
        {failure && (
          <div className="inline-error" role="alert">
            {failure}{' '}
            <button type="button" className="small" onClick={reload}>
              Try again
            </button>
          </div>
        )}
        {changes === undefined ? (
          loading && <p className="muted">Reading the session’s changes…</p>
        ) : (
          <>
            <p className="changes-summary" role="status" data-testid="changes-summary">
              {changesSummary(changes)}
              {loading && <span className="muted"> · updating…</span>}
            </p>
            {notes.map(
              (note) =>
                note && (
                  <p key={note} className="changes-note">
                    {note}
                  </p>
                ),
            )}
            <ul className="changed-files" aria-label="Changed files">
              {changes.files.map((file, index) => {
                const open = index < UI_CHANGES_OPEN_FILES !== turned.has(file.path);
                return (
                  <ChangedFile
                    key={file.path}
                    file={file}
                    open={open}
                    onToggle={() =>
                      setTurned((before) => {
                        const after = new Set(before);
                        if (!after.delete(file.path)) after.add(file.path);
                        return after;
                      })
                    }
                  />
                );
              })}
            </ul>
          </>
        )}
      </aside>
    </>
  );
}
