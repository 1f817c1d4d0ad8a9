import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { AgentRunMcp, AgentStreamEvent, BastionApi, PermissionMode, Session } from '@bastion/bridge';
import {
  AGENT_MAX_IMAGES,
  INIT_INSTRUCTIONS_PROMPT,
  sessionMarkdown,
  UI_DOWNLOAD_URL_TTL_MS,
  UI_EXPORT_FILE_NAME_CHARS,
  type TextSpan,
} from '@bastion/protocol';
import { describeError, errorCode } from '../bastion.js';
import { readDraft, readQueuedMcp, saveDraft, saveQueued, type DraftMcp, type QueuedMcp } from '../drafts.js';
import { imageInputOf, isImageRefusal, plural, type Attachment } from '../image-attachment.js';
import {
  forgetImageRefusal,
  readDraftImages,
  readImageRefusal,
  recoverQueuedMessage,
  saveDraftImages,
} from '../image-drafts.js';
import { keepSessionImage, sessionImageUrl, type ImagePart } from '../session-images.js';
import { reloadGrantedRoots, useGrantedRoots } from '../granted-roots.js';
import { sessionMessages } from '../session-export.js';
import { changesLabel } from '../session-changes.js';
import { loadHistory, loadPrompt, newestHistory, settledOpening, type HistoryChunk } from '../history.js';
import { mcpContextOf, type MessageMcp } from '../mcp-offers.js';
import { spansOfTrimmed, storedServerSpans, withPromptSpans } from '../server-text-spans.js';
import { notifyAgentEvent, rememberTitle } from '../notifications.js';
import { keepNewSession, PAGE_VIEWER } from '../new-sessions.js';
import { newClientId } from '../client-id.js';
import {
  applyEvents,
  emptyTranscript,
  prependTranscript,
  stepAnswered,
  type RunOutcome,
  type ToolView,
  type Transcript,
  type TranscriptItem,
} from '../transcript.js';
import { Activity } from './activity.js';
import { AskBeforeWrites } from './ask-before-writes.js';
import { ChangesPanel, useSessionChanges } from './changes-panel.js';
import { ApprovalPrompt } from './approval-prompt.js';
import { Composer } from './composer.js';
import { Markdown } from './markdown.js';
import { MessageImages } from './message-images.js';
import { McpPromptOrigin, McpResources } from './message-mcp.js';
import { HelpDialog } from './help-dialog.js';
import { DemoModelTry } from './home-view.js';
import { AutoConsentDialog, cycledMode, MODE_LABELS, ModeSwitch, ReasoningSwitch } from './mode-switch.js';
import { DEMO_MODEL_NAME, listedModel, listedWindow, ModelPicker, modelName, useModels } from './model-picker.js';
import { OtherFolderBanner } from './other-folder-banner.js';
import { McpStoppedBanner } from './mcp-stopped-banner.js';
import { PlanBar, pinnedPlan } from './plan.js';
import { ContextMeter, Reasoning, RetryNotice, RunEnd, RunError, UsageLine, usageText } from './run-items.js';
import { HostRecordDialog } from './host-audit-view.js';
import { HostAskPrompt, useHostAsks } from './host-ask-prompt.js';
import { ToolCard } from './tool-card.js';
import { TranscriptList } from './transcript-list.js';
import { findMatches } from '../find.js';
import { FindBar } from './find-bar.js';
import { RewindDialog, RewoundNotice } from './rewind-dialog.js';
import { UndoDialog, UndoneNotice } from './undo-dialog.js';
import type { SlashCommand } from '../slash-commands.js';
import { isOtherTextField } from '../shortcut-keys.js';
import type { SettingsCard } from '../route.js';

const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 5_000;
/** Events after which the files the session changed may differ: a run ended, or one was undone or rewound. */
const CHANGES_EVENTS: ReadonlySet<AgentStreamEvent['event']['type']> = new Set([
  'run-finished',
  'run-error',
  'run-undone',
  'context-rewound',
]);

interface Props {
  bastion: BastionApi;
  sessionId: string;
  /** Bumped when any session changed (a rename in the list): the header reloads. */
  sessionsVersion: number;
  onSessionChanged: () => void;
  /** Start a new session on the default model and open it (`/new`). */
  onNewSession: () => Promise<void>;
  /** Open Settings at the MCP servers of this session's project (`/mcp`). */
  onMcpServers: (workspace: string | undefined) => void;
  /** Open Settings at a card of its Models tab (API keys, custom endpoints, the ChatGPT account): a failed run's advice sends the user there. */
  onSettings: (card: SettingsCard) => void;
  /** Why nothing can be sent now (Bastion does not answer); the page says what to do above. */
  unavailable: string | undefined;
  /** The session's stream dropped: whether Bastion still answers is asked now. */
  onLinkLost: () => void;
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

/**
 * The tab's title names the session and, first, what it waits for: a glance at the browser's tabs
 * shows a run that needs an answer or is still going. The page's own title comes back on leaving.
 */
function useTabTitle(title: string, state: 'approval' | 'working' | 'idle'): void {
  // Declared first, so it reads the title before the effect below changes it.
  useEffect(() => {
    const original = document.title;
    return () => {
      document.title = original;
    };
  }, []);
  useEffect(() => {
    const prefix = state === 'approval' ? 'Approval needed · ' : state === 'working' ? 'Working · ' : '';
    document.title = `${prefix}${title} · Bastion`;
  }, [title, state]);
}

/** Save the whole session as `<title>.md` through the browser's download. */
async function downloadSession(bastion: BastionApi, session: Session): Promise<void> {
  const markdown = sessionMarkdown(session, await sessionMessages(bastion, session.id));
  const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `${(session.title || 'session').replace(/[^\w .-]+/g, '-').slice(0, UI_EXPORT_FILE_NAME_CHARS)}.md`;
  link.click();
  window.setTimeout(() => URL.revokeObjectURL(url), UI_DOWNLOAD_URL_TTL_MS);
}

/** A message's images as parts of the message this page sent, their bytes kept for its row. */
function sentImageParts(sessionId: string, messageId: string, images: readonly Attachment[]): ImagePart[] {
  return images.map((image, index) => {
    // Ids of this page's own: the stored ones are read with the messages when the session opens again.
    const imageId = `sent-${messageId}-${index}`;
    keepSessionImage(sessionId, imageId, image.dataUrl);
    return {
      type: 'image',
      image_id: imageId,
      media_type: image.mediaType,
      bytes: image.bytes,
      ...(image.name === '' ? {} : { name: image.name }),
    };
  });
}

/** The text of the prompt that started run `runId`, when the page has it. */
function promptOfRun(
  items: readonly TranscriptItem[],
  texts: ReadonlyMap<string, string>,
  runId: string,
): string | undefined {
  const prompt = items.find((item) => item.kind === 'user' && item.runId === runId);
  return prompt?.kind === 'user' ? texts.get(prompt.messageId) : undefined;
}

/**
 * What of a stored prompt's `text` brought back to the box (ArrowUp, a rewind) an MCP server's
 * prompt wrote, when its message came from one: the ranges stored with it, so that a word the
 * person had typed attaches its resource again and none in the server's ranges does; all of the
 * text for a message stored without them.
 */
function storedServerText(
  items: readonly TranscriptItem[],
  messageMcp: ReadonlyMap<string, MessageMcp>,
  text: string | undefined,
  runId?: string,
): DraftMcp | undefined {
  const prompt = items.findLast((item) => item.kind === 'user' && (runId === undefined || item.runId === runId));
  const stored = prompt?.kind === 'user' ? messageMcp.get(prompt.messageId)?.prompt : undefined;
  if (stored === undefined || text === undefined) return undefined;
  return { origin: { server: stored.server, name: stored.name }, spans: storedServerSpans(stored.spans, text) };
}

/** The text of the newest user prompt among `items`, when it is loaded. */
function lastPromptOf(items: readonly TranscriptItem[], texts: ReadonlyMap<string, string>): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index] as TranscriptItem;
    if (item.kind === 'user') return texts.get(item.messageId);
  }
  return undefined;
}

