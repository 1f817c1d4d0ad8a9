/**
 * A session's log read back through the bridge, newest first: the newest page when a session
 * opens, older pages as the reader scrolls up. The page a session opens on is requested by
 * boot.ts from the entry's first module line, before React or the renderers have run.
 */
import type { AgentStreamEvent, BastionApi } from '@bastion/bridge';
import { EVENT_PAGE_MAX_LIMIT, UI_OPENING_EVENT_PAGE_LIMIT, type Message } from '@bastion/protocol';
import { messageMcpOf, typedTextOf, type MessageMcp } from './mcp-offers.js';
import { imagePartsOf, type ImagePart } from './session-images.js';
import { applyEvents, emptyTranscript, type Transcript } from './transcript.js';

/**
 * A stretch of the session's log, folded, with the prompts it names (their texts, and the images
 * and MCP parts of those that carried any); `next` pages further back.
 */
export interface HistoryChunk {
  transcript: Transcript;
  texts: Map<string, string>;
  images: Map<string, ImagePart[]>;
  /** What MCP servers put in the prompts that carry any: the prompt a text came from, the resources attached. */
  mcp: Map<string, MessageMcp>;
  next: string | null;
}

/**
 * The events before `cursor` (the newest when undefined), paged back until they start at a run —
 * a run longer than a page is gathered whole — so the chunk folds on its own and joins before
 * what is already shown (prependTranscript). The newest are asked for in a small first page
 * (UI_OPENING_EVENT_PAGE_LIMIT), older ones in full pages.
 */
export async function loadHistory(
  bastion: BastionApi,
  sessionId: string,
  cursor: string | undefined,
): Promise<HistoryChunk> {
  let limit = cursor === undefined ? UI_OPENING_EVENT_PAGE_LIMIT : EVENT_PAGE_MAX_LIMIT;
  const pages: AgentStreamEvent[][] = [];
  const texts = new Map<string, string>();
  const images = new Map<string, ImagePart[]>();
  const mcp = new Map<string, MessageMcp>();
  let next = cursor;
  do {
    const page = await bastion.sessions.events(sessionId, { limit, cursor: next });
    limit = EVENT_PAGE_MAX_LIMIT;
    pages.unshift(page.events);
    addPrompts({ texts, images, mcp }, page.messages);
    next = page.next ?? undefined;
  } while (next !== undefined && pages[0]?.[0]?.event.type !== 'run-started');
  return { transcript: applyEvents(emptyTranscript, pages.flat()), texts, images, mcp, next: next ?? null };
}

/** What a page shows of its prompts: each one's typed text, and its images and MCP parts when it has any. */
export type Prompts = Pick<HistoryChunk, 'texts' | 'images' | 'mcp'>;

function addPrompts(into: Prompts, messages: readonly Message[]): void {
  for (const message of messages) {
    into.texts.set(message.id, typedTextOf(message.parts));
    const carried = imagePartsOf(message.parts);
    if (carried.length > 0) into.images.set(message.id, carried);
    const fromMcp = messageMcpOf(message.parts);
    if (fromMcp !== undefined) into.mcp.set(message.id, fromMcp);
  }
}

/**
 * The prompt a live `run-started` (persisted as `eventId`) names, for a run this page did not
 * send (another tab, `bastion run`, the HTTP API) or that started while its stream was away: the
 * one-event page ending at that event carries it.
 */
export async function loadPrompt(bastion: BastionApi, sessionId: string, eventId: number): Promise<Prompts> {
  const page = await bastion.sessions.events(sessionId, { limit: 1, cursor: String(eventId + 1) });
  const prompts: Prompts = { texts: new Map(), images: new Map(), mcp: new Map() };
  addPrompts(prompts, page.messages);
  return prompts;
}

/** The newest page of the session the page opened on, requested before React's first render. */
let opening: { sessionId: string; history: Promise<HistoryChunk>; settled?: HistoryChunk } | undefined;

/** Starts loading a session's newest page now (boot.ts), for its ChatView to take. */
export function prefetchHistory(bastion: BastionApi, sessionId: string): void {
  const history = loadHistory(bastion, sessionId, undefined);
  const entry: NonNullable<typeof opening> = { sessionId, history };
  // a failure is reported by the ChatView that takes it, not as an unhandled rejection
  history.then(
    (chunk) => {
      entry.settled = chunk;
    },
    () => undefined,
  );
  opening = entry;
}

/** The prefetched newest page if it is this session's and already in, for a ChatView's first render. */
export function settledOpening(sessionId: string): HistoryChunk | undefined {
  return opening?.sessionId === sessionId ? opening.settled : undefined;
}

/** Settles when the prefetched page is in or failed (at once when none was asked for), or after `ms`. */
export function openingSettled(ms: number): Promise<void> {
  const history = opening?.history;
  if (!history) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = window.setTimeout(resolve, ms);
    const done = () => {
      window.clearTimeout(timer);
      resolve();
    };
    history.then(done, done);
  });
}

/** The prefetched newest page when it is this session's (taken once), else a new request. */
export function newestHistory(bastion: BastionApi, sessionId: string): Promise<HistoryChunk> {
  const prefetched = opening?.sessionId === sessionId ? opening.history : undefined;
  opening = undefined;
  return prefetched ?? loadHistory(bastion, sessionId, undefined);
}
