/**
 * The chat view as a fold over the session's persisted event stream. User bubbles carry only the
 * stored message id; their text is looked up when they render, so texts that arrive after the
 * events (a long session pages its messages in) fill in without folding again.
 *
 * The fold is incremental: `applyEvents` takes a batch of new events and returns a new
 * transcript that shares every untouched item with the old one (one array copy per batch, index
 * maps instead of scans), so a run of a million deltas costs a million small steps, not a
 * million re-folds. Replaying events after a reconnect (ids at or below `lastEventId`) is a no-op.
 *
 * The tool calls an explorer makes (events with a `parent_tool_call_id`) fold into the card of the
 * `explore` call they work for, so they are never cards, approvals or changed files of the run.
 */
import type { AgentStreamEvent, RunContext, TokenUsage } from '@bastion/bridge';

export interface ToolView {
  kind: 'tool';
  key: string;
  runId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  output?: unknown;
  isError?: boolean;
  /**
   * `pending`: waits for an answer. `allowed` or `denied`: answered while other approvals of its
   * step still wait, so the run that carries out the answers has not started. `answered`: that run
   * started (or the step's run ended otherwise).
   */
  approval?: { approvalId: string; state: 'pending' | 'allowed' | 'denied' | 'answered' };
  /** A file tool's diff against the file as it was when the call waited for an answer (its tool-preview event). */
  previewDiff?: string;
  /** What a running command has printed so far, in order; its result replaces it. */
  live?: readonly { stream: 'stdout' | 'stderr'; text: string }[];
  /**
   * The calls an explorer made for this `explore` call, in the order they started: its events'
   * `parent_tool_call_id` is this call's id. They are part of this card, never items of their own.
   */
  subCalls?: readonly ToolView[];
}

/** A file a run wrote or edited, pointing at the tool card that did it. */
export interface ChangedFile {
  path: string;
  toolKey: string;
}

export type RunOutcome = 'finished' | 'stopped' | 'failed' | 'waiting';

/** A prompt: `eventId` is the persisted `run-started` naming it, where a page not holding its text reads it (loadPrompt). */
interface UserItem {
  kind: 'user';
  key: string;
  messageId: string;
  runId: string;
  eventId: number;
}

/** A failed model request the run waits to send again. */
interface RetryItem {
  kind: 'retry';
  key: string;
  runId: string;
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  status?: number;
  message: string;
  /** What came of the wait, once its run's next event said (applyEvents): unset while it waits. */
  settled?: 'retried' | 'ended';
}

export type TranscriptItem = (
  | UserItem
  | { kind: 'assistant'; key: string; text: string; runId: string }
  | { kind: 'reasoning'; key: string; text: string; runId: string }
  | ToolView
  | {
      kind: 'error';
      key: string;
      runId: string;
      code: string;
      message: string;
      status?: number;
      retryAfterMs?: number;
    }
  | RetryItem
  | { kind: 'compacted'; key: string; count: number }
  | { kind: 'instructions'; key: string; paths: string[] }
  | {
      kind: 'run-end';
      key: string;
      runId: string;
      outcome: RunOutcome;
      files: ChangedFile[];
      usage?: TokenUsage;
      /** The run's file changes were undone (a run-undone event came later). */
      undone?: boolean;
    }
  | {
      kind: 'undone';
      key: string;
      runId: string;
      restored: string[];
      removed: string[];
      notUndone: string[];
      commands: number;
    }
  | {
      kind: 'rewound';
      key: string;
      /** The run whose prompt the session went back to before. */
      runId: string;
      turns: number;
      /** The files were put back (`restored`, `removed`; `notUndone` had no earlier copy). */
      files: boolean;
      restored: string[];
      removed: string[];
      notUndone: string[];
      commands: number;
    }
) & {
  /** A rewind took this item's turn out of the conversation: shown for the record only. */
  rewound?: true;
};