/** What a run said, its text parts in order, as the markdown the model wrote. */
function replyOf(items: readonly TranscriptItem[], runId: string): string {
  const parts: string[] = [];
  for (const item of items) {
    if (item.kind !== 'assistant' || item.runId !== runId) continue;
    const text = item.text.trim();
    if (text !== '') parts.push(text);
  }
  return parts.join('\n\n');
}

/**
 * The prompt a failed run started from, so Retry can send it again: the last one before it, across
 * runs that stopped for an approval (their continuation is the same task), but not past a run that
 * ended otherwise — a run with no prompt of its own (`/compact`) has nothing to send again.
 */
function promptBefore(
  items: readonly TranscriptItem[],
  texts: ReadonlyMap<string, string>,
  key: string,
): { text: string; messageId: string } | undefined {
  for (let index = items.findIndex((item) => item.key === key); index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === 'user') {
      const text = texts.get(item.messageId);
      return text === undefined ? undefined : { text, messageId: item.messageId };
    }
    if (item?.kind === 'run-end' && item.outcome !== 'waiting') return undefined;
  }
  return undefined;
}

/** Whether a prompt was sent after the item `key`: a failed run's Retry is then gone, as its task is no longer the last. */
function promptAfter(items: readonly TranscriptItem[], key: string): boolean {
  const at = items.findIndex((item) => item.key === key);
  return at >= 0 && items.slice(at + 1).some((item) => item.kind === 'user');
}

/** The key of a run's "Run undone" notice, once it is in the transcript. */
function undoneNoticeKey(items: readonly TranscriptItem[], runId: string): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === 'undone' && item.runId === runId) return item.key;
  }
  return undefined;
}

/** How the last run that ended ended; undefined before any. */
function lastRunOutcome(items: readonly TranscriptItem[]): RunOutcome | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === 'run-end') return item.outcome;
  }
  return undefined;
}

/** Two messages as one, a blank line between them (either may be empty). */
function joinMessages(first: string, second: string): string {
  if (first === '') return second;
  return second === '' ? first : `${first}\n\n${second}`;
}

/**
 * The characters of the queued message `joined` an MCP server's prompt wrote: those of the message
 * queued before (at its start), and those of the box's `draft` sent as `message` (trimmed, at its end).
 */
function queuedServerText(
  earlier: DraftMcp | undefined,
  sent: { draft: string; serverText: DraftMcp } | undefined,
  joined: string,
  message: string,
): DraftMcp | undefined {
  const offset = joined.length - message.length;
  const moved = sent === undefined ? [] : spansOfTrimmed(sent.serverText.spans, sent.draft);
  const spans = [...(earlier?.spans ?? []), ...moved.map(([from, to]): TextSpan => [from + offset, to + offset])];
  const origin = earlier?.origin ?? sent?.serverText.origin;
  return origin === undefined || spans.length === 0 ? undefined : { origin, spans };
}

/**
 * Two queued messages' MCP context as one message's (`joined`): both resource lists, and, when
 * either came from a server's prompt, that origin (the first one's name) with the ranges of
 * `joined` a prompt wrote, so that brought back to the box (ArrowUp, a rewind) those still count as
 * a server's and no `@SERVER:URI` word in them attaches.
 */
function joinedMcp(
  earlier: AgentRunMcp,
  later: AgentRunMcp,
  serverText: DraftMcp | undefined,
  joined: string,
): AgentRunMcp {
  const resources = [...(earlier.resources ?? []), ...(later.resources ?? [])];
  if (serverText === undefined) return { resources };
  return withPromptSpans({ resources, prompt: serverText.origin }, serverText.spans, joined);
}

/** The images of the prompt that started `runId`, as far as they are loaded. */
function promptImages(
  items: readonly TranscriptItem[],
  images: ReadonlyMap<string, ImagePart[]>,
  runId: string | undefined,
): ImagePart[] {
  const prompt = items.find((item) => item.kind === 'user' && item.runId === runId);
  return prompt?.kind === 'user' ? (images.get(prompt.messageId) ?? []) : [];
}

/** The newest run whose file changes can still be undone, as the transcript has it. */
function lastUndoableRun(items: readonly TranscriptItem[]): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === 'run-end' && item.files.length > 0 && item.undone !== true) return item.runId;
  }
  return undefined;
}

/** The newest prompt a rewind has not taken out of the conversation: its run. */
function lastRewindableRun(items: readonly TranscriptItem[]): string | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index];
    if (item?.kind === 'user' && item.rewound !== true) return item.runId;
  }
  return undefined;
}

function toolByKey(items: readonly TranscriptItem[], key: string): ToolView | undefined {
  const found = items.find((item) => item.key === key);
  return found?.kind === 'tool' ? found : undefined;
}

/**
 * A session with no message yet: how to start, as the home page says it, for this session's model
 * (an empty pane left the reader guessing).
 */
function EmptySessionHints({ session }: { session: Session | undefined }) {
  return (
    <div className="empty session-start">
      <h2>Ask the agent</h2>
      <p>Your message below starts the work in this session’s folder.</p>
      {session && (
        <p className="hint">
          {session.provider === 'demo' ? (
            <>
              This session uses the {DEMO_MODEL_NAME}, which is not an AI: <DemoModelTry />. <code>/model</code>{' '}
              switches it to another.
            </>
          ) : (
            <>
              This session uses <strong>{modelName(session)}</strong>; <code>/model</code> switches it.
            </>
          )}
        </p>
      )}
      <p className="hint">
        <code>@</code> names a file, <code>/</code> lists the commands, <code>/help</code> the keys.
      </p>
    </div>
  );
}

