/**
 * The chat view as a pure fold over the session's persisted event stream (plus the stored user
 * messages, which carry the text a run started from). Replaying the same events after a
 * reconnect gives the same view, so the app can always resume with Last-Event-ID.
 */
import type { AgentStreamEvent, Message } from '@bastion/bridge';

export interface ToolView {
  kind: 'tool';
  key: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  output?: unknown;
  isError?: boolean;
  approval?: { approvalId: string; state: 'pending' | 'answered' };
}

export type TranscriptItem =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; runId: string }
  | ToolView
  | { kind: 'error'; key: string; code: string; message: string }
  | { kind: 'notice'; key: string; text: string };

export interface Transcript {
  items: TranscriptItem[];
  lastEventId: number | undefined;
  running: boolean;
  /** The approval waiting for an answer, if any. */
  pending: ToolView | undefined;
}

export const emptyTranscript: Transcript = { items: [], lastEventId: undefined, running: false, pending: undefined };

export function userTexts(messages: readonly Message[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    texts.set(message.id, text);
  }
  return texts;
}

export function applyEvent(
  state: Transcript,
  streamed: AgentStreamEvent,
  texts: ReadonlyMap<string, string>,
): Transcript {
  if (state.lastEventId !== undefined && streamed.id <= state.lastEventId) return state;
  const event = streamed.event;
  const items = [...state.items];
  const key = `e${streamed.id}`;
  let running = state.running;
  const updateTool = (toolCallId: string, update: (tool: ToolView) => ToolView) => {
    const index = items.findLastIndex((item) => item.kind === 'tool' && item.toolCallId === toolCallId);
    if (index >= 0) items[index] = update(items[index] as ToolView);
    return index >= 0;
  };
  switch (event.type) {
    case 'run-started':
      running = true;
      if (event.message_id !== null) {
        items.push({ kind: 'user', key, text: texts.get(event.message_id) ?? '' });
      }
      // A new run means every earlier approval was answered.
      for (const [index, item] of items.entries()) {
        if (item.kind === 'tool' && item.approval?.state === 'pending') {
          items[index] = { ...item, approval: { ...item.approval, state: 'answered' } };
        }
      }
      break;
    case 'text-delta': {
      const last = items.at(-1);
      if (last?.kind === 'assistant' && last.runId === event.run_id) {
        items[items.length - 1] = { ...last, text: last.text + event.text };
      } else {
        items.push({ kind: 'assistant', key, text: event.text, runId: event.run_id });
      }
      break;
    }
    case 'tool-call':
      if (!updateTool(event.tool_call_id, (tool) => ({ ...tool, input: event.input }))) {
        items.push({
          kind: 'tool',
          key,
          toolCallId: event.tool_call_id,
          toolName: event.tool_name,
          input: event.input,
        });
      }
      break;
    case 'tool-approval-request': {
      const approval = { approvalId: event.approval_id, state: 'pending' as const };
      if (!updateTool(event.tool_call_id, (tool) => ({ ...tool, approval }))) {
        items.push({
          kind: 'tool',
          key,
          toolCallId: event.tool_call_id,
          toolName: event.tool_name,
          input: event.input,
          approval,
        });
      }
      break;
    }
    case 'tool-result':
      if (
        !updateTool(event.tool_call_id, (tool) => ({
          ...tool,
          output: event.output,
          isError: event.is_error,
          approval: tool.approval ? { ...tool.approval, state: 'answered' } : undefined,
        }))
      ) {
        items.push({
          kind: 'tool',
          key,
          toolCallId: event.tool_call_id,
          toolName: event.tool_name,
          input: undefined,
          output: event.output,
          isError: event.is_error,
        });
      }
      break;
    case 'run-finished':
      running = false;
      break;
    case 'run-error':
      running = false;
      items.push({ kind: 'error', key, code: event.code, message: event.message });
      break;
  }
  const pending = items.findLast(
    (item): item is ToolView => item.kind === 'tool' && item.approval?.state === 'pending',
  );
  return { items, lastEventId: streamed.id, running, pending };
}
