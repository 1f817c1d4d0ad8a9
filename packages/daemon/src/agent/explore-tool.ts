/**
 * `explore`: the agent hands a read-only question to an explorer, a second agent loop on the same
 * model, transport and retries, with a fresh context of its own and only the run's read tools
 * (read_file, list_dir, search, find_files). Its answer is the tool's result, so a broad search
 * costs the agent's context one answer instead of every file read on the way.
 *
 * Each of the explorer's calls goes through the same policy hook as the agent's (guardTools), with
 * its id prefixed by the explore call's, and is shown as the explore call's child (an event's
 * `parent_tool_call_id`); nothing of it enters the session's transcript. It can ask nobody: a rule
 * that says `ask` refuses its call (POLICY_UNAPPROVED), and the agent can make that call itself.
 * Tool results it sees are cut to a share of the window, and once its context nears
 * EXPLORE_ANSWER_AT_FRACTION of the window, or its steps run out, its last step must answer
 * without tools. Explorers of one run work EXPLORE_MAX_CONCURRENT at a time, the others waiting
 * their turn. A failed model call answers EXPLORE_FAILED and the agent goes on; a secret-egress
 * block or a storage failure ends the whole run, as it would the agent's own step.
 */
import type { LanguageModelUsage, ModelMessage, Tool, ToolSet } from 'ai';
import type { LanguageModelV3, SharedV3ProviderOptions } from '@ai-sdk/provider';
import {
  CONTEXT_CHARS_PER_TOKEN,
  EXPLORE_ANSWER_AT_FRACTION,
  EXPLORE_ANSWER_MAX_CHARS,
  EXPLORE_MAX_CONCURRENT,
  EXPLORE_MAX_STEPS,
  EXPLORE_TOOL_OUTPUT_WINDOW_FRACTION,
  exploreInputSchema,
  TOOL_MODEL_OUTPUT_MAX_CHARS,
  type AgentEvent,
  type ExploreOutput,
} from '@bastion/protocol';
import type { DaemonError } from '../errors.js';
import { isStorageFailure } from '../storage/storage-error.js';
import { tool } from '../tools/tool.js';
import type { ToolRefusal } from '../tools/tool-context.js';
import { estimateTokens, messageChars } from './context-compaction.js';
import { providerErrorDetails } from './provider-retry.js';
import { daemonErrorIn } from './run-error.js';
import { boundedToolCallModel, refusingTools } from './tool-call-bounds.js';
import { ownToolCallIds } from './tool-call-ids.js';
import { toolEvent } from './tool-events.js';
import { truncateToolResults } from './tool-output-truncation.js';

/** The run's tools an explorer is given: those that only read. */
export const EXPLORER_TOOL_NAMES = ['read_file', 'list_dir', 'search', 'find_files'] as const;

const ANSWER_NOW = 'Stop exploring now: answer with what you have found so far, and say what you could not check.';

export interface ExploreOptions {
  model: LanguageModelV3;
  providerOptions: SharedV3ProviderOptions | undefined;
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** The explorer's tools, each already wrapped with the policy hook, asking nobody (`asksNobody`). */
  tools: ToolSet;
  systemPrompt: string;
  runId: string;
  emit: (event: AgentEvent) => void;
  /** Each of the explorer's model calls' token usage (counted with the run's, not its context). */
  onUsage: (usage: LanguageModelUsage) => void;
  /** Ends the whole run with `error` (a secret-egress block, a storage failure). */
  endRun: (error: DaemonError) => void;
}

/**
 * The explorer's own copy of each tool: its calls' ids prefixed with the explore call's (so the
 * policy hook and the audit log see them apart from the agent's), and no approval step.
 */
function explorerTools(tools: ToolSet, parent: string): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, original]): [string, Tool] => {
      const execute = original.execute;
      return [
        name,
        {
          ...original,
          needsApproval: false,
          ...(execute === undefined
            ? {}
            : {
                execute: (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]): unknown =>
                  execute(input, { ...options, toolCallId: `${parent}/${options.toolCallId}` }),
              }),
        },
      ];
    }),
  );
}

function failed(error: unknown): ToolRefusal {
  const own = daemonErrorIn(error);
  const status = providerErrorDetails(error)?.status;
  const why = own !== undefined ? ` (${own.code})` : status !== undefined ? ` (HTTP ${status})` : '';
  return { ok: false, code: 'EXPLORE_FAILED', message: `the explorer's model call failed${why}` };
}

