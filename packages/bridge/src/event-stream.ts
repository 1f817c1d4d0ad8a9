/**
 * SEC-004: reads the agent's server-sent event stream from a fetch body (EventSource cannot send
 * Authorization). The stream comes from the sidecar, so the tab reads it as the host does
 * (host agent-event-reader.ts): eventsource-parser with a buffer bound (DAEMON_EVENT_MAX_CHARS),
 * so a message that never ends stops the stream with DAEMON_EVENT_TOO_LARGE instead of growing
 * the tab's memory; every message needs a persisted numeric id and JSON data naming its type,
 * else DAEMON_EVENT_INVALID ends the stream after the events before it. Comments (heartbeats)
 * are skipped.
 *
 * What it does not catch: an event whose fields lie about its type's shape (the full protocol
 * schema would put zod into the bridge script; the app renders events as text, never as markup).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { DAEMON_EVENT_MAX_CHARS, type AgentEvent, type AgentStreamEvent } from '@bastion/protocol';
import { BridgeError } from './bridge-error.js';

const EVENT_ID = /^\d{1,15}$/;

function parseMessage(message: EventSourceMessage): AgentStreamEvent | BridgeError {
  const invalid = new BridgeError('DAEMON_EVENT_INVALID', 'the agent sent an event the bridge cannot read');
  if (message.id === undefined || !EVENT_ID.test(message.id)) return invalid;
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    return invalid;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return invalid;
  const type = (data as { type?: unknown }).type;
  if (typeof type !== 'string' || (message.event !== undefined && message.event !== type)) return invalid;
  return { id: Number(message.id), event: data as AgentEvent };
}

export async function readAgentEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: AgentStreamEvent) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let failure: BridgeError | undefined;
  const parser = createParser({
    maxBufferSize: DAEMON_EVENT_MAX_CHARS,
    onEvent: (message) => {
      if (failure) return;
      const parsed = parseMessage(message);
      if (parsed instanceof BridgeError) failure = parsed;
      else onEvent(parsed);
    },
    onError: (error) => {
      failure ??=
        error.type === 'max-buffer-size-exceeded'
          ? new BridgeError('DAEMON_EVENT_TOO_LARGE', 'the agent sent an event over the size bound')
          : new BridgeError('DAEMON_EVENT_INVALID', 'the agent sent an event stream line the bridge cannot read');
    },
  });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw failure;
    }
  } finally {
    // A failed stream is cancelled, so the daemon stops sending and the body is not read on.
    if (failure) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
