/**
 * A session's server-sent event stream. It subscribes first, then replays persisted events after
 * `Last-Event-ID` from the store, then follows live events — so nothing falls in a gap and nothing
 * is sent twice (ids at or below the cursor are skipped). Live events queue in memory up to a
 * bound; a subscriber that falls further behind reads the rest from the store instead, so a slow
 * client costs bounded memory. A comment line every SSE_HEARTBEAT_MS keeps the daemon's idle
 * socket timeout from cutting a quiet stream. Pull-based: nothing is produced faster than the
 * client reads, and queued events are written in one chunk. Deltas folded in the store after
 * their run (delta-fold.ts) go out cut to what this stream has not sent yet.
 */
import { SSE_HEARTBEAT_MS, SSE_MAX_QUEUED_EVENTS, SSE_REPLAY_PAGE, type AgentStreamEvent } from '@bastion/protocol';
import { SentDeltas } from '../storage/delta-fold.js';
import type { SessionStore } from '../storage/session-store.js';
import type { EventHub } from './event-hub.js';

/** Enough to fill a socket write without building huge strings. */
const MAX_CHUNK_CHARS = 64 * 1024;

export function formatSseEvent(entry: AgentStreamEvent): string {
  return `id: ${entry.id}\nevent: ${entry.event.type}\ndata: ${JSON.stringify(entry.event)}\n\n`;
}

export function createEventStream(options: {
  store: SessionStore;
  hub: EventHub;
  sessionId: string;
  lastEventId: number;
  /** The page that opened it, if it said (EventHub.shownBesides). */
  viewer?: string;
}): ReadableStream<Uint8Array> {
  const { store, hub, sessionId } = options;
  const encoder = new TextEncoder();
  let cursor = options.lastEventId;
  const sent = new SentDeltas(cursor > 0 ? store.runs.deltaBytesThrough(sessionId, cursor) : undefined);
  let replaying = true;
  let greeted = false;
  let heartbeatDue = false;
  let closed = false;
  let queue: AgentStreamEvent[] = [];
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const onEvent = (event: AgentStreamEvent) => {
    if (replaying) {
      // the replay reads the store up to its end, which includes this event
      queue = [];
    } else if (queue.length >= SSE_MAX_QUEUED_EVENTS) {
      queue = [];
      replaying = true;
    } else {
      queue.push(event);
    }
    notify();
  };
  const unsubscribe = hub.subscribe(sessionId, onEvent, options.viewer);
  const heartbeat = setInterval(() => {
    heartbeatDue = true;
    notify();
  }, SSE_HEARTBEAT_MS);
  const cleanup = () => {
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    notify();
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (closed) return;
        let out = greeted ? '' : ': bastion agent stream\n\n';
        greeted = true;
        if (replaying) {
          const page = store.runs.eventsAfter(sessionId, cursor, SSE_REPLAY_PAGE);
          for (const entry of page) {
            const rest = sent.take(entry);
            if (rest) out += formatSseEvent(rest);
            cursor = entry.id;
          }
          if (page.length < SSE_REPLAY_PAGE) replaying = false;
        } else {
          while (queue.length > 0 && out.length < MAX_CHUNK_CHARS) {
            const entry = queue.shift() as AgentStreamEvent;
            if (entry.id <= cursor) continue;
            const rest = sent.take(entry);
            if (rest) out += formatSseEvent(rest);
            cursor = entry.id;
          }
        }
        if (heartbeatDue) {
          out += ': keep-alive\n\n';
          heartbeatDue = false;
        }
        if (out.length > 0) {
          controller.enqueue(encoder.encode(out));
          return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    cancel() {
      cleanup();
    },
  });
}