async function explore(
  task: string,
  parent: string,
  signal: AbortSignal | undefined,
  options: ExploreOptions,
): Promise<ExploreOutput | ToolRefusal> {
  // Loaded by the first run, like the agent loop's.
  const { asSchema, jsonSchema, stepCountIs, streamText } = await import('ai');
  const { contextWindow: window } = options;
  const toolOutputMax = Math.min(
    TOOL_MODEL_OUTPUT_MAX_CHARS,
    Math.floor(window * EXPLORE_TOOL_OUTPUT_WINDOW_FRACTION * CONTEXT_CHARS_PER_TOKEN),
  );
  let ended: ExploreOutput['ended'] = 'answered';
  let steps = 0;
  let toolCalls = 0;
  let answer = '';
  const result = streamText({
    model: boundedToolCallModel(ownToolCallIds(options.model)),
    ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
    system: options.systemPrompt,
    messages: [{ role: 'user', content: task }],
    tools: refusingTools(explorerTools(options.tools, parent), { asSchema, jsonSchema }),
    stopWhen: stepCountIs(EXPLORE_MAX_STEPS),
    prepareStep: ({ stepNumber, messages }) => {
      const visible: ModelMessage[] = truncateToolResults(messages, toolOutputMax);
      const chars = visible.reduce((sum, message) => sum + messageChars(message), options.systemPrompt.length);
      const last = stepNumber >= EXPLORE_MAX_STEPS - 1 || estimateTokens(chars) >= EXPLORE_ANSWER_AT_FRACTION * window;
      if (!last) return { messages: visible };
      ended = 'budget';
      return { messages: [...visible, { role: 'user', content: ANSWER_NOW }], toolChoice: 'none' };
    },
    abortSignal: signal,
    maxRetries: 0,
    // Errors arrive as `error` parts below; the default handler would print them to stderr.
    onError: () => undefined,
    onStepFinish: (step) => options.onUsage(step.usage),
  });
  try {
    for await (const part of result.fullStream) {
      switch (part.type) {
        case 'start-step':
          steps += 1;
          answer = '';
          break;
        case 'text-delta':
          answer += part.text;
          break;
        case 'tool-call':
          toolCalls += 1;
          options.emit(toolEvent(part, options.runId, parent));
          break;
        case 'tool-result':
        case 'tool-error':
        case 'tool-output-denied':
          options.emit(toolEvent(part, options.runId, parent));
          break;
        case 'error':
          throw part.error;
        case 'abort':
          throw signal?.reason ?? new Error('aborted');
        case 'start':
        case 'finish-step':
        case 'finish':
        case 'text-start':
        case 'text-end':
        case 'reasoning-start':
        case 'reasoning-delta':
        case 'reasoning-end':
        case 'tool-input-start':
        case 'tool-input-delta':
        case 'tool-input-end':
        case 'tool-approval-request':
        case 'source':
        case 'file':
        case 'raw':
          // reasoning and stream bookkeeping: not part of the explorer's record (it asks for no approval)
          break;
      }
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    const own = daemonErrorIn(error);
    if (own !== undefined && (own.code === 'EGRESS_SECRET' || isStorageFailure(own))) {
      options.endRun(own);
      throw own;
    }
    return failed(error);
  }
  const text = answer.trim();
  if (text === '') return { ok: false, code: 'EXPLORE_NO_ANSWER', message: 'the explorer ended without an answer' };
  const truncated = text.length > EXPLORE_ANSWER_MAX_CHARS;
  return {
    answer: truncated ? text.slice(0, EXPLORE_ANSWER_MAX_CHARS) : text,
    truncated,
    steps,
    tool_calls: toolCalls,
    ended,
  };
}

/** Turns to work, at most `count` at once; a waiter whose signal aborts leaves the queue. */
class Turns {
  #free: number;
  readonly #queue: (() => void)[] = [];

  constructor(count: number) {
    this.#free = count;
  }

  async take(signal: AbortSignal | undefined): Promise<() => void> {
    if (this.#free > 0) this.#free -= 1;
    else {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          this.#queue.splice(this.#queue.indexOf(go), 1);
          reject(signal?.reason as Error);
        };
        this.#queue.push(go);
        signal?.addEventListener('abort', stop, { once: true });
      });
    }
    return () => {
      const next = this.#queue.shift();
      if (next) next();
      else this.#free += 1;
    };
  }
}

/** The `explore` tool of one run: its explorers work EXPLORE_MAX_CONCURRENT at a time. */
export function createExploreTool(options: ExploreOptions): ToolSet {
  const turns = new Turns(EXPLORE_MAX_CONCURRENT);
  return {
    explore: tool({
      description:
        'Hand a read-only question about the project to an explorer: a helper with a fresh context of its own that searches, lists and reads files (it changes nothing and runs no commands) and answers with its findings. Use it for broad questions that would take many searches or reads (where is X handled, how does Y run through the code, which files use Z), so that your own context keeps room for the work; read a file you already know yourself. The explorer sees none of this conversation: say exactly what to find and what to report. Several explore calls in one step run at once.',
      inputSchema: exploreInputSchema,
      execute: async ({ task }, { toolCallId, abortSignal }) => {
        const done = await turns.take(abortSignal);
        try {
          return await explore(task, toolCallId, abortSignal, options);
        } finally {
          done();
        }
      },
    }),
  };
}
