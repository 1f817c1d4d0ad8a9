/**
 * The browser's notifications for a run that ended or waits for an answer while this tab is in
 * the background: opted into in Settings (the choice kept in this browser's localStorage), shown
 * only while the page is hidden or has no focus, once for each run's end or wait, tagged per
 * session so a newer one replaces the older. A notification names the session's title, the tool
 * and a fixed phrase, never a message, a file, a command's arguments or an error's own text.
 * Clicking it brings the tab forward on that session.
 *
 * The sources are those the page already has: the open session's event stream (ChatView), the
 * session list as it is read again while a run goes (other sessions), and the host's held calls
 * (useHostAsks). Each reports what happened; this module decides whether anyone is told.
 */
import type { AgentEvent, BastionApi, HostAsk, Session } from '@bastion/bridge';
import {
  UI_NOTIFICATION_CODE_MAX_CHARS,
  UI_NOTIFICATION_EVENTS_READ,
  UI_NOTIFICATION_TITLE_CHARS,
} from '@bastion/protocol';
import { readStoredFlag, saveStoredFlag } from './browser-prefs.js';
import { mcpToolTitle } from './mcp-tool-call.js';

/** The localStorage key of the choice (UI-only: the agent never sees it). */
export const NOTIFY_PREF_KEY = 'bastion.notify-in-background';

/** Why a run's notification is due. `code`: a run error's code, when known. */
export type NotifyReason =
  { kind: 'done' } | { kind: 'failed'; code?: string | undefined } | { kind: 'approval'; tool?: string | undefined };

export interface NotifyEvent {
  sessionId: string | undefined;
  /** The session's title when the source knows it; else the one last seen in the session list. */
  title?: string | undefined;
  reason: NotifyReason;
  /** One notification per key: a run's end (`end:<run>`), its wait (`wait:<run>`), a held call (`ask:<id>`). */
  key: string;
}

/** A run error's code as a few words; codes are identifiers, never the error's own text. */
const ERROR_WORDS: Readonly<Record<string, string>> = {
  RUN_INTERRUPTED: 'the run was cut off',
  PROVIDER_FAILED: 'the model provider failed',
  PROVIDER_UNAVAILABLE: 'the model provider is unavailable',
  PROVIDER_RATE_LIMITED: 'the model provider is rate limiting',
  PROVIDER_RATE_LIMIT: 'the model provider is rate limiting',
  PROVIDER_KEY_MISSING: 'no API key for the model provider',
  PROVIDER_TRANSPORT_UNAVAILABLE: 'the model provider cannot be reached',
  PROVIDER_REPLY_TOO_LARGE: 'the model’s reply was too large to read',
  PROVIDER_REPLY_INVALID: 'the model provider’s reply could not be read',
  PROVIDER_ENTITLEMENT: 'the account may not use this model',
  PROVIDER_MODEL: 'the model provider refused the model',
  PROVIDER_DESTINATION: 'the model provider’s address is not allowed',
};

export function errorWords(code: string | undefined): string {
  if (code === undefined) return 'the run failed';
  const words = ERROR_WORDS[code];
  if (words) return words;
  // Anything else is named by its code alone, and only when it looks like one.
  return /^[A-Z][A-Z0-9_]*$/.test(code) && code.length <= UI_NOTIFICATION_CODE_MAX_CHARS
    ? `the run failed (${code})`
    : 'the run failed';
}

function shortTitle(title: string | undefined): string {
  const text = (title ?? '').replace(/\s+/g, ' ').trim() || 'Untitled session';
  return text.length > UI_NOTIFICATION_TITLE_CHARS ? `${text.slice(0, UI_NOTIFICATION_TITLE_CHARS - 1)}…` : text;
}

/** A tool's name as the app shows it (an MCP tool as `server · tool`), bounded; nothing of its input. */
function toolName(tool: string): string {
  const name = mcpToolTitle(tool) ?? tool;
  return name.length > UI_NOTIFICATION_TITLE_CHARS ? `${name.slice(0, UI_NOTIFICATION_TITLE_CHARS - 1)}…` : name;
}

/** The notification's title and body: the session's title, the tool's name and fixed words only. */
export function notificationText(title: string | undefined, reason: NotifyReason): { title: string; body: string } {
  const session = `Bastion: ${shortTitle(title)}`;
  switch (reason.kind) {
    case 'done':
      return { title: `${session} — done`, body: 'The run finished. Click to open the session.' };
    case 'failed': {
      const words = errorWords(reason.code);
      return {
        title: `${session} — failed`,
        body: `${words.charAt(0).toUpperCase()}${words.slice(1)}. Click to open the session.`,
      };
    }
    case 'approval':
      return {
        title: `${session} — needs your approval${reason.tool ? `: ${toolName(reason.tool)}` : ''}`,
        body: 'A tool call waits for your answer. Click to open the session.',
      };
  }
}

export function notificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

export const readNotifyPref = (): boolean => readStoredFlag(NOTIFY_PREF_KEY);

/** Keeps the choice; false when the browser refused to store it (then it stays off). */
export const saveNotifyPref = (on: boolean): boolean => saveStoredFlag(NOTIFY_PREF_KEY, on);

/** The person opted in, the browser allows notifications, and nobody is looking at the tab. */
export function notificationDue(): boolean {
  // Read each time: a change made in another tab of this browser counts here too.
  if (!readNotifyPref() || !notificationsSupported() || Notification.permission !== 'granted') return false;
  return document.visibilityState === 'hidden' || !document.hasFocus();
}

/** Keys already notified (or decided against): one notification per run's end, wait or held call. */
const told = new Set<string>();
/** Session titles as the session list last read them, for sources that know only the id. */
const titles = new Map<string, string>();
let opener: ((sessionId: string) => void) | undefined;