export interface ActiveRun {
  runId: string;
  provider: string;
  model: string;
  /** When this page saw the run start (for the elapsed-time indicator). */
  seenAt: number;
  /** When this page last saw an event of the run: how long its model or tool has been silent. */
  heardAt: number;
  /** The run's own tool calls started and not yet answered: while one runs, the model is not awaited. */
  toolsRunning: number;
}

export interface Transcript {
  items: readonly TranscriptItem[];
  lastEventId: number | undefined;
  /** The run in progress, if any. */
  active: ActiveRun | undefined;
  /**
   * The approvals waiting for an answer, in the order they were asked: more than one when the model
   * asked for several calls needing one in the same step. Each leaves as it is answered.
   */
  pending: readonly ToolView[];
  /** Tokens and cost summed over the runs this transcript has seen finish. */
  totals: TokenUsage;
  /**
   * How full the model's context window was after the latest finished run that measured it; null
   * once a compaction came after it, undefined while this stretch of the log says nothing of it.
   */
  context: RunContext | null | undefined;
  /** Internal indexes: tool call id → item index, and the current run's changed files. */
  readonly toolIndex: ReadonlyMap<string, number>;
  readonly runFiles: ReadonlyMap<string, ChangedFile[]>;
  /** Internal: the tool call ids of the waiting step's approvals, answered or not, in the order asked. */
  readonly step: readonly string[];
  /**
   * Rewinds to before a prompt this stretch of the log does not hold (an older page does): the
   * runs whose prompts start them, with whether the files were put back, oldest first.
   */
  readonly rewindsBefore: readonly Rewind[];
}

/** A rewind the fold applies to the items from a prompt on. */
interface Rewind {
  runId: string;
  files: boolean;
}

const zeroUsage: TokenUsage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };

export const emptyTranscript: Transcript = {
  items: [],
  lastEventId: undefined,
  active: undefined,
  pending: [],
  totals: zeroUsage,
  context: undefined,
  toolIndex: new Map(),
  runFiles: new Map(),
  step: [],
  rewindsBefore: [],
};

const WRITE_TOOLS = new Set(['write_file', 'edit_file']);

function pathOf(input: unknown): string | undefined {
  const path = typeof input === 'object' && input !== null ? (input as { path?: unknown }).path : undefined;
  return typeof path === 'string' ? path : undefined;
}

function addUsage(total: TokenUsage, run: TokenUsage): TokenUsage {
  const cost =
    total.cost_usd === undefined && run.cost_usd === undefined
      ? undefined
      : (total.cost_usd ?? 0) + (run.cost_usd ?? 0);
  return {
    input_tokens: total.input_tokens + run.input_tokens,
    output_tokens: total.output_tokens + run.output_tokens,
    cached_input_tokens: total.cached_input_tokens + run.cached_input_tokens,
    ...(cost === undefined ? {} : { cost_usd: cost }),
  };
}

/** Where the prompt of `runId` is among `items`, or -1. */
const promptIndex = (items: readonly TranscriptItem[], runId: string): number =>
  items.findIndex((item) => item.kind === 'user' && item.runId === runId);

/**
 * Mark `items` from `from` up to `to` as rewound (their run-ends with files as undone too, when
 * the rewind put the files back).
 */
function markRewound(items: TranscriptItem[], rewind: Rewind, from: number, to: number): void {
  for (let index = from; index < to; index += 1) {
    const item = items[index] as TranscriptItem;
    if (item.rewound) continue;
    const undone = rewind.files && item.kind === 'run-end' && item.files.length > 0;
    items[index] = { ...item, rewound: true, ...(undone ? { undone: true } : {}) };
  }
}

/** A call whose approval's answer was carried out (or whose run ended): no longer waiting on it. */
const answered = (tool: ToolView): ToolView =>
  tool.approval ? { ...tool, approval: { ...tool.approval, state: 'answered' } } : tool;

/** The approvals of `step` still waiting for an answer, as `items` has them. */
function pendingOf(
  items: readonly TranscriptItem[],
  toolIndex: ReadonlyMap<string, number>,
  step: readonly string[],
): ToolView[] {
  return step.flatMap((toolCallId) => {
    const item = items[toolIndex.get(toolCallId) ?? -1];
    return item?.kind === 'tool' && item.approval?.state === 'pending' ? [item] : [];
  });
}

