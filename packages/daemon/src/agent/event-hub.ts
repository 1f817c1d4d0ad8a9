/** In-process fan-out of persisted run events to the open streams of a session. */
import type { AgentStreamEvent } from '@bastion/protocol';

export type EventListener = (event: AgentStreamEvent) => void;

export class EventHub {
  readonly #listeners = new Map<string, Set<EventListener>>();

  subscribe(sessionId: string, listener: EventListener): () => void {
    let set = this.#listeners.get(sessionId);
    if (!set) {
      set = new Set();
      this.#listeners.set(sessionId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(sessionId);
    };
  }

  subscriberCount(sessionId: string): number {
    return this.#listeners.get(sessionId)?.size ?? 0;
  }

  /** Call only after the event is persisted, so a listener never sees an id the store lacks. */
  publish(sessionId: string, event: AgentStreamEvent): void {
    for (const listener of this.#listeners.get(sessionId) ?? []) listener(event);
  }
}
