/**
 * One run of the agent: the session's recent transcript and tools go to the AI SDK's `streamText`,
 * and each stream part becomes a persisted, published event. Model messages are persisted after
 * every step, so an interrupted run keeps every completed step in the transcript. Before each step
 * the context is prepared (context-compaction.ts): older turns summarised when the window nears,
 * long tool outputs cut in what the model sees.
 */
import type { LanguageModelUsage, ModelMessage, ToolSet } from 'ai';
import type { LanguageModelV3, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { AGENT_MAX_STEPS, type AgentEvent } from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import { toolEvent } from './tool-events.js';
import type { PendingCall } from '../policy/tool-guard.js';
import { ModelContext, SUMMARY_SYSTEM_PROMPT, type Compaction, type SummaryRequest } from './context-compaction.js';
import { boundedToolCallModel, refusingTools } from './tool-call-bounds.js';
import { ownToolCallIds } from './tool-call-ids.js';

export interface AgentLoopInput {
  model: LanguageModelV3;
  /** Sent with every step (the session's reasoning effort, model-catalog.ts `reasoningOptions`). */
  providerOptions: SharedV3ProviderOptions | undefined;
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** The run only summarises the older turns (`/compact`): no step is sent. */
  compactOnly: boolean;
  /** What the run starts from: the stored summary (if any) and the messages after it. */
  context: {
    summary: string | undefined;
    messages: ModelMessage[];
    /** For each message, the id of its last stored row. */
    ids: string[];
    /** Older messages exist that neither the summary nor `messages` covers. */
    cut: boolean;
  };
  tools: ToolSet;
  /** The system prompt for a step, given every message it will see (project instructions follow the files worked in). */
  systemPrompt: (messages: readonly ModelMessage[]) => string;
  signal: AbortSignal;
  /** Called with the new model messages after each step; answers their stored ids. */
  onMessages: (messages: ModelMessage[]) => string[];
  /** Called with each model call's token usage, as the provider reported it (`summary`: a compaction's call). */
  onUsage: (usage: LanguageModelUsage, call: 'step' | 'summary') => void;
  /** Called with each compaction before the step that uses it. */
  onCompacted: (compaction: Compaction) => void;
  /** Called for each event, in order. */
  emit: (event: AgentEvent) => void;
  /** Called for each approval request before its event is emitted. */
  onApprovalRequest: (request: { approvalId: string; toolCallId: string; toolName: string; input: unknown }) => void;
  /** Called for each approval request before its event is emitted, once it is recorded (a file tool's preview). */
  onApprovalPending?: (call: PendingCall) => Promise<void>;
  runId: string;
}

export type AgentLoopOutcome = Extract<AgentEvent, { type: 'run-finished' }>['finish_reason'];

export async function runAgentLoop(input: AgentLoopInput): Promise<AgentLoopOutcome> {
  const { runId, emit } = input;
  let persisted = 0;
  let approvalPending = false;
  // The AI SDK's loop is loaded by the first run, not at the sidecar's start-up.
  const { asSchema, jsonSchema, stepCountIs, streamText } = await import('ai');
  const summarize = async (request: SummaryRequest): Promise<string> => {
    try {
      const summary = streamText({
        model: input.model,
        system: SUMMARY_SYSTEM_PROMPT,
        prompt: request.prompt,
        maxOutputTokens: request.maxOutputTokens,
        abortSignal: input.signal,
        maxRetries: 0,
        onError: () => undefined,
      });
      let text = '';
      for await (const part of summary.fullStream) {
        if (part.type === 'text-delta') text += part.text;
        else if (part.type === 'error') throw part.error;
        else if (part.type === 'abort') throw input.signal.reason ?? new Error('aborted');
        else if (part.type === 'finish') input.onUsage(part.totalUsage, 'summary');
      }
      return text;
    } catch (error) {
      if (input.signal.aborted) throw error;
      throw new DaemonError('CONTEXT_COMPACTION_FAILED', 'the older turns could not be summarised', { cause: error });
    }
  };
  const context = new ModelContext({
    window: input.contextWindow,
    summary: input.context.summary,
    ids: input.context.ids,
    cut: input.context.cut,
    summarize,
    onCompacted: (compaction) => {
      input.onCompacted(compaction);
      emit({ type: 'context-compacted', run_id: runId, messages_summarized: compaction.messagesSummarized });
    },
  });
  if (input.compactOnly) {
    await context.compactNow(input.context.messages);
    return 'stop';
  }
  const result = streamText({
    // A step's tool calls get Bastion's own ids (tool-call-ids.ts) and are bounded (tool-call-bounds.ts)
    // before they are parsed, run or stored.
    model: boundedToolCallModel(ownToolCallIds(input.model)),
    ...(input.providerOptions === undefined ? {} : { providerOptions: input.providerOptions }),
    messages: input.context.messages,
    prepareStep: async ({ messages }) => {
      const system = input.systemPrompt(messages);
      return { system, messages: await context.prepare(system, messages) };
    },
    tools: refusingTools(input.tools, { asSchema, jsonSchema }),
    stopWhen: stepCountIs(AGENT_MAX_STEPS),
    abortSignal: input.signal,
    maxRetries: 0,
    // Errors arrive as `error` parts below; the default handler would print them to stderr.
    onError: () => undefined,
    onStepFinish: (step) => {
      input.onUsage(step.usage, 'step');
      context.measured((step.usage.inputTokens ?? 0) + (step.usage.outputTokens ?? 0));
      const fresh = step.response.messages.slice(persisted);
      persisted = step.response.messages.length;
      if (fresh.length > 0) context.persisted(input.onMessages(fresh));
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
      case 'tool-result':
      case 'tool-error':
      case 'tool-output-denied':
        emit(toolEvent(part, runId));
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
        await input.onApprovalPending?.(request);
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
