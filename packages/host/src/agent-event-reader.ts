/**
 * SEC-004: the host's reader of the daemon's agent event stream (server-sent events), used by the
 * CLI. The stream comes from the sidecar, so it is read as hostile: eventsource-parser with a
 * buffer bound (DAEMON_EVENT_MAX_CHARS: a message that never ends cannot grow the host's memory),
 * every message's `id` a persisted event id and its `data` an agent event by the protocol schema.
 * The first violation ends the stream with a HostError (DAEMON_EVENT_TOO_LARGE / DAEMON_EVENT_INVALID).
 *
 * What it does not catch: a well-formed event that lies (the CLI shows it made inert, see
 * terminal-text.ts); a stream that stays open and quiet (the caller owns the connection).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { agentEventSchema, DAEMON_EVENT_MAX_CHARS, type AgentStreamEvent } from '@bastion/protocol';
import { HostError } from './errors.js';

const EVENT_ID = /^\d{1,15}$/;

function parseMessage(message: EventSourceMessage): AgentStreamEvent | HostError {
  if (message.id === undefined || !EVENT_ID.test(message.id)) {
    return new HostError('DAEMON_EVENT_INVALID', 'an agent event without a valid id');
  }
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch (cause) {
    return new HostError('DAEMON_EVENT_INVALID', 'an agent event that is not JSON', { cause });
  }
  const event = agentEventSchema.safeParse(data);
  if (!event.success || (message.event !== undefined && message.event !== event.data.type)) {
    return new HostError('DAEMON_EVENT_INVALID', 'an agent event that does not match the protocol');
  }
  return { id: Number(message.id), event: event.data };
}

/** The agent events of a daemon stream body (a node response), checked one by one, in order. */
export async function* readAgentEvents(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<AgentStreamEvent> {
  const ready: AgentStreamEvent[] = [];
  let failure: HostError | undefined;
  const parser = createParser({
    maxBufferSize: DAEMON_EVENT_MAX_CHARS,
    onEvent: (message) => {
      if (failure) return;
      const parsed = parseMessage(message);
      if (parsed instanceof HostError) failure = parsed;
      else ready.push(parsed);
    },
    onError: (error) => {
      failure ??=
        error.type === 'max-buffer-size-exceeded'
          ? new HostError('DAEMON_EVENT_TOO_LARGE', 'an agent event over the size bound')
          : new HostError('DAEMON_EVENT_INVALID', 'an event stream line the daemon does not write');
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    // Events completed before a violation in the same chunk are still delivered, in order.
    yield* ready.splice(0);
    if (failure) throw failure;
  }
}
