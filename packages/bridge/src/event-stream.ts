/**
 * Reads the agent's server-sent event stream from a fetch body (EventSource cannot send
 * Authorization), with the protocol's shared SSE parser. Each `data:` payload is the JSON of one
 * agent event and `id:` its persisted id; anything else (heartbeats) is skipped.
 */
import { SseParser, type AgentEvent, type AgentStreamEvent } from '@bastion/protocol';

export async function readAgentEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: AgentStreamEvent) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const message of parser.push(decoder.decode(value, { stream: true }))) {
      if (message.id === undefined || !/^\d+$/.test(message.id) || message.data === '') continue;
      onEvent({ id: Number(message.id), event: JSON.parse(message.data) as AgentEvent });
    }
  }
}