export function ChatView({
  bastion,
  sessionId,
  sessionsVersion,
  onSessionChanged,
  onNewSession,
  onMcpServers,
  onSettings,
  unavailable,
  onLinkLost,
}: Props) {
  const [session, setStoredSession] = useState<Session>();
  /**
   * How many times this view set the session itself (a switch shown at once, an update's answer).
   * A fetch of the session that was asked for before one of those is older than what is shown and
   * is dropped: it would undo the switch the reader just moved.
   */
  const sessionSets = useRef(0);
  const setSession = useCallback((next: Session) => {
    sessionSets.current += 1;
    setStoredSession(next);
  }, []);
  /** The newest page when it came in before this view's first render (a page opened on this session). */
  const [opened] = useState(() => settledOpening(sessionId));
  const [texts, setTexts] = useState<ReadonlyMap<string, string>>(() => opened?.texts ?? new Map());
  /** The images of the prompts that carried any, by message id. */
  const [messageImages, setMessageImages] = useState<ReadonlyMap<string, ImagePart[]>>(
    () => opened?.images ?? new Map(),
  );
  /** What MCP servers put in the prompts that carry any (a prompt's origin, resources), by message id. */
  const [messageMcp, setMessageMcp] = useState<ReadonlyMap<string, MessageMcp>>(() => opened?.mcp ?? new Map());
  const [transcript, setTranscript] = useState<Transcript>(opened?.transcript ?? emptyTranscript);
  /** The cursor of the log's older pages: undefined until the newest page is in, null at the start. */
  const [older, setOlder] = useState<string | null | undefined>(opened?.next);
  const [link, setLink] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  /** Runs of this session that ended while the page was open: MCP servers are read again after each. */
  const [runsEnded, setRunsEnded] = useState(0);
  /** Bumped once for each batch of events holding a run's end, an undo or a rewind: the changes are read again. */
  const [changesVersion, setChangesVersion] = useState(0);
  /** The Changes panel is open. */
  const [changesOpen, setChangesOpen] = useState(false);
  const sessionChanges = useSessionChanges(bastion, sessionId, changesVersion);
  const [error, setError] = useState<string>();
  const [notFound, setNotFound] = useState(false);
  // Before the slots are read: a message queued with images the reload dropped goes back in the box.
  useState(() => recoverQueuedMessage(sessionId));
  const [draft, setDraftText] = useState(() => readDraft(sessionId));
  const setDraft = useCallback(
    (text: string) => {
      setDraftText(text);
      saveDraft(sessionId, text);
    },
    [sessionId],
  );
  /** A message typed while a run goes: sent once it has finished, back in the box if it stopped or failed. */
  const [queued, setQueuedText] = useState(() => readDraft(sessionId, 'queued'));
  /**
   * What goes with the queued message from MCP servers, as the box read it, kept with its text
   * (saveQueued): a word of a server's prompt text is never read as the person's when it goes,
   * even after a reload.
   */
  const [storedQueuedMcp] = useState(() => readQueuedMcp(sessionId));
  const queuedMcp = useRef<QueuedMcp>(storedQueuedMcp);
  const setQueued = useCallback(
    (text: string, context: QueuedMcp = { mcp: {}, serverText: undefined }) => {
      setQueuedText(text);
      queuedMcp.current = context;
      saveQueued(sessionId, text, context);
    },
    [sessionId],
  );
  /** A queued message given back to the box, with the characters of it an MCP server's prompt wrote (they stay the server's there). */
  const [givenBack, setGivenBack] = useState<{ draft: string; serverText: DraftMcp }>();
  const giveBack = useCallback(
    (text: string, serverText: DraftMcp | undefined) => {
      setDraft(text);
      if (serverText !== undefined) setGivenBack({ draft: text, serverText });
    },
    [setDraft],
  );
  /** The images attached in the box, and those of the queued message: in memory, per session, while the tab lives. */
  const [images, setImagesState] = useState(() => readDraftImages(sessionId));
  /** Why the box's images did not go (the daemon refused them, or the queue is full), until they change. */
  const [imageRefusal, setImageRefusal] = useState(() => readImageRefusal(sessionId));
  useEffect(() => forgetImageRefusal(sessionId), [sessionId]);
  const setImages = useCallback(
    (next: readonly Attachment[]) => {
      setImagesState(next);
      setImageRefusal(undefined);
      saveDraftImages(sessionId, next);
    },
    [sessionId],
  );
  const [queuedImages, setQueuedImagesState] = useState(() => readDraftImages(sessionId, 'queued'));
  const setQueuedImages = useCallback(
    (next: readonly Attachment[]) => {
      setQueuedImagesState(next);
      saveDraftImages(sessionId, next, 'queued');
    },
    [sessionId],
  );
  // Text typed or an image attached in a session New session made keeps it (the daemon would
  // remove it, untouched, once this tab no longer shows it).
  const drafted = draft !== '' || images.length > 0 || queued !== '' || queuedImages.length > 0;
  useEffect(() => {
    if (drafted) keepNewSession(bastion, sessionId);
  }, [bastion, sessionId, drafted]);
  const [busy, setBusy] = useState(false);
  /**
   * The approvals (tool call ids) this tab saw answered: by its own answer, or after another tab,
   * window or terminal had answered first (the daemon said APPROVAL_ALREADY_ANSWERED). They are not
   * asked here again, even before this tab's stream brings the answer (a tool-approval-response).
   */
  const [answeredHere, setAnsweredHere] = useState<ReadonlySet<string>>(() => new Set());
  /** The approval this tab answered after another had: a note says why its card went. Cleared by the next action. */
  const [answeredElsewhere, setAnsweredElsewhere] = useState<ToolView>();
  /** The run whose Undo confirmation is open. */
  const [undoing, setUndoing] = useState<string>();
  /** The run whose prompt's Rewind confirmation is open. */
  const [rewinding, setRewinding] = useState<string>();
  /** The find bar, while open: its text, the match shown (from 0) and how often it was asked to show one. */
  const [find, setFind] = useState<{ query: string; current: number; seq: number; focus: number }>();
  /** The host's own record of this session's decisions is open. */
  const [hostRecord, setHostRecord] = useState(false);
  /**
   * On a narrow or short window the header's second line and the session's controls fold under an
   * Options button (CSS); wide and tall, they always show.
   */
  const [controlsOpen, setControlsOpen] = useState(false);
  /** `auto` was chosen (the Mode select or `/mode auto`): its consent dialog is open. */
  const [askingAuto, setAskingAuto] = useState(false);
  /** `/help`'s dialog is open. */
  const [help, setHelp] = useState(false);
  /** The mode the session was last switched to here, said to a screen reader (Alt+Shift+M leaves focus in the box). */
  const [modeSaid, setModeSaid] = useState('');
  /** Bumped each time the reader sends (or queues) a message: the transcript goes to its end. */
  const [sent, setSent] = useState(0);
  /** The run the reader just undid: its "Run undone" notice is brought into view when it comes. */
  const [undone, setUndone] = useState<string>();
  const undoneKey = undone === undefined ? undefined : undoneNoticeKey(transcript.items, undone);
  // The dialog gave the focus back to the run's "Undo this run", which goes when the undo's notice
  // comes: the message box takes the focus then, not the page.
  useEffect(() => {
    const focused = document.activeElement;
    if (undoneKey !== undefined && (focused === null || focused === document.body))
      document.getElementById('composer-input')?.focus({ preventScroll: true });
  }, [undoneKey]);
  const { models } = useModels(bastion, sessionsVersion);
  // A session of a folder this Bastion does not work in gets a banner that can ask for the folder.
  const roots = useGrantedRoots(bastion);
  const otherFolder =
    session?.workspace != null && roots !== undefined && !roots.includes(session.workspace)
      ? session.workspace
      : undefined;
  /** The session's folder while this Bastion works in it (the message box's `@` lists it). */
  const reachableRoot = otherFolder === undefined ? (session?.workspace ?? null) : null;
  // The host's own questions about this session's held commands (a command that names no session shows too).
  const hostAsk = useHostAsks(bastion).find((ask) => ask.session_id === undefined || ask.session_id === sessionId);
  const lastId = useRef(opened?.transcript.lastEventId ?? 0);
  /** The session's title, for notifications of its stream's events. */
  const titleOf = useRef<string | undefined>(undefined);
  titleOf.current = session?.title;
  useEffect(() => {
    if (session) rememberTitle(session.id, session.title);
  }, [session]);
  const queue = useRef<AgentStreamEvent[]>([]);
  const flushScheduled = useRef(false);

  useEffect(() => {
    let cancelled = false;
    const setsBefore = sessionSets.current;
    bastion.sessions
      .get(sessionId)
      .then((answer) => !cancelled && sessionSets.current === setsBefore && setStoredSession(answer))
      .catch((failure: unknown) => {
        if (cancelled) return;
        if ((failure as { code?: string }).code === 'SESSION_NOT_FOUND') setNotFound(true);
        else setError(describeError(failure));
      });
    return () => {
      cancelled = true;
    };
  }, [bastion, sessionId, sessionsVersion]);

  // Events are queued and folded once per frame: a burst of deltas costs one render, not one each.
  const enqueue = useCallback(
    (event: AgentStreamEvent) => {
      queue.current.push(event);
      if (flushScheduled.current) return;
      flushScheduled.current = true;
      window.requestAnimationFrame(() => {
        flushScheduled.current = false;
        const batch = queue.current;
        queue.current = [];
        setTranscript((previous) => applyEvents(previous, batch));
        // A run that ended changes how the session list shows this session (and may have started or
        // stopped MCP servers): read them again now.
        if (batch.some(({ event }) => event.type === 'run-finished' || event.type === 'run-error')) {
          onSessionChanged();
          setRunsEnded((count) => count + 1);
        }
        if (batch.some(({ event }) => CHANGES_EVENTS.has(event.type))) setChangesVersion((count) => count + 1);
      });
    },
    [onSessionChanged],
  );

  const addTexts = useCallback((chunk: Pick<HistoryChunk, 'texts' | 'images' | 'mcp'>) => {
    setTexts((previous) => new Map([...previous, ...chunk.texts]));
    if (chunk.images.size > 0) setMessageImages((previous) => new Map([...previous, ...chunk.images]));
    if (chunk.mcp.size > 0) setMessageMcp((previous) => new Map([...previous, ...chunk.mcp]));
  }, []);

  // First the newest page of the log (so a long session paints its end at once), then the live
  // stream after it, which resumes with Last-Event-ID after any drop (a restarted sidecar included).
  useEffect(() => {
    const controller = new AbortController();
    void (async () => {
      // The stream's events are live, after the newest page, unless that page could not be read
      // and the stream replays the whole log: those are never notified.
      let live = true;
      try {
        const newest = await newestHistory(bastion, sessionId);
        if (controller.signal.aborted) return;
        if (newest !== opened) {
          addTexts(newest);
          lastId.current = newest.transcript.lastEventId ?? 0;
          setTranscript(newest.transcript);
          setOlder(newest.next);
        }
      } catch (failure) {
        if (controller.signal.aborted) return;
        if ((failure as { code?: string }).code === 'SESSION_NOT_FOUND') {
          setNotFound(true);
          return;
        }
        // the stream below replays the whole log instead
        live = false;
        setError(describeError(failure));
        setOlder(null);
      }
      let delay = RECONNECT_MIN_MS;
      while (!controller.signal.aborted) {
        try {
          setLink('live');
          await bastion.agent.stream(sessionId, {
            lastEventId: lastId.current,
            viewer: PAGE_VIEWER,
            signal: controller.signal,
            onEvent: (event) => {
              if (event.id <= lastId.current) return;
              lastId.current = event.id;
              delay = RECONNECT_MIN_MS;
              // Here, not in the per-frame fold: a tab in the background gets no animation frames.
              if (live) notifyAgentEvent(sessionId, titleOf.current, event.event);
              enqueue(event);
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
        onLinkLost();
        await sleep(delay, controller.signal);
        delay = Math.min(delay * 2, RECONNECT_MAX_MS);
      }
    })();
    return () => controller.abort();
  }, [bastion, sessionId, opened, enqueue, addTexts, onLinkLost]);

  // Older pages, as the reader scrolls up: folded on their own and joined before what is shown.
  const loadingOlder = useRef(false);
  const loadOlder = useCallback(() => {
    if (older === undefined || older === null || loadingOlder.current) return;
    loadingOlder.current = true;
    loadHistory(bastion, sessionId, older)
      .then((chunk) => {
        addTexts(chunk);
        setTranscript((newer) => prependTranscript(chunk.transcript, newer));
        setOlder(chunk.next);
      })
      .catch((failure: unknown) => setError(describeError(failure)))
      .finally(() => {
        loadingOlder.current = false;
      });
  }, [bastion, sessionId, older, addTexts]);

  const act = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setAnsweredElsewhere(undefined);
    try {
      await action();
      setError(undefined);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }, []);

  /** This view's sends whose answer (the new prompt's id) has not come back yet. */
  const [sending, setSending] = useState(0);
  const send = useCallback(
    /** `mcp`: what the box read for it; a retried message that had none has its resources read now. */
    async (message: string, attached: readonly Attachment[] = [], mcp?: AgentRunMcp) => {
      setSending((count) => count + 1);
      keepNewSession(bastion, sessionId);
      try {
        const fromMcp = mcp ?? (await mcpContextOf(bastion.mcp, reachableRoot, message, undefined));
        const answer = await bastion.agent.run(
          sessionId,
          message,
          attached.length === 0 ? undefined : attached.map(imageInputOf),
          fromMcp,
          newClientId(),
        );
        const messageId = answer.message_id;
        if (messageId !== null) {
          setTexts((previous) => new Map(previous).set(messageId, message));
          if (fromMcp.prompt !== undefined || (fromMcp.resources?.length ?? 0) > 0) {
            const carried: MessageMcp = { prompt: fromMcp.prompt, resources: [...(fromMcp.resources ?? [])] };
            setMessageMcp((previous) => new Map(previous).set(messageId, carried));
          }
          if (attached.length > 0) {
            const parts = sentImageParts(sessionId, messageId, attached);
            setMessageImages((previous) => new Map(previous).set(messageId, parts));
          }
        }
      } finally {
        setSending((count) => count - 1);
      }
      // The daemon titles a session after its first message; the session is read again for it.
      onSessionChanged();
    },
    [bastion, sessionId, onSessionChanged, reachableRoot],
  );

  // A prompt this view did not send (another tab, `bastion run`, the HTTP API), or sent while its
  // stream was away, comes as a live `run-started` naming it: its text is read then, once. While
  // a send of this view's is out, its own prompt may be the one: that send puts its text in first.
  const promptsAsked = useRef(new Set<string>());
  useEffect(() => {
    if (sending > 0) return;
    for (const item of transcript.items) {
      if (item.kind !== 'user' || texts.has(item.messageId) || promptsAsked.current.has(item.messageId)) continue;
      promptsAsked.current.add(item.messageId);
      loadPrompt(bastion, sessionId, item.eventId).then(addTexts, (failure: unknown) =>
        setError(describeError(failure)),
      );
    }
  }, [bastion, sessionId, transcript.items, texts, sending, addTexts]);
  /**
   * Sends `message` with `attached`; the box is emptied once it went. A refusal of the images is
   * said under the box (the text and images stay there); any other failure in the banner.
   */
  const submit = useCallback(
    (message: string, attached: readonly Attachment[] = [], mcp?: AgentRunMcp) =>
      act(async () => {
        try {
          await send(message, attached, mcp);
        } catch (failure) {
          if (attached.length === 0 || !isImageRefusal(errorCode(failure))) throw failure;
          setImageRefusal(describeError(failure));
          return;
        }
        setDraft('');
        // Those sent leave the box; any attached while it went stay.
        if (attached.length > 0) setImages(readDraftImages(sessionId).filter((image) => !attached.includes(image)));
      }),
    [act, send, setDraft, setImages, sessionId],
  );
  /** Retry a prompt: its text, and its images read back from the session. */
  const resubmit = useCallback(
    (prompt: { text: string; messageId: string }) =>
      void act(async () => {
        const parts = messageImages.get(prompt.messageId) ?? [];
        const attached = await Promise.all(
          parts.map(async (part, index) => ({
            id: `retry-${prompt.messageId}-${index}`,
            name: part.name ?? '',
            mediaType: part.media_type,
            bytes: part.bytes,
            dataUrl: await sessionImageUrl(bastion.sessions, sessionId, part.image_id),
          })),
        );
        // What MCP servers gave it goes again as it was (a word of a server's prompt text is read as nothing).
        const stored = messageMcp.get(prompt.messageId);
        await send(
          prompt.text,
          attached,
          stored && { ...(stored.prompt === undefined ? {} : { prompt: stored.prompt }), resources: stored.resources },
        );
        setDraft('');
      }),
    [act, send, setDraft, bastion, sessionId, messageImages, messageMcp],
  );

  // A question this tab saw answered waits no more, whatever the stream has brought yet. Several
  // approvals of one step are asked one at a time, in the order the model asked for them.
  const waiting = transcript.pending.filter((tool) => !answeredHere.has(tool.toolCallId));
  const pending = waiting[0];
  /** A question waits, the agent's or the host's own: what is typed in the box answers neither. */
  const asked = pending !== undefined || hostAsk !== undefined;
  const active = transcript.active;
  const stoppable = active !== undefined || pending !== undefined;
  /** A queued message waits for the run that carries out the answers just given, too. */
  const answersToRun = stepAnswered(transcript, answeredHere);
  const outcome = useMemo(() => lastRunOutcome(transcript.items), [transcript.items]);
  /** The queued message back in the box, before what is typed there now (its images before those attached there). */
  const unqueue = useCallback(() => {
    giveBack(joinMessages(queued, draft), queuedMcp.current.serverText);
    if (queuedImages.length > 0) setImages([...queuedImages, ...images]);
    setQueued('');
    setQueuedImages([]);
  }, [draft, queued, images, queuedImages, giveBack, setImages, setQueued, setQueuedImages]);
  useEffect(() => {
    if (queued === '' || stoppable || answersToRun || busy || link !== 'live') return;
    if (outcome !== 'finished') {
      unqueue();
      return;
    }
    const message = queued;
    const attached = queuedImages;
    const carried = queuedMcp.current;
    setQueued('');
    setQueuedImages([]);
    void act(async () => {
      try {
        await send(message, attached, carried.mcp);
      } catch (failure) {
        giveBack(joinMessages(message, draft), carried.serverText);
        if (attached.length > 0) setImages([...attached, ...images]);
        if (attached.length === 0 || !isImageRefusal(errorCode(failure))) throw failure;
        setImageRefusal(describeError(failure));
      }
    });
  }, [
    queued,
    queuedImages,
    stoppable,
    answersToRun,
    busy,
    link,
    outcome,
    unqueue,
    setQueued,
    setQueuedImages,
    act,
    send,
    giveBack,
    draft,
    images,
    setImages,
  ]);
  useTabTitle(session?.title || 'Untitled session', asked ? 'approval' : active ? 'working' : 'idle');
  const stop = useCallback(() => void act(() => bastion.agent.abort(sessionId)), [act, bastion, sessionId]);

  // Esc anywhere stops the run, unless a dialog is open or what has focus took it first (a list
  // over the box, the find bar, the Changes panel, the "Always allow…" step close themselves, the
  // approval's Reason empties itself), or it was typed in a text field other than the message box.
  useEffect(() => {
    if (!stoppable) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (
        event.key === 'Escape' &&
        !event.defaultPrevented &&
        !isOtherTextField(event.target) &&
        document.querySelector('dialog[open]') === null
      ) {
        event.preventDefault();
        stop();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [stoppable, stop]);

  // Ctrl+F (⌘F) in a session opens the find bar, or takes focus back to it: the browser's own find
  // cannot see the rows the virtualized list keeps out of the DOM.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== 'f' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey)
        return;
      if (document.querySelector('dialog[open]') !== null) return;
      event.preventDefault();
      setFind((open) => (open ? { ...open, focus: open.focus + 1 } : { query: '', current: 0, seq: 0, focus: 0 }));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const matches = useMemo(
    () => (find === undefined ? [] : findMatches(transcript.items, texts, find.query)),
    [find, transcript.items, texts],
  );
  const matchKeys = useMemo(() => new Set(matches), [matches]);

  const setMode = (mode: PermissionMode) =>
    void act(async () => {
      setSession(await bastion.mode.set(sessionId, mode));
      onSessionChanged();
      setModeSaid(`Mode: ${MODE_LABELS[mode]}`);
    });
  /** Alt+Shift+M in the box, while no question waits (the mode does not change under a question). */
  const cycleMode =
    session === undefined || asked
      ? undefined
      : () => {
          if (!busy) setMode(cycledMode(session.mode));
        };

  /** Focuses one of the session's controls, unfolding them first on a narrow window. */
  const focusControl = (id: string) => {
    flushSync(() => setControlsOpen(true));
    document.getElementById(id)?.focus();
  };

  /** Opens the Changes panel, reading the changes afresh. */
  const openChanges = () => {
    sessionChanges.reload();
    setChangesOpen(true);
  };
  const undoable = lastUndoableRun(transcript.items);
  const rewindable = lastRewindableRun(transcript.items);
  const plan = useMemo(() => pinnedPlan(transcript.items), [transcript.items]);
  const modeCommand = (mode: PermissionMode, description: string): SlashCommand => ({
    name: `/mode ${mode}`,
    description,
    unavailable: session === undefined ? 'the session is loading' : session.mode === mode ? 'the mode now' : undefined,
    run: () => (mode === 'auto' ? setAskingAuto(true) : setMode(mode)),
  });
  const commands: SlashCommand[] = [
    {
      name: '/new',
      description: 'start a new session on the default model',
      unavailable: undefined,
      run: () => void act(onNewSession),
    },
    {
      name: '/compact',
      description:
        'summarise the turns before the last one now, to free the model’s context (the transcript stays whole)',
      unavailable: stoppable ? 'a run is going' : undefined,
      run: () => void act(() => bastion.agent.compact(sessionId)),
    },
    {
      name: '/init',
      description: 'ask the agent to write the project’s AGENTS.md (you approve the write)',
      unavailable: stoppable ? 'a run is going' : undefined,
      run: () => void submit(INIT_INSTRUCTIONS_PROMPT),
    },
    {
      name: '/undo',
      description: 'put back the files the last run wrote (asks first)',
      unavailable: stoppable ? 'a run is going' : undoable === undefined ? 'no run here changed a file' : undefined,
      run: () => setUndoing(undoable),
    },
    {
      name: '/rewind',
      description: 'go back to before your last prompt, to edit it and send it again (asks first)',
      unavailable: stoppable ? 'a run is going' : rewindable === undefined ? 'no prompt to go back to' : undefined,
      run: () => setRewinding(rewindable),
    },
    {
      name: '/export',
      description: 'download this session as a markdown file',
      unavailable: session === undefined ? 'the session is loading' : undefined,
      run: () => session && void act(() => downloadSession(bastion, session)),
    },
    {
      name: '/changes',
      description: 'every file this session’s agent changed, with its diff, and Copy patch (opens Changes)',
      unavailable: undefined,
      run: openChanges,
    },
    {
      name: '/model',
      description: 'choose this session’s model (opens the Model list)',
      unavailable: stoppable ? 'a run is going' : models === undefined ? 'the models are loading' : undefined,
      run: () => focusControl('session-model'),
    },
    {
      name: '/reasoning',
      description: 'choose how much the model reasons (opens the Reasoning list)',
      unavailable:
        session === undefined || models === undefined
          ? 'the session is loading'
          : listedModel(models.groups, session)?.reasoning
            ? undefined
            : 'this session’s model takes no reasoning effort',
      run: () => focusControl('reasoning'),
    },
    modeCommand('read-only', 'reading only: no writes, no commands beyond the read-only set'),
    modeCommand('accept-edits', 'file edits and read-only commands without asking'),
    modeCommand('auto', 'every command without asking, in the sandbox (asks you to confirm)'),
    {
      name: '/mcp',
      description: 'the MCP servers of this project: their state and tools (opens Settings → MCP servers)',
      unavailable: session === undefined ? 'the session is loading' : undefined,
      run: () => session && onMcpServers(session.workspace ?? undefined),
    },
    {
      name: '/help',
      description: 'the keys of the message box and these commands',
      unavailable: undefined,
      run: () => setHelp(true),
    },
  ];

  // Rows are memoized on their item and on `render`, so `render` must not change with every event:
  // what it needs from the whole transcript (a run's tool cards, the prompt before an error) it
  // reads from this ref when the row renders.
  const items = useRef(transcript.items);
  items.current = transcript.items;
  /** Runs that ended stopped or failed: a call of theirs left without a result is not at work, whatever run goes now. */
  const endedRuns = useRef(new Set<string>());
  endedRuns.current = useMemo(
    () =>
      new Set(
        transcript.items.flatMap((item) =>
          item.kind === 'run-end' && (item.outcome === 'stopped' || item.outcome === 'failed') ? [item.runId] : [],
        ),
      ),
    [transcript.items],
  );
  const activeRunId = active?.runId;
  const provider = session?.provider;

  const render = useCallback(
    (item: TranscriptItem) => {
      switch (item.kind) {
        case 'user': {
          const text = texts.get(item.messageId);
          return (
            <>
              <McpPromptOrigin mcp={messageMcp.get(item.messageId)} />
              <div className="user-turn">
                {!item.rewound && !stoppable && (
                  <button
                    type="button"
                    className="small prompt-action"
                    title="Go back to before this prompt, to edit it and send it again"
                    onClick={() => setRewinding(item.runId)}
                  >
                    Rewind
                  </button>
                )}
                <div className="bubble user" data-testid="user-bubble">
                  {text ?? <span className="muted">Loading message…</span>}
                </div>
              </div>
              <McpResources mcp={messageMcp.get(item.messageId)} />
              <MessageImages
                images={bastion.sessions}
                sessionId={sessionId}
                parts={messageImages.get(item.messageId) ?? []}
              />
              {item.rewound && <span className="prompt-note">Rewound: not in the conversation</span>}
            </>
          );
        }
        case 'assistant':
          return (
            <div className="bubble assistant">
              <Markdown text={item.text} />
            </div>
          );
        case 'reasoning':
          return <Reasoning text={item.text} live={activeRunId === item.runId} />;
        case 'tool':
          // Runs of a session come one at a time: while one goes, a call without its result is at
          // work — unless its own run ended stopped or failed. A call approved in a run that ended
          // waiting is carried out by the next one, which its answer starts.
          return (
            <ToolCard
              tool={item}
              runGoing={
                !endedRuns.current.has(item.runId) && (activeRunId !== undefined || item.approval?.state === 'answered')
              }
            />
          );
        case 'retry':
          return <RetryNotice item={item} />;
        case 'instructions':
          return (
            <p className="instructions-read muted">
              Project instructions:{' '}
              {item.paths.map((path, index) => (
                <span key={path}>
                  {index > 0 && ', '}
                  <code>{path}</code>
                </span>
              ))}
            </p>
          );
        case 'compacted':
          return (
            <p className="notice" role="status">
              Older turns ({item.count} messages) were summarised to fit the model’s context. The transcript here stays
              whole.
            </p>
          );
        case 'error': {
          const prompt = promptBefore(items.current, texts, item.key);
          return (
            <RunError
              item={item}
              provider={provider}
              onRetry={
                prompt === undefined || stoppable || item.rewound || promptAfter(items.current, item.key)
                  ? undefined
                  : () => {
                      resubmit(prompt);
                      // Retry goes as the prompt is sent again: the message box keeps the focus, not the page.
                      document.getElementById('composer-input')?.focus({ preventScroll: true });
                    }
              }
              onSettings={onSettings}
            />
          );
        }
        case 'run-end':
          return (
            <RunEnd
              item={item}
              reply={replyOf(items.current, item.runId)}
              toolOf={(key) => toolByKey(items.current, key)}
              onUndo={item.undone || stoppable ? undefined : () => setUndoing(item.runId)}
            />
          );
        case 'undone':
          return <UndoneNotice {...item} />;
        case 'rewound':
          return <RewoundNotice {...item} />;
      }
    },
    [texts, messageImages, messageMcp, bastion, sessionId, activeRunId, provider, stoppable, resubmit],
  );

  if (notFound) {
    return (
      <section className="empty" role="alert">
        <h1>Session not found</h1>
        <p>It may have been deleted. Pick another session or create a new one.</p>
      </section>
    );
  }

  const totals = transcript.totals;
  return (
    <section className="chat" aria-label="Chat">
      <header className="chat-head">
        <div className="chat-title">
          <h1>{session?.title || 'Untitled session'}</h1>
          {session && (
            <button
              type="button"
              className="small controls-toggle"
              aria-expanded={controlsOpen}
              aria-controls="chat-controls"
              onClick={() => setControlsOpen(!controlsOpen)}
            >
              Options: {session.mode}
            </button>
          )}
        </div>
        {session && (
          // On a short or narrow window all but the title folds under Options (CSS), so the
          // transcript keeps the height; wide and tall, it always shows.
          <div id="chat-controls" className={controlsOpen ? 'chat-more' : 'chat-more folded'}>
            <div className="muted chat-meta">
              {/* One line at any count: the numbers are cut short (their whole in the tooltip) before the buttons move. */}
              <span
                className="chat-stats"
                title={
                  totals.input_tokens > 0 || totals.output_tokens > 0
                    ? `${modelName(session)} · Session: ${usageText(totals)}`
                    : modelName(session)
                }
              >
                {modelName(session)}
                {(totals.input_tokens > 0 || totals.output_tokens > 0) && (
                  <>
                    {' · '}
                    <UsageLine usage={totals} label="Session" />
                  </>
                )}
              </span>
              {transcript.context && (
                <span className="chat-context">
                  {'· '}
                  <ContextMeter
                    context={{
                      tokens: transcript.context.tokens,
                      // Against the model the session uses now: the last run's may have been another.
                      window: (models && listedWindow(models.groups, session)) ?? transcript.context.window,
                    }}
                  />
                </span>
              )}
              <span className="chat-views">
                {/* aria-disabled, not disabled, while busy: a disabled button loses the focus, which Export had. */}
                <button
                  type="button"
                  className="small"
                  aria-disabled={busy || undefined}
                  title="Download this session as a markdown file"
                  onClick={() => {
                    if (!busy) void act(() => downloadSession(bastion, session));
                  }}
                >
                  Export
                </button>
                <button
                  type="button"
                  className="small"
                  aria-expanded={changesOpen}
                  aria-controls={changesOpen ? 'changes-panel' : undefined}
                  title="Every file this session’s agent changed, with its diff"
                  onClick={() => (changesOpen ? setChangesOpen(false) : openChanges())}
                >
                  {changesLabel(sessionChanges.changes)}
                </button>
                {/* A view of the session, like Export and Changes; among the controls it pushed their row to two lines at 1280 px. */}
                <button
                  type="button"
                  className="small"
                  title="The host’s own record of its decisions on this session’s calls"
                  onClick={() => setHostRecord(true)}
                >
                  Host record
                </button>
              </span>
            </div>
            <div className="chat-controls">
              {models && (
                <ModelPicker
                  id="session-model"
                  label="Model"
                  groups={models.groups}
                  value={{ provider: session.provider, model: session.model }}
                  disabled={busy || stoppable}
                  onChange={(ref) =>
                    void act(async () => {
                      setSession(await bastion.sessions.update(sessionId, ref));
                      onSessionChanged();
                    })
                  }
                />
              )}
              {models && listedModel(models.groups, session)?.reasoning && (
                <ReasoningSwitch
                  effort={session.reasoning_effort}
                  disabled={busy}
                  onChange={(effort) =>
                    void act(async () =>
                      setSession(await bastion.sessions.update(sessionId, { reasoning_effort: effort })),
                    )
                  }
                />
              )}
              <ModeSwitch
                mode={session.mode}
                disabled={busy}
                onChange={setMode}
                onAskAuto={() => setAskingAuto(true)}
              />
              <AskBeforeWrites
                checked={session.ask_before_writes}
                mode={session.mode}
                disabled={busy}
                onChange={(askBeforeWrites) => {
                  // shown at once; the stored session replaces it (or, on a failure, the session as it is)
                  setSession({ ...session, ask_before_writes: askBeforeWrites });
                  void act(async () => {
                    try {
                      setSession(await bastion.sessions.update(sessionId, { ask_before_writes: askBeforeWrites }));
                    } catch (failure) {
                      setSession(await bastion.sessions.get(sessionId));
                      throw failure;
                    }
                  });
                }}
              />
            </div>
          </div>
        )}
      </header>
      {link === 'reconnecting' && unavailable === undefined && (
        <div className="banner banner-warn" role="status">
          Connection to the agent was lost. Reconnecting…
        </div>
      )}
      {error && (
        <div className="banner banner-error" role="alert">
          {error}
        </div>
      )}
      {session?.workspace && (
        <McpStoppedBanner
          bastion={bastion}
          workspace={session.workspace}
          runsEnded={runsEnded}
          onMcpServers={() => onMcpServers(session.workspace ?? undefined)}
        />
      )}
      {otherFolder !== undefined && (
        <OtherFolderBanner bastion={bastion} folder={otherFolder} onGranted={() => reloadGrantedRoots(bastion)} />
      )}
      {find && (
        <FindBar
          query={find.query}
          // A new text shows its last match, nearest the end of the session, where the reader is.
          onQuery={(query) => {
            const found = findMatches(transcript.items, texts, query).length;
            setFind({ ...find, query, current: Math.max(0, found - 1), seq: find.seq + 1 });
          }}
          count={matches.length}
          current={Math.min(find.current, Math.max(0, matches.length - 1))}
          onStep={(step) =>
            matches.length > 0 &&
            setFind({
              ...find,
              current: (Math.min(find.current, matches.length - 1) + step + matches.length) % matches.length,
              seq: find.seq + 1,
            })
          }
          onClose={() => {
            setFind(undefined);
            document.getElementById('composer-input')?.focus();
          }}
          focusRequest={find.focus}
          partial={older !== undefined && older !== null}
        />
      )}
      <div className="chat-body">
        <TranscriptList
          items={transcript.items}
          render={render}
          hasOlder={older !== undefined && older !== null}
          revealKey={undoneKey}
          endRequest={sent}
          empty={older === null && <EmptySessionHints session={session} />}
          onNearTop={loadOlder}
          find={
            find && {
              query: find.query,
              keys: matchKeys,
              current: matches[Math.min(find.current, matches.length - 1)],
              seq: find.seq,
            }
          }
        />
        {changesOpen && <ChangesPanel state={sessionChanges} onClose={() => setChangesOpen(false)} />}
      </div>
      {plan !== undefined && <PlanBar steps={plan} />}
      <Activity
        since={active?.seenAt}
        heardAt={active !== undefined && active.toolsRunning === 0 ? active.heardAt : undefined}
        waiting={asked}
      />
      {answeredElsewhere !== undefined && (pending === undefined || pending.runId === answeredElsewhere.runId) && (
        <p className="answered-elsewhere" role="status">
          This was already answered (in another tab or window).
        </p>
      )}
      {pending && (
        <ApprovalPrompt
          key={pending.toolCallId}
          tool={pending}
          waitingAfter={waiting.length - 1}
          busy={busy}
          workspace={session?.workspace ?? null}
          askBeforeWrites={session?.ask_before_writes ?? false}
          onAlwaysAllow={(workspace, rule) => bastion.policy.add(workspace, rule).then(() => undefined)}
          onAnswer={(approved, reason) =>
            void act(async () => {
              try {
                await bastion.approvals.answer(sessionId, {
                  approval_id: pending.approval?.approvalId ?? '',
                  tool_call_id: pending.toolCallId,
                  approved,
                  ...(reason === undefined ? {} : { reason }),
                });
              } catch (failure) {
                if (errorCode(failure) !== 'APPROVAL_ALREADY_ANSWERED') throw failure;
                setAnsweredElsewhere(pending);
              }
              setAnsweredHere((answered) => new Set(answered).add(pending.toolCallId));
              // The session no longer waits (the list's mark goes) and its run goes on, or the
              // step's next approval shows.
              onSessionChanged();
            })
          }
        />
      )}
      {hostAsk && <HostAskPrompt key={hostAsk.id} bastion={bastion} ask={hostAsk} />}
      {queued !== '' && (
        <div className="queued" role="status" aria-label="Queued">
          <span className="queued-label">
            {asked
              ? 'Queued, not an answer: sent as your next message when this run finishes:'
              : 'Queued, sent when this run finishes:'}
          </span>
          <span className="queued-text">{queued}</span>
          {queuedImages.length > 0 && (
            <span className="queued-images">with {plural(queuedImages.length, 'image')}</span>
          )}
          <span className="queued-actions">
            <button type="button" className="small" onClick={unqueue}>
              Edit
            </button>
            <button
              type="button"
              className="small"
              title="Drop the queued message: it is not sent"
              onClick={() => {
                setQueued('');
                setQueuedImages([]);
              }}
            >
              Cancel
            </button>
          </span>
        </div>
      )}
      {undoing && (
        <UndoDialog
          bastion={bastion}
          sessionId={sessionId}
          runId={undoing}
          onClose={() => setUndoing(undefined)}
          onUndone={() => {
            setUndone(undoing);
            setUndoing(undefined);
          }}
        />
      )}
      {rewinding && (
        <RewindDialog
          bastion={bastion}
          sessionId={sessionId}
          runId={rewinding}
          prompt={promptOfRun(transcript.items, texts, rewinding)}
          onClose={() => setRewinding(undefined)}
          onRewound={(prompt) => {
            const parts = promptImages(transcript.items, messageImages, rewinding);
            setRewinding(undefined);
            giveBack(joinMessages(prompt, draft), storedServerText(transcript.items, messageMcp, prompt, rewinding));
            document.getElementById('composer-input')?.focus();
            // The prompt's images come back too, once read from the session (before any attached since).
            if (parts.length > 0) {
              void act(async () => {
                const attached = await Promise.all(
                  parts.map(async (part, index) => ({
                    id: `rewound-${rewinding}-${index}`,
                    name: part.name ?? '',
                    mediaType: part.media_type,
                    bytes: part.bytes,
                    dataUrl: await sessionImageUrl(bastion.sessions, sessionId, part.image_id),
                  })),
                );
                setImages([...attached, ...readDraftImages(sessionId)]);
              });
            }
          }}
        />
      )}
      {hostRecord && <HostRecordDialog bastion={bastion} sessionId={sessionId} onClose={() => setHostRecord(false)} />}
      {askingAuto && (
        <AutoConsentDialog
          mode={session?.mode ?? 'accept-edits'}
          onCancel={() => setAskingAuto(false)}
          onConsent={() => {
            setAskingAuto(false);
            setMode('auto');
          }}
        />
      )}
      {help && <HelpDialog commands={commands} onClose={() => setHelp(false)} />}
      <Composer
        draft={draft}
        onDraft={setDraft}
        draftKey={sessionId}
        givenBack={givenBack}
        onSend={(mcp, serverText) => {
          const message = draft.trim();
          if (message === '') return;
          setSent((count) => count + 1);
          if (!stoppable) {
            void submit(message, images, withPromptSpans(mcp, serverText?.spans, draft));
            return;
          }
          if (queuedImages.length + images.length > AGENT_MAX_IMAGES) {
            setImageRefusal(
              `The queued message already carries ${plural(queuedImages.length, 'image')}, and one message carries at most ${AGENT_MAX_IMAGES}: send these once the run finishes, or remove ${queuedImages.length + images.length - AGENT_MAX_IMAGES}.`,
            );
            return;
          }
          // Joined to a message queued before, it is no longer one prompt's text alone; the characters
          // either prompt wrote stay that prompt's, should it come back to the box.
          const joined = joinMessages(queued, message);
          const earlier = queuedMcp.current;
          const joinedServerText = queuedServerText(
            earlier.serverText,
            serverText && { draft, serverText },
            joined,
            message,
          );
          setQueued(joined, {
            mcp:
              queued === ''
                ? withPromptSpans(mcp, serverText?.spans, draft)
                : joinedMcp(earlier.mcp, mcp, joinedServerText, joined),
            serverText: joinedServerText,
          });
          if (images.length > 0) setQueuedImages([...queuedImages, ...images]);
          setDraft('');
          setImages([]);
        }}
        onStop={stop}
        stoppable={stoppable}
        queues={stoppable}
        sendDisabled={busy || draft.trim() === ''}
        // Longest first: the box shows the first that fits its width (at 400 px, with Stop beside it, about 20 characters).
        placeholder={
          asked
            ? [
                'Not an answer: queued as your next message · Allow or Deny above (Alt+Shift+A)',
                'Not an answer: queued as next message',
                'Not an answer: queued',
                'Not an answer',
              ]
            : stoppable
              ? [
                  'Next message… (Enter queues it for when this run finishes)',
                  'Next message… (Enter queues it)',
                  'Next message…',
                ]
              : reachableRoot !== null
                ? ['Ask the agent… (@ for files, / for commands)', 'Ask the agent…']
                : ['Ask the agent… (/ for commands)', 'Ask the agent…']
        }
        autoFocus={session !== undefined && pending === undefined}
        lastPrompt={lastPromptOf(transcript.items, texts)}
        lastPromptServerText={storedServerText(transcript.items, messageMcp, lastPromptOf(transcript.items, texts))}
        workspace={reachableRoot}
        files={bastion.workspaces}
        commands={commands}
        savedPrompts={bastion.prompts}
        mcp={bastion.mcp}
        images={images}
        onImages={setImages}
        modelTakesImages={
          models === undefined || session === undefined || listedModel(models.groups, session)?.images === true
        }
        imageRefusal={imageRefusal}
        unavailable={unavailable}
        hint={
          asked
            ? 'Enter queues this as your next message, sent once this run finishes; it does not answer the approval. To answer, choose Allow or Deny above (Alt+Shift+A goes there).'
            : undefined
        }
        onCycleMode={cycleMode}
      />
      <p className="visually-hidden" role="status">
        {modeSaid}
      </p>
    </section>
  );
}
