import { useEffect, useMemo, useRef, useState } from 'react';
import type { AgentStreamEvent, BastionApi, PermissionMode, Session } from '@bastion/bridge';
import { describeError } from '../bastion.js';
import { applyEvent, emptyTranscript, userTexts } from '../transcript.js';
import { ApprovalPrompt } from './approval-prompt.js';
import { ModeSwitch } from './mode-switch.js';
import { ToolCard } from './tool-card.js';

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 5_000;
const MESSAGE_PAGES = 20;

interface Props {
  bastion: BastionApi;
  sessionId: string;
  onSessionChanged: () => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = window.setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      window.clearTimeout(timer);
      resolve();
    });
  });
}

export function ChatView({ bastion, sessionId, onSessionChanged }: Props) {
  const [session, setSession] = useState<Session>();
  const [texts, setTexts] = useState<Map<string, string>>(new Map());
  const [events, setEvents] = useState<AgentStreamEvent[]>([]);
  const [link, setLink] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  const [error, setError] = useState<string>();
  const [notFound, setNotFound] = useState(false);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const lastId = useRef(0);
  const endRef = useRef<HTMLDivElement>(null);

  const transcript = useMemo(
    () => events.reduce((state, event) => applyEvent(state, event, texts), emptyTranscript),
    [events, texts],
  );

  const loadMessages = async () => {
    const all = [];
    let cursor: string | undefined;
    for (let page = 0; page < MESSAGE_PAGES; page += 1) {
      const answer = await bastion.sessions.messages(sessionId, { limit: 200, cursor });
      all.push(...answer.messages);
      if (answer.next === null) break;
      cursor = answer.next;
    }
    setTexts(userTexts(all));
  };

  useEffect(() => {
    let cancelled = false;
    bastion.sessions
      .get(sessionId)
      .then((answer) => !cancelled && setSession(answer))
      .catch((failure: unknown) => {
        if (cancelled) return;
        if ((failure as { code?: string }).code === 'SESSION_NOT_FOUND') setNotFound(true);
        else setError(describeError(failure));
      });
    loadMessages().catch((failure: unknown) => !cancelled && setError(describeError(failure)));
    return () => {
      cancelled = true;
    };
  }, [bastion, sessionId]);

  // The live stream: resumes with Last-Event-ID after any drop (a restarted sidecar included).
  useEffect(() => {
    const controller = new AbortController();
    void (async () => {
      let delay = RECONNECT_MIN_MS;
      while (!controller.signal.aborted) {
        try {
          setLink('live');
          await bastion.agent.stream(sessionId, {
            lastEventId: lastId.current,
            signal: controller.signal,
            onEvent: (event) => {
              if (event.id <= lastId.current) return;
              lastId.current = event.id;
              delay = RECONNECT_MIN_MS;
              setEvents((previous) => [...previous, event]);
            },
          });
        } catch (failure) {
          if ((failure as { code?: string }).code === 'SESSION_NOT_FOUND') {
            setNotFound(true);
            return;
          }
        }
        if (controller.signal.aborted) return;
        setLink('reconnecting');
        await sleep(delay, controller.signal);
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
      }
    })();
    return () => controller.abort();
  }, [bastion, sessionId]);

  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'end' });
  }, [transcript.items.length, transcript.items.at(-1)]);

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      setError(undefined);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };

  const send = () => {
    const message = draft.trim();
    if (message === '') return;
    void run(async () => {
      const answer = await bastion.agent.run(sessionId, message);
      const messageId = answer.message_id;
      if (messageId !== null) setTexts((previous) => new Map(previous).set(messageId, message));
      setDraft('');
      onSessionChanged();
    });
  };

  const setMode = (mode: PermissionMode) =>
    void run(async () => {
      setSession(await bastion.mode.set(sessionId, mode));
      onSessionChanged();
    });

  if (notFound) {
    return (
      <section className="empty" role="alert">
        <h1>Session not found</h1>
        <p>It may have been deleted. Pick another session or create a new one.</p>
      </section>
    );
  }

  const pending = transcript.pending;
  return (
    <section className="chat" aria-label="Chat">
      <header className="chat-head">
        <div>
          <h1>{session?.title || 'Untitled session'}</h1>
          {session && (
            <p className="muted">
              {session.provider === 'demo'
                ? 'demo model (offline, scripted)'
                : `${session.provider} · ${session.model}`}
            </p>
          )}
        </div>
        {session && <ModeSwitch mode={session.mode} disabled={busy} onChange={setMode} />}
      </header>
      {link === 'reconnecting' && (
        <div className="banner banner-warn" role="status">
          Connection to the agent was lost. Reconnecting…
        </div>
      )}
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      <ol className="transcript" aria-live="polite">
        {transcript.items.map((item) => {
          switch (item.kind) {
            case 'user':
              return (
                <li key={item.key} className="bubble user">
                  {item.text}
                </li>
              );
            case 'assistant':
              return (
                <li key={item.key} className="bubble assistant">
                  {item.text}
                </li>
              );
            case 'tool':
              return (
                <li key={item.key} className="tool-item">
                  <ToolCard tool={item} />
                </li>
              );
            case 'error':
              return (
                <li key={item.key} className="bubble run-error" role="alert">
                  The run failed: {item.message} ({item.code})
                </li>
              );
            case 'notice':
              return (
                <li key={item.key} className="notice">
                  {item.text}
                </li>
              );
          }
        })}
      </ol>
      <div ref={endRef} />
      {pending && (
        <ApprovalPrompt
          tool={pending}
          busy={busy}
          onAnswer={(approved, reason) =>
            void run(() =>
              bastion.approvals.answer(sessionId, {
                approval_id: pending.approval?.approvalId ?? '',
                tool_call_id: pending.toolCallId,
                approved,
                ...(reason === undefined ? {} : { reason }),
              }),
            )
          }
        />
      )}
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault();
          send();
        }}
      >
        <label htmlFor="composer-input" className="visually-hidden">
          Message
        </label>
        <textarea
          id="composer-input"
          value={draft}
          rows={2}
          placeholder={
            pending ? 'Answer the approval above first' : 'Ask the agent… (Enter to send, Shift+Enter for a new line)'
          }
          disabled={pending !== undefined}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              send();
            }
          }}
        />
        {transcript.running ? (
          <button type="button" className="danger" onClick={() => void run(() => bastion.agent.abort(sessionId))}>
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" disabled={busy || pending !== undefined || draft.trim() === ''}>
            Send
          </button>
        )}
      </form>
    </section>
  );
}
