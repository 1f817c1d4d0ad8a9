/**
 * One run of the agent: the session's transcript and tools go to the AI SDK's `streamText`, and
 * each stream part becomes a persisted, published event. Model messages are persisted after every
 * step, so an interrupted run keeps every completed step in the transcript.
 */
import type { LanguageModelUsage, ModelMessage, ToolSet } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { AGENT_MAX_STEPS, type AgentEvent } from '@bastion/protocol';

export interface AgentLoopInput {
  model: LanguageModelV3;
  messages: ModelMessage[];
  tools: ToolSet;
  /** The system prompt for a step, given every message it will see (project instructions follow the files worked in). */
  systemPrompt: (messages: readonly ModelMessage[]) => string;
  signal: AbortSignal;
  /** Called with the new model messages after each step. */
  onMessages: (messages: ModelMessage[]) => void;
  /** Called with each finished step's token usage, as the provider reported it. */
  onStepUsage: (usage: LanguageModelUsage) => void;
  /** Called for each event, in order. */
  emit: (event: AgentEvent) => void;
  /** Called for each approval request before its event is emitted. */
  onApprovalRequest: (request: { approvalId: string; toolCallId: string; toolName: string; input: unknown }) => void;
  runId: string;
}

export type AgentLoopOutcome = Extract<AgentEvent, { type: 'run-finished' }>['finish_reason'];

function isRefusal(output: unknown): boolean {
  return typeof output === 'object' && output !== null && (output as { ok?: unknown }).ok === false;
}

export async function runAgentLoop(input: AgentLoopInput): Promise<AgentLoopOutcome> {
  const { runId, emit } = input;
  let persisted = 0;
  let approvalPending = false;
  // The AI SDK's loop is loaded by the first run, not at the sidecar's start-up.
  const { stepCountIs, streamText } = await import('ai');
  const result = streamText({
    model: input.model,
    system: input.systemPrompt(input.messages),
    messages: input.messages,
    prepareStep: ({ stepNumber, messages }) =>
      stepNumber === 0 ? undefined : { system: input.systemPrompt(messages) },
    tools: input.tools,
    stopWhen: stepCountIs(AGENT_MAX_STEPS),
    abortSignal: input.signal,
    maxRetries: 0,
    // Errors arrive as `error` parts below; the default handler would print them to stderr.
    onError: () => undefined,
    onStepFinish: (step) => {
      input.onStepUsage(step.usage);
      const fresh = step.response.messages.slice(persisted);
      persisted = step.response.messages.length;
      if (fresh.length > 0) input.onMessages(fresh);
    },
  });

  let finishReason: AgentLoopOutcome = 'other';
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'text-delta':
        if (part.text.length > 0) emit({ type: 'text-delta', run_id: runId, text: part.text });
        break;
      case 'reasoning-delta':
        if (part.text.length > 0) emit({ type: 'reasoning-delta', run_id: runId, text: part.text });
        break;
      case 'tool-call':
        emit({
          type: 'tool-call',
          run_id: runId,
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
          input: part.input,
        });
        break;
      case 'tool-result':
        emit({
          type: 'tool-result',
          run_id: runId,
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
          output: part.output,
          is_error: isRefusal(part.output),
        });
        break;
      case 'tool-error':
        emit({
          type: 'tool-result',
          run_id: runId,
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
          output: { ok: false, code: 'TOOL_FAILED', message: 'the tool failed' },
          is_error: true,
        });
        break;
      case 'tool-output-denied':
        emit({
          type: 'tool-result',
          run_id: runId,
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
          output: { ok: false, code: 'TOOL_DENIED', message: 'the tool call was denied' },
          is_error: true,
        });
        break;
      case 'tool-approval-request': {
        approvalPending = true;
        const request = {
          approvalId: part.approvalId,
          toolCallId: part.toolCall.toolCallId,
          toolName: part.toolCall.toolName,
          input: part.toolCall.input as unknown,
        };
        input.onApprovalRequest(request);
        emit({
          type: 'tool-approval-request',
          run_id: runId,
          approval_id: request.approvalId,
          tool_call_id: request.toolCallId,
          tool_name: request.toolName,
          input: request.input,
        });
        break;
      }
      case 'finish':
        finishReason = part.finishReason === 'error' ? 'other' : part.finishReason;
        break;
      case 'error':
        throw part.error;
      case 'abort':
        throw input.signal.reason ?? new Error('aborted');
      case 'start':
      case 'start-step':
      case 'finish-step':
      case 'text-start':
      case 'text-end':
      case 'reasoning-start':
      case 'reasoning-end':
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
      case 'source':
      case 'file':
      case 'raw':
        // not part of Bastion's event stream (tool input arrives whole in tool-call)
        break;
    }
  }
  return approvalPending ? 'approval-pending' : finishReason;
}