/** The app's way to open a session (its route), used when a notification is clicked. */
export function setNotificationOpener(open: ((sessionId: string) => void) | undefined): void {
  opener = open;
}

export function rememberTitle(sessionId: string, title: string): void {
  titles.set(sessionId, title);
}

/** Marks a key as handled without telling anyone (a stopped run): a later report of it stays silent too. */
export function settle(key: string): void {
  told.add(key);
}

/**
 * Shows the notification for `event` if its key is new and one is due now; reports whether it
 * did. Either way the key is spent: what happened while the tab was looked at is not told later.
 */
export function notify(event: NotifyEvent): boolean {
  if (told.has(event.key)) return false;
  told.add(event.key);
  if (!notificationDue()) return false;
  const { sessionId } = event;
  const text = notificationText(
    event.title ?? (sessionId === undefined ? undefined : titles.get(sessionId)),
    event.reason,
  );
  try {
    const shown = new Notification(text.title, {
      body: text.body,
      tag: sessionId === undefined ? 'bastion-host' : `bastion-session-${sessionId}`,
    });
    shown.onclick = () => {
      window.focus();
      if (sessionId !== undefined) opener?.(sessionId);
      shown.close();
    };
    return true;
  } catch {
    // A browser that only notifies through a service worker: nothing is shown.
    return false;
  }
}

/**
 * An event of the open session's live stream (never its history): a tool call waiting for an
 * answer, a run that finished or failed. A run the person stopped is settled silently.
 */
export function notifyAgentEvent(sessionId: string, title: string | undefined, event: AgentEvent): void {
  if (event.type === 'tool-approval-request') {
    notify({ sessionId, title, key: `wait:${event.run_id}`, reason: { kind: 'approval', tool: event.tool_name } });
  } else if (event.type === 'run-finished') {
    // A run that stopped to wait was told by its approval request.
    if (event.finish_reason !== 'approval-pending') {
      notify({ sessionId, title, key: `end:${event.run_id}`, reason: { kind: 'done' } });
    }
  } else if (event.type === 'run-error') {
    if (event.code === 'RUN_ABORTED') settle(`end:${event.run_id}`);
    else notify({ sessionId, title, key: `end:${event.run_id}`, reason: { kind: 'failed', code: event.code } });
  }
}

/** A held call of the host's, told once if it was asked after this page loaded. */
export function notifyHostAsk(ask: HostAsk): void {
  const key = `ask:${ask.id}`;
  if (told.has(key)) return;
  if (!(Date.parse(ask.asked_at) >= performance.timeOrigin)) {
    settle(key);
    return;
  }
  notify({ sessionId: ask.session_id, key, reason: { kind: 'approval', tool: ask.tool } });
}

/** What the session list last read of a session's run. */
interface RunMark {
  runId: string | undefined;
  status: string | undefined;
  waiting: boolean;
}

/**
 * Follows the session list's reads: a session whose run ended or began to wait since the read
 * before is told (the first read only sets where things stand). `open` is the session whose view
 * follows its own stream, and is left to it. The tool waited on, or the error's code, is read
 * from the session's newest events when a notification is due.
 */
export function sessionListWatcher(
  bastion: BastionApi,
): (sessions: readonly Session[], open: string | undefined) => void {
  let marks: Map<string, RunMark> | undefined;
  return (sessions, open) => {
    const previous = marks;
    marks = new Map();
    for (const session of sessions) {
      rememberTitle(session.id, session.title);
      const run = session.last_run;
      const mark: RunMark = { runId: run?.id, status: run?.status, waiting: session.approval_pending };
      marks.set(session.id, mark);
      if (previous === undefined || run === null || session.id === open) continue;
      const known = previous.get(session.id);
      // A session not listed before counts only if it was made after this page loaded (not one
      // that moved up into the list's first page).
      if (known === undefined && !(Date.parse(session.created_at) >= performance.timeOrigin)) continue;
      const before = known ?? { runId: undefined, status: undefined, waiting: false };
      const sameRun = before.runId === run.id;
      if (session.approval_pending && !(sameRun && before.waiting)) {
        tellFromEvents(bastion, session, `wait:${run.id}`, 'approval');
      } else if (run.status !== 'running' && !(sameRun && before.status === run.status)) {
        if (run.status === 'aborted') settle(`end:${run.id}`);
        else if (run.status === 'finished')
          notify({ sessionId: session.id, key: `end:${run.id}`, reason: { kind: 'done' } });
        else tellFromEvents(bastion, session, `end:${run.id}`, 'failed');
      }
    }
  };
}

/** Reads the run's newest events for the tool it waits on or its error's code, then tells it. */
function tellFromEvents(bastion: BastionApi, session: Session, key: string, kind: 'approval' | 'failed'): void {
  const runId = session.last_run?.id;
  if (told.has(key) || runId === undefined) return;
  if (!notificationDue()) {
    settle(key);
    return;
  }
  const tell = (found: AgentEvent | undefined) =>
    notify({
      sessionId: session.id,
      key,
      reason:
        kind === 'approval'
          ? { kind, tool: found?.type === 'tool-approval-request' ? found.tool_name : undefined }
          : {
              kind,
              code:
                found?.type === 'run-error'
                  ? found.code
                  : session.last_run?.status === 'interrupted'
                    ? 'RUN_INTERRUPTED'
                    : undefined,
            },
    });
  const wanted = kind === 'approval' ? 'tool-approval-request' : 'run-error';
  bastion.sessions.events(session.id, { limit: UI_NOTIFICATION_EVENTS_READ }).then(
    (page) => tell(page.events.findLast(({ event }) => event.type === wanted && event.run_id === runId)?.event),
    () => tell(undefined),
  );
}