/** The card of a call known so far by its event (a result may arrive without its call). */
const newTool = (call: { run_id: string; tool_call_id: string; tool_name: string }, key: string): ToolView => ({
  kind: 'tool',
  key,
  runId: call.run_id,
  toolCallId: call.tool_call_id,
  toolName: call.tool_name,
  input: undefined,
});

/** The instruction files named since the latest prompt among `items`. */
function instructionsSinceLastPrompt(items: readonly TranscriptItem[]): Set<string> {
  const shown = new Set<string>();
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index] as TranscriptItem;
    if (item.kind === 'user') break;
    if (item.kind === 'instructions') for (const path of item.paths) shown.add(path);
  }
  return shown;
}

/** Apply a batch of streamed events (in id order) to a transcript. */
export function applyEvents(state: Transcript, batch: readonly AgentStreamEvent[], now = Date.now()): Transcript {
  const fresh = batch.filter((streamed) => state.lastEventId === undefined || streamed.id > state.lastEventId);
  if (fresh.length === 0) return state;
  const items = [...state.items];
  const toolIndex = new Map(state.toolIndex);
  const runFiles = new Map(state.runFiles);
  let { active, totals, context, step } = state;
  const rewindsBefore = [...state.rewindsBefore];

  const updateTool = (toolCallId: string, update: (tool: ToolView) => ToolView): boolean => {
    const index = toolIndex.get(toolCallId);
    if (index === undefined) return false;
    items[index] = update(items[index] as ToolView);
    return true;
  };
  /** Merge `changes` into the call's card, or add the card (a result may arrive without its call). */
  const mergeTool = (
    call: { run_id: string; tool_call_id: string; tool_name: string },
    key: string,
    changes: (tool: ToolView | undefined) => Partial<ToolView>,
  ): ToolView => {
    const index = toolIndex.get(call.tool_call_id);
    const existing = index === undefined ? undefined : (items[index] as ToolView);
    const base = existing ?? newTool(call, key);
    const merged = { ...base, ...changes(existing) };
    if (index === undefined) toolIndex.set(call.tool_call_id, items.length);
    items[index ?? items.length] = merged;
    return merged;
  };
  /**
   * Merge `changes` into an explorer's call, kept in its `explore` card: the card is added first
   * when the call comes before it (a page of the log that starts at the run an approval answer
   * started, the `explore` call itself in the run before).
   */
  const mergeSubCall = (
    call: { run_id: string; tool_call_id: string; tool_name: string },
    parentId: string,
    key: string,
    changes: Partial<ToolView>,
  ): void => {
    mergeTool({ run_id: call.run_id, tool_call_id: parentId, tool_name: 'explore' }, key, (parent) => {
      const subCalls = parent?.subCalls ?? [];
      const at = subCalls.findIndex((sub) => sub.toolCallId === call.tool_call_id);
      const base = subCalls[at] ?? newTool(call, key);
      const merged = { ...base, ...changes };
      return { subCalls: at < 0 ? [...subCalls, merged] : subCalls.map((sub, index) => (index === at ? merged : sub)) };
    });
  };
  /** The step's approvals (those of `runId`, when given) are done with: their answers were carried out, or the run ended. */
  const settleStep = (runId?: string) => {
    step = step.filter((toolCallId) => {
      const index = toolIndex.get(toolCallId);
      const tool = index === undefined ? undefined : (items[index] as ToolView);
      if (runId !== undefined && tool !== undefined && tool.runId !== runId) return true;
      if (index !== undefined && tool !== undefined) items[index] = answered(tool);
      return false;
    });
  };
  const endRun = (runId: string, outcome: RunOutcome, usage?: TokenUsage) => {
    const files = runFiles.get(runId) ?? [];
    runFiles.delete(runId);
    // A run that used no tokens (the demo model) shows no "0 in · 0 out" line.
    const counted =
      usage && (usage.input_tokens > 0 || usage.output_tokens > 0 || usage.cost_usd !== undefined) ? usage : undefined;
    if (counted) totals = addUsage(totals, counted);
    // A run stopped while it waited for an approval ends a second time: its one row says so now.
    const earlier = items.findLastIndex((item) => item.kind === 'run-end' && item.runId === runId);
    const waited = items[earlier];
    if (waited?.kind === 'run-end') {
      items[earlier] = {
        ...waited,
        outcome,
        files: [...waited.files, ...files],
        ...(counted ? { usage: counted } : {}),
      };
    } else {
      items.push({
        kind: 'run-end',
        key: `end-${runId}`,
        runId,
        outcome,
        files,
        ...(counted ? { usage: counted } : {}),
      });
    }
    if (active?.runId === runId) active = undefined;
    if (outcome !== 'waiting') settleStep(runId);
  };

  for (const streamed of fresh) {
    const event = streamed.event;
    const key = `e${streamed.id}`;
    // A retry notice waits as the last row until its run's next event: the next attempt was made
    // (output, a further retry, its own failure), or the run ended without it (Stop, a restart).
    const waiting = items.at(-1);
    if (
      waiting?.kind === 'retry' &&
      waiting.settled === undefined &&
      'run_id' in event &&
      event.run_id === waiting.runId
    ) {
      const ended =
        event.type === 'run-finished' ||
        (event.type === 'run-error' && (event.code === 'RUN_ABORTED' || event.code === 'RUN_INTERRUPTED'));
      items[items.length - 1] = { ...waiting, settled: ended ? 'ended' : 'retried' };
    }
    if (active !== undefined && 'run_id' in event && event.run_id === active.runId) {
      const topLevel = !('parent_tool_call_id' in event) || event.parent_tool_call_id === undefined;
      const started = event.type === 'tool-call' && topLevel ? 1 : 0;
      const answered = event.type === 'tool-result' && topLevel ? 1 : 0;
      active = { ...active, heardAt: now, toolsRunning: Math.max(0, active.toolsRunning + started - answered) };
    }
    switch (event.type) {
      case 'run-started':
        active = {
          runId: event.run_id,
          provider: event.provider,
          model: event.model,
          seenAt: now,
          heardAt: now,
          toolsRunning: 0,
        };
        if (event.message_id !== null) {
          items.push({ kind: 'user', key, messageId: event.message_id, runId: event.run_id, eventId: streamed.id });
        }
        // A new run means every earlier approval was answered, and those answers carried out.
        settleStep();
        break;
      case 'text-delta':
      case 'reasoning-delta': {
        const kind = event.type === 'text-delta' ? 'assistant' : 'reasoning';
        const last = items.at(-1);
        if (last?.kind === kind && last.runId === event.run_id) {
          items[items.length - 1] = { ...last, text: last.text + event.text };
        } else {
          items.push({ kind, key, text: event.text, runId: event.run_id });
        }
        break;
      }
      case 'tool-call':
        if (event.parent_tool_call_id !== undefined) {
          mergeSubCall(event, event.parent_tool_call_id, key, { input: event.input });
        } else {
          mergeTool(event, key, () => ({ input: event.input }));
        }
        break;
      case 'tool-output-delta':
        updateTool(event.tool_call_id, (tool) => {
          const live = tool.live ?? [];
          const last = live.at(-1);
          // One piece per run of the same stream, so a command's output reads in the order it came.
          return {
            ...tool,
            live:
              last?.stream === event.stream
                ? [...live.slice(0, -1), { stream: event.stream, text: last.text + event.text }]
                : [...live, { stream: event.stream, text: event.text }],
          };
        });
        break;
      case 'tool-approval-request':
        mergeTool(event, key, (tool) => ({
          input: tool?.input ?? event.input,
          approval: { approvalId: event.approval_id, state: 'pending' },
        }));
        step = [...step.filter((toolCallId) => toolCallId !== event.tool_call_id), event.tool_call_id];
        break;
      case 'tool-approval-response':
        // Answered here or in another tab, window or terminal: it waits no more, its step may.
        updateTool(event.tool_call_id, (tool) =>
          tool.approval?.state === 'pending'
            ? { ...tool, approval: { ...tool.approval, state: event.approved ? 'allowed' : 'denied' } }
            : tool,
        );
        break;
      case 'tool-preview': {
        // Always after its call's tool-call event, which made the card.
        const index = toolIndex.get(event.tool_call_id);
        if (index !== undefined) items[index] = { ...(items[index] as ToolView), previewDiff: event.preview_diff };
        break;
      }
      case 'tool-result': {
        if (event.parent_tool_call_id !== undefined) {
          mergeSubCall(event, event.parent_tool_call_id, key, { output: event.output, isError: event.is_error });
          break;
        }
        const tool = mergeTool(event, key, (existing) => ({
          output: event.output,
          isError: event.is_error,
          approval: existing?.approval ? { ...existing.approval, state: 'answered' } : undefined,
          live: undefined,
        }));
        step = step.filter((toolCallId) => toolCallId !== event.tool_call_id);
        const path = pathOf(tool.input) ?? pathOf(event.output);
        if (!event.is_error && WRITE_TOOLS.has(event.tool_name) && path !== undefined) {
          const files = runFiles.get(event.run_id) ?? [];
          runFiles.set(event.run_id, [...files.filter((file) => file.path !== path), { path, toolKey: tool.key }]);
        }
        break;
      }
      case 'run-retry':
        items.push({
          kind: 'retry',
          key,
          runId: event.run_id,
          attempt: event.attempt,
          maxAttempts: event.max_attempts,
          delayMs: event.delay_ms,
          message: event.message,
          ...(event.status === undefined ? {} : { status: event.status }),
        });
        break;
      case 'instructions-read': {
        // Each run of a turn (the prompt's, then one per approval answered) names the files it
        // read; the turn shows each file once, where it was first read.
        const shown = instructionsSinceLastPrompt(items);
        const paths = event.paths.filter((path) => !shown.has(path));
        if (paths.length > 0) items.push({ kind: 'instructions', key, paths });
        break;
      }
      case 'context-compacted':
        items.push({ kind: 'compacted', key, count: event.messages_summarized });
        // What the model sees shrank; how much is known once a step measures it.
        context = null;
        break;
      case 'run-undone': {
        const end = items.findIndex((item) => item.key === `end-${event.run_id}`);
        const ended = items[end];
        if (ended?.kind === 'run-end') items[end] = { ...ended, undone: true };
        items.push({
          kind: 'undone',
          key,
          runId: event.run_id,
          restored: event.restored,
          removed: event.removed,
          notUndone: event.not_undone,
          commands: event.commands,
        });
        break;
      }
      case 'context-rewound': {
        const rewind = { runId: event.run_id, files: event.files };
        const from = promptIndex(items, rewind.runId);
        // A prompt before this stretch of the log: everything here came after it.
        if (from < 0) rewindsBefore.push(rewind);
        markRewound(items, rewind, Math.max(from, 0), items.length);
        // What the model sees shrank; how much is known once a step measures it.
        context = null;
        items.push({
          kind: 'rewound',
          key,
          runId: event.run_id,
          turns: event.turns,
          files: event.files,
          restored: event.restored,
          removed: event.removed,
          notUndone: event.not_undone,
          commands: event.commands,
        });
        break;
      }
      case 'run-finished':
        endRun(event.run_id, event.finish_reason === 'approval-pending' ? 'waiting' : 'finished', event.usage);
        context = event.context ?? context;
        break;
      case 'run-error':
        if (event.code === 'RUN_ABORTED') {
          endRun(event.run_id, 'stopped');
        } else {
          items.push({
            kind: 'error',
            key,
            runId: event.run_id,
            code: event.code,
            message: event.message,
            ...(event.status === undefined ? {} : { status: event.status }),
            ...(event.retry_after_ms === undefined ? {} : { retryAfterMs: event.retry_after_ms }),
          });
          endRun(event.run_id, 'failed');
        }
        break;
    }
  }
  return {
    items,
    lastEventId: fresh.at(-1)?.id,
    active,
    pending: pendingOf(items, toolIndex, step),
    totals,
    context,
    toolIndex,
    runFiles,
    step,
    rewindsBefore,
  };
}

