/**
 * The run events of a tool's stream parts: its call, and its result, error or denial, each
 * refusal and failure marked `is_error` with a fixed `{ ok: false, code, message }`. Calls an
 * explorer makes (explore-tool.ts) carry `parent`: the explore call's id, which prefixes theirs.
 */
import type { TextStreamPart, ToolSet } from 'ai';
import type { AgentEvent } from '@bastion/protocol';

export type ToolPart = Extract<
  TextStreamPart<ToolSet>,
  { type: 'tool-call' | 'tool-result' | 'tool-error' | 'tool-output-denied' }
>;

type ToolEvent = Extract<AgentEvent, { type: 'tool-call' | 'tool-result' }>;

export function isRefusal(output: unknown): boolean {
  return typeof output === 'object' && output !== null && (output as { ok?: unknown }).ok === false;
}

export function toolEvent(part: ToolPart, runId: string, parent?: string): ToolEvent {
  const call = {
    run_id: runId,
    tool_call_id: parent === undefined ? part.toolCallId : `${parent}/${part.toolCallId}`,
    tool_name: part.toolName,
    ...(parent === undefined ? {} : { parent_tool_call_id: parent }),
  };
  switch (part.type) {
    case 'tool-call':
      return { type: 'tool-call', ...call, input: part.input };
    case 'tool-result':
      return { type: 'tool-result', ...call, output: part.output, is_error: isRefusal(part.output) };
    case 'tool-error':
      return {
        type: 'tool-result',
        ...call,
        output: { ok: false, code: 'TOOL_FAILED', message: 'the tool failed' },
        is_error: true,
      };
    case 'tool-output-denied':
      return {
        type: 'tool-result',
        ...call,
        output: { ok: false, code: 'TOOL_DENIED', message: 'the tool call was denied' },
        is_error: true,
      };
  }
}
