/**
 * In-process fan-out of persisted run events to the open streams of a session. Each stream may
 * name the page that opened it (its `viewer`), so a page can ask whether any other shows the
 * session (untouched-sessions.ts).
 */
import type { AgentStreamEvent } from '@bastion/protocol';

export type EventListener = (event: AgentStreamEvent) => void;

export class EventHub {
  /** Each session's open streams, with the page each named (undefined: none named). */
  readonly #listeners = new Map<string, Map<EventListener, string | undefined>>();
  readonly #closedListeners: ((sessionId: string, viewer: string | undefined) => void)[] = [];

  subscribe(sessionId: string, listener: EventListener, viewer?: string): () => void {
    let streams = this.#listeners.get(sessionId);
    if (!streams) {
      streams = new Map();
      this.#listeners.set(sessionId, streams);
    }
    streams.set(listener, viewer);
    return () => {
      if (!streams.delete(listener)) return;
      if (streams.size === 0) this.#listeners.delete(sessionId);
      for (const closed of this.#closedListeners) closed(sessionId, viewer);
    };
  }

  /** Calls `closed` with the session and the page (if named) each time a stream of it closes. */
  onStreamClosed(closed: (sessionId: string, viewer: string | undefined) => void): void {
    this.#closedListeners.push(closed);
  }

  subscriberCount(sessionId: string): number {
    return this.#listeners.get(sessionId)?.size ?? 0;
  }

  /** Whether a stream of the session is open that `viewer` did not open (any, without one). */
  shownBesides(sessionId: string, viewer: string | undefined): boolean {
    for (const opener of this.#listeners.get(sessionId)?.values() ?? []) {
      if (viewer === undefined || opener !== viewer) return true;
    }
    return false;
  }

  /** Call only after the event is persisted, so a listener never sees an id the store lacks. */
  publish(sessionId: string, event: AgentStreamEvent): void {
    for (const listener of this.#listeners.get(sessionId)?.keys() ?? []) listener(event);
  }
}