/**
 * The transcript of an older stretch of the log joined before a newer one, each folded on its own:
 * the result equals folding both in order, so a page loaded later (scrolling up) costs a fold of
 * that page, not of the whole session. `newer` must begin at a `run-started` (the events route
 * pages by runs; a run longer than a page is gathered whole before folding), so the only state
 * that crosses the join is what crosses runs: the newer run's start settles the older step's
 * approvals, and a tool result in the run an approval answer started completes the older run's card
 * (an `explore` call's explorer calls made in that run join its card too).
 */
/**
 * Every approval of the waiting step is answered — in this tab (`answeredHere`, before the stream
 * says so) or as the stream says — and the run that carries the answers out has not started yet.
 */
export function stepAnswered(transcript: Transcript, answeredHere: ReadonlySet<string>): boolean {
  return transcript.step.length > 0 && transcript.pending.every((tool) => answeredHere.has(tool.toolCallId));
}

export function prependTranscript(older: Transcript, newer: Transcript): Transcript {
  if (newer.lastEventId === undefined) return older;
  if (older.lastEventId === undefined) return newer;
  const items: TranscriptItem[] = [...older.items];
  for (const toolCallId of older.step) {
    const index = older.toolIndex.get(toolCallId);
    if (index !== undefined) items[index] = answered(items[index] as ToolView);
  }

  /** Cards of the newer stretch that completed an older card: newer key → older key. */
  const movedKeys = new Map<string, string>();
  for (const item of newer.items) {
    const olderIndex = item.kind === 'tool' ? older.toolIndex.get(item.toolCallId) : undefined;
    if (item.kind !== 'tool' || olderIndex === undefined) {
      items.push(item);
      continue;
    }
    const base = items[olderIndex] as ToolView;
    const merged: ToolView = {
      ...base,
      input: base.input ?? item.input,
      ...(item.output === undefined ? {} : { output: item.output, isError: item.isError }),
      ...(item.subCalls === undefined ? {} : { subCalls: [...(base.subCalls ?? []), ...item.subCalls] }),
      approval: item.approval ?? (item.output !== undefined && base.approval ? answered(base).approval : base.approval),
    };
    items[olderIndex] = merged;
    movedKeys.set(item.key, base.key);
  }
  if (movedKeys.size > 0) {
    for (let index = older.items.length; index < items.length; index += 1) {
      const item = items[index] as TranscriptItem;
      if (item.kind !== 'run-end' || !item.files.some((file) => movedKeys.has(file.toolKey))) continue;
      items[index] = {
        ...item,
        files: item.files.map((file) => ({ ...file, toolKey: movedKeys.get(file.toolKey) ?? file.toolKey })),
      };
    }
  }
  // The newer stretch's rewinds to before a prompt of the older one reach back over the join.
  const rewindsBefore = [...older.rewindsBefore];
  for (const rewind of newer.rewindsBefore) {
    const from = promptIndex(older.items, rewind.runId);
    if (from < 0) rewindsBefore.push(rewind);
    markRewound(items, rewind, Math.max(from, 0), older.items.length);
  }
  const toolIndex = new Map<string, number>();
  for (const [index, item] of items.entries()) if (item.kind === 'tool') toolIndex.set(item.toolCallId, index);
  return {
    items,
    lastEventId: newer.lastEventId,
    active: newer.active,
    pending: pendingOf(items, toolIndex, newer.step),
    totals: addUsage(older.totals, newer.totals),
    context: newer.context !== undefined ? newer.context : older.context,
    toolIndex,
    runFiles: new Map([...older.runFiles, ...newer.runFiles]),
    step: newer.step,
    rewindsBefore,
  };
}
