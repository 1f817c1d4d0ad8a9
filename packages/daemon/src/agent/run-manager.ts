/**
 * Starts, tracks and aborts agent runs: at most one active run per session (also enforced by the
 * store's partial unique index), several sessions at once up to AGENT_MAX_CONCURRENT_RUNS. Every
 * event is persisted before it is published, and each run ends with exactly one run-finished or
 * run-error event, written in the same transaction that closes the run.
 */
import type { ToolSet, UserContent } from 'ai';
import {
  AGENT_MAX_CONCURRENT_RUNS,
  CONTEXT_READ_MAX_MESSAGES,
  type AgentEvent,
  type AgentStreamEvent,
  type AgentRewindResponse,
  type AgentUndoResponse,
  type ApprovalAnswer,
  type ApprovalErrorCode,
  type Logger,
  type McpAttachedResource,
  type McpPromptSent,
  type Session,
} from '@bastion/protocol';
import { DaemonError, isDaemonError } from '../errors.js';
import { reasoningOptions } from '../providers/model-catalog.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { ApprovalAnswerRefusal } from '../storage/approvals.js';
import type { FinalRunStatus } from '../storage/run-log.js';
import type { SessionStore } from '../storage/session-store.js';
import { storedImagePart, storedPromptTexts, type PromptImage } from '../storage/transcript.js';
import { titleFromMessage } from '../storage/sessions.js';
import { sentHash, type SendOutcome } from '../storage/send-ids.js';
import { isStorageFailure, storageFailureOf, storageFullError } from '../storage/storage-error.js';
import type { StorageReserve } from '../storage/storage-reserve.js';
import { pendingWrite, createFileTools } from '../tools/file-tools.js';
import { createPlanTool } from '../tools/plan-tool.js';
import type { ToolContext } from '../tools/tool-context.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import { detectGit, operatingSystem } from './agent-environment.js';
import { runAgentLoop } from './agent-loop.js';
import { lastTurnStart } from './context-compaction.js';
import { retryingModel } from './provider-retry.js';
import { daemonErrorIn, runErrorEvent } from './run-error.js';
import { stepUsage } from './token-usage.js';
import type { PolicyChecker } from '../policy/policy-client.js';
import { guardTools, type PendingCall, type ToolGuardOptions } from '../policy/tool-guard.js';
import { redactHeld, type HeldSecrets } from '../policy/redact-held.js';
import type { AuditLog } from '../storage/audit-log.js';
import { CommandOutputStream } from './command-output-stream.js';
import { EventHub } from './event-hub.js';
import { ProjectInstructions, workedDirectories } from './project-instructions.js';
import { createExploreTool, EXPLORER_TOOL_NAMES } from './explore-tool.js';
import { buildExplorePrompt, buildSystemPrompt, type PromptEnvironment } from './system-prompt.js';
import { RunChanges } from '../undo/run-changes.js';
import { rewindSession } from '../undo/rewind.js';
import { undoRun } from '../undo/run-undo.js';
import type { UndoStore } from '../undo/undo-store.js';

/**
 * Extra tools for a session: run_command when the posture allows a shell, the MCP servers' tools
 * (listed by the host, so they come as a promise, awaited as the run begins).
 */
export type ToolFactory = (context: ToolContext & { session: Session }) => ToolSet | Promise<ToolSet>;

/** A new message, an approval's answer, or a run that only summarises the older turns (`/compact`). */
export type RunRequest =
  | {
      message: string;
      images?: readonly PromptImage[];
      /**
       * The MCP server's prompt the message came from (with the ranges of it that prompt wrote),
       * and the resources the user attached (their text).
       */
      mcpPrompt?: McpPromptSent;
      mcpResources?: readonly McpAttachedResource[];
      /** The send's client-chosen id (send-ids.ts): a repeat of it is answered with what the first made. */
      clientId?: string;
    }
  | { approvalAnswer: ApprovalAnswer }
  | { compact: true };

/** Each refusal of an approval answer: its wire code and what it means, in words. */
const APPROVAL_REFUSALS: Record<ApprovalAnswerRefusal, [ApprovalErrorCode, string]> = {
  'unknown-approval': ['APPROVAL_UNKNOWN', 'there is no such approval'],
  'other-session': ['APPROVAL_OTHER_SESSION', 'the approval belongs to another session'],
  'tool-call-mismatch': ['APPROVAL_TOOL_CALL_MISMATCH', 'the approval is for another tool call'],
  'already-answered': [
    'APPROVAL_ALREADY_ANSWERED',
    'this approval was already answered (in another tab, window or terminal)',
  ],
  cancelled: ['APPROVAL_CANCELLED', 'this approval was withdrawn: its run was stopped'],
};

const approvalRefused = (refusal: ApprovalAnswerRefusal) => new DaemonError(...APPROVAL_REFUSALS[refusal]);

interface ActiveRun {
  runId: string;
  controller: AbortController;
  done: Promise<void>;
}

export class RunManager {
  readonly hub = new EventHub();
  readonly #store: SessionStore;
  readonly #registry: ProviderRegistry;
  readonly #roots: WorkspaceRoots;
  readonly #extraTools: readonly ToolFactory[];
  readonly #log: Logger;
  readonly #policy: PolicyChecker;
  readonly #sandboxed: boolean;
  readonly #heldSecrets: HeldSecrets;
  readonly #audit: AuditLog;
  readonly #undo: UndoStore;
  readonly #active = new Map<string, ActiveRun>();
  /** Sessions whose undo is writing now (at the host): no run starts, and no second undo, meanwhile. */
  readonly #undoing = new Set<string>();
  readonly #reserve: StorageReserve | undefined;
  /** Set while the runs a storage failure ended are writing their final events. */
  #storageFailing: Promise<void> | undefined;
  /** Runs a dead sidecar left `running` that could not be marked interrupted yet (the disk was full at start). */
  #staleRunsPending: boolean;

  constructor(options: {
    store: SessionStore;
    registry: ProviderRegistry;
    roots: WorkspaceRoots;
    log: Logger;
    extraTools?: readonly ToolFactory[];
    policy: PolicyChecker;
    /** Whether the sidecar runs inside the OS sandbox (the posture the system prompt states). */
    sandboxed?: boolean;
    heldSecrets?: HeldSecrets;
    audit: AuditLog;
    /** Space held back so that runs ended by a full disk can still record it (storage-reserve.ts). */
    reserve?: StorageReserve;
    /** Runs left `running` whose interruption must be recorded before the next run starts. */
    staleRunsPending?: boolean;
    undo: UndoStore;
  }) {
    this.#reserve = options.reserve;
    this.#staleRunsPending = options.staleRunsPending ?? false;
    this.#audit = options.audit;
    this.#undo = options.undo;
    this.#policy = options.policy;
    this.#sandboxed = options.sandboxed ?? false;
    this.#heldSecrets = options.heldSecrets ?? (() => Promise.resolve([]));
    this.#store = options.store;
    this.#registry = options.registry;
    this.#roots = options.roots;
    this.#log = options.log;
    this.#extraTools = options.extraTools ?? [];
    // A group of events lost to a failed commit belonged to runs in progress: they end here.
    this.#store.runs.onGroupLost((error) => queueMicrotask(() => this.#storageFailed(storageFailureOf(error))));
  }

  isActive(sessionId: string): boolean {
    return this.#active.has(sessionId);
  }

  /** Is an undo or a rewind being done in this session (its files partly put back)? */
  isUndoing(sessionId: string): boolean {
    return this.#undoing.has(sessionId);
  }

  /** Start a run for a new message, an approval answer or a compaction. Throws DaemonError with a wire code. */
  start(sessionId: string, request: RunRequest): { runId: string | null; messageId: string | null } {
    const session = this.#store.sessions.get(sessionId);
    if (!session) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
    const send =
      'message' in request && request.clientId !== undefined
        ? this.#sendOf(sessionId, request.clientId, request)
        : undefined;
    // A repeat of a send already stored (its answer was lost): what it made, before any check a
    // second send would fail (its own run may still be going).
    if (send?.seen !== undefined) return { runId: send.seen.runId, messageId: send.seen.messageId };
    // An answer another tab, window or terminal gave first started the run that is going now:
    // the late one is told that, not that a run is active.
    if ('approvalAnswer' in request) {
      const refusal = this.#store.approvals.refusal({
        sessionId,
        approvalId: request.approvalAnswer.approval_id,
        toolCallId: request.approvalAnswer.tool_call_id,
      });
      if (refusal !== undefined) throw approvalRefused(refusal);
    }
    if (this.#active.has(sessionId)) throw new DaemonError('RUN_ACTIVE', 'a run is already active for this session');
    if (this.#undoing.has(sessionId)) {
      throw new DaemonError('RUN_ACTIVE', 'an undo or a rewind is being done in this session');
    }
    if (this.#active.size >= AGENT_MAX_CONCURRENT_RUNS) {
      throw new DaemonError(
        'RUN_LIMIT',
        `${AGENT_MAX_CONCURRENT_RUNS} runs are going in other sessions, the most at once: let one finish or stop one, then send again`,
      );
    }
    // A run starts only while there is room to record how it ends.
    if (this.#reserve && !this.#reserve.ensure()) throw storageFullError();
    if (this.#staleRunsPending && this.#active.size === 0) {
      // No run of this sidecar is active, so every `running` row is a dead sidecar's.
      const interrupted = this.#store.runs.interruptStale();
      this.#staleRunsPending = false;
      if (interrupted > 0) this.#log.warn('runs.interrupted', { count: interrupted });
    }
    const model = this.#registry.resolve({ provider: session.provider, model: session.model });
    const images = 'message' in request ? (request.images ?? []) : [];
    const modelTakesImages = this.#registry.takesImages({ provider: session.provider, model: session.model });
    if (images.length > 0 && !modelTakesImages) {
      throw new DaemonError(
        'IMAGES_NOT_SUPPORTED',
        `${session.provider}/${session.model} does not take images; send the message without them, or switch the session to a model that takes images (a custom endpoint's vision model: tick "Its models take images" for it in Settings)`,
      );
    }

    if ('message' in request || 'compact' in request) {
      if (this.#store.approvals.hasPending(sessionId)) {
        throw new DaemonError('APPROVAL_PENDING', 'answer the pending approval first');
      }
      if (
        'compact' in request &&
        lastTurnStart(
          this.#store.transcript.modelContext(sessionId, CONTEXT_READ_MAX_MESSAGES, { images: false }).messages,
        ) === undefined
      )
        throw new DaemonError('CONTEXT_NOTHING_TO_COMPACT', 'there are no older turns to summarise yet');
    } else {
      const answer = request.approvalAnswer;
      // The answer and its event in one transaction: every tab showing the session stops asking
      // it, also when no run starts yet (several approvals in one step).
      const flipped = this.#store.writer.write(() => {
        const recorded = this.#store.approvals.answer({
          sessionId,
          approvalId: answer.approval_id,
          toolCallId: answer.tool_call_id,
          approved: answer.approved,
          ...(answer.reason === undefined ? {} : { reason: answer.reason }),
        });
        if (!recorded.ok) return recorded;
        const event = this.#store.runs.appendEvent(sessionId, {
          type: 'tool-approval-response',
          run_id: recorded.runId,
          approval_id: answer.approval_id,
          tool_call_id: answer.tool_call_id,
          approved: answer.approved,
        });
        return { ...recorded, event };
      });
      if (!flipped.ok) throw approvalRefused(flipped.refusal);
      this.hub.publish(sessionId, flipped.event);
      // A denied call never reaches the tool guard: its audit row is written here.
      if (!answer.approved) {
        this.#audit.append({
          session_id: sessionId,
          run_id: null,
          tool_call_id: answer.tool_call_id,
          tool_name: flipped.toolName,
          command_name: null,
          mode: session.mode,
          verdict: null,
          rule_id: null,
          rule_layer: null,
          approval: 'denied',
          outcome: 'denied-by-user',
          code: 'TOOL_DENIED',
        });
      }
      // several approvals in one step: continue only once the last is answered
      if (this.#store.approvals.hasPending(sessionId)) return { runId: null, messageId: null };
    }

    // Before the run exists, so a write that fails here leaves no run half started.
    if ('message' in request && session.title === '') {
      this.#store.sessions.update(sessionId, { title: titleFromMessage(request.message) });
    }
    const startRun = () =>
      this.#store.runs.start(sessionId, {
        userContent:
          'message' in request
            ? [
                {
                  role: 'user',
                  // Stored with each image's id in place of its bytes, and each MCP text marked with
                  // where it came from: modelContext puts the bytes in and the marks in words.
                  content: [
                    ...storedPromptTexts(request.message, request.mcpPrompt, request.mcpResources ?? []),
                    ...images.map(storedImagePart),
                  ] as UserContent,
                },
              ]
            : [],
        images,
        provider: session.provider,
        model: session.model,
      });
    // With its send's id, in the same transaction: a repeat finds the message exactly when it was stored.
    const started =
      send === undefined
        ? startRun()
        : this.#store.writer.write(() => {
            const run = startRun();
            if (run.messageId !== null)
              this.#store.sendIds.record(sessionId, send.clientId, send.hash, {
                runId: run.runId,
                messageId: run.messageId,
              });
            return run;
          });
    this.hub.publish(sessionId, started.event);
    const controller = new AbortController();
    const changes = new RunChanges(this.#undo, sessionId, started.runId);
    const context: ToolContext & { session: Session } = {
      roots: this.#roots,
      workspace: session.workspace,
      sessionId,
      runId: started.runId,
      store: this.#store,
      session,
      changes,
      commandOutput: async (toolCallId) =>
        new CommandOutputStream(
          (stream, text) =>
            this.#emit(sessionId, {
              type: 'tool-output-delta',
              run_id: started.runId,
              tool_call_id: toolCallId,
              stream,
              text,
            }),
          await this.#heldSecrets(),
        ),
    };
    const ownTools: ToolSet = { ...createFileTools(context), ...createPlanTool() };
    // A factory may answer later (the MCP servers' tools are the host's to list): awaited as the run begins.
    const extraTools = this.#extraTools.map((factory) => factory(context));
    const instructions = new ProjectInstructions(this.#roots, session.workspace);
    /** Instruction files this run has told the reader about (an `instructions-read` event each, once). */
    const announced = new Set<string>();
    const runId = started.runId;
    this.#log.info('run.started', {
      session_id: sessionId,
      run_id: runId,
      provider: session.provider,
      model: session.model,
    });
    // SEC-008: retries stay on this model and transport; a provider that keeps failing ends the run.
    const retrying = retryingModel(model, (retry) =>
      this.#emit(sessionId, {
        type: 'run-retry',
        run_id: runId,
        attempt: retry.attempt,
        max_attempts: retry.maxAttempts,
        delay_ms: retry.delayMs,
        ...(retry.status === undefined ? {} : { status: retry.status }),
        message: retry.message,
      }),
    );
    const providerOptions = reasoningOptions(session.provider, session.model, session.reasoning_effort);
    const contextWindow = this.#registry.contextWindow({ provider: session.provider, model: session.model });
    const provider = this.#registry.name(session.provider);
    const done = this.#execute(sessionId, runId, controller, changes, { contextWindow, provider }, async () => {
      for (const set of await Promise.all(extraTools.map((set) => Promise.resolve(set)))) Object.assign(ownTools, set);
      /**
       * A file tool's call waiting for an answer (its approval, or the host's own question): the
       * diff it would make to the file as it is now, held credentials redacted, as a tool-preview
       * event; and the file it was worked out against kept, for the host to write only over that.
       */
      const sendPreview = async (call: PendingCall): Promise<void> => {
        const pending = pendingWrite(context, call.toolName, call.input);
        if (pending === undefined) return;
        this.#store.approvals.recordShown(sessionId, call.toolCallId, pending.shownSha256);
        const shown = redactHeld(pending.diff, await this.#heldSecrets());
        this.#emit(sessionId, {
          type: 'tool-preview',
          run_id: runId,
          tool_call_id: call.toolCallId,
          preview_diff: shown,
        });
      };
      const guard: ToolGuardOptions = {
        policy: this.#policy,
        heldSecrets: this.#heldSecrets,
        context,
        onHostAsk: sendPreview,
        onDecision: (decision) => {
          this.#audit.append({
            session_id: sessionId,
            run_id: started.runId,
            tool_call_id: decision.toolCallId,
            tool_name: decision.toolName,
            command_name: decision.commandName,
            mode: this.#store.sessions.currentMode(sessionId) ?? null,
            verdict: decision.answer.verdict,
            rule_id: decision.answer.rule_id ?? null,
            rule_layer: decision.answer.layer ?? null,
            approval: decision.approval,
            outcome: decision.outcome,
            code: decision.code,
          });
          this.#log.info('tool.decision', {
            session_id: sessionId,
            tool_call_id: decision.toolCallId,
            tool: decision.toolName,
            verdict: decision.answer.verdict,
            rule_id: decision.answer.rule_id ?? null,
            outcome: decision.outcome,
            code: decision.code,
          });
        },
      };
      const setting = {
        os: operatingSystem(),
        workspaceRoot: session.workspace,
        date: new Date().toISOString().slice(0, 10),
        git: detectGit(this.#roots, session.workspace),
        sandboxed: this.#sandboxed,
      };
      if (session.workspace !== null) {
        const readTools: ToolSet = {};
        for (const name of EXPLORER_TOOL_NAMES) if (ownTools[name] !== undefined) readTools[name] = ownTools[name];
        Object.assign(
          ownTools,
          createExploreTool({
            model: retrying,
            providerOptions,
            contextWindow,
            tools: guardTools(readTools, { ...guard, asksNobody: true }),
            systemPrompt: buildExplorePrompt({ ...setting, tools: Object.keys(readTools) }),
            runId,
            emit: (event) => this.#emit(sessionId, event),
            onUsage: (usage) =>
              this.#store.runs.recordStepUsage(runId, {
                ...stepUsage(session.provider, session.model, usage),
                contextTokens: undefined,
              }),
            endRun: (error) => controller.abort(error),
          }),
        );
      }
      const tools = guardTools(ownTools, guard);
      const environment: PromptEnvironment = { ...setting, mode: session.mode, tools: Object.keys(tools) };
      return runAgentLoop({
        model: retrying,
        providerOptions,
        runId,
        contextWindow,
        compactOnly: 'compact' in request,
        context: this.#store.transcript.modelContext(sessionId, CONTEXT_READ_MAX_MESSAGES, {
          images: modelTakesImages,
        }),
        tools,
        systemPrompt: (messages) => {
          const files = instructions.for(workedDirectories(messages));
          const fresh = files.map((file) => file.path).filter((path) => !announced.has(path));
          if (fresh.length > 0) {
            for (const path of fresh) announced.add(path);
            this.#emit(sessionId, { type: 'instructions-read', run_id: runId, paths: fresh });
          }
          return buildSystemPrompt(environment, files);
        },
        signal: controller.signal,
        onMessages: (messages) => this.#store.transcript.append(sessionId, runId, messages),
        onUsage: (usage, call) => {
          const step = stepUsage(session.provider, session.model, usage);
          this.#store.runs.recordStepUsage(runId, {
            ...step,
            contextTokens: call === 'step' ? step.input + step.output : undefined,
          });
        },
        onCompacted: (compaction) => {
          this.#store.transcript.saveSummary({ sessionId, runId, ...compaction });
          this.#log.info('context.compacted', {
            session_id: sessionId,
            run_id: runId,
            count: compaction.messagesSummarized,
            bytes: Buffer.byteLength(compaction.summary),
          });
        },
        emit: (event) => this.#emit(sessionId, event),
        onApprovalRequest: (approval) => this.#store.approvals.recordRequest({ sessionId, runId, ...approval }),
        onApprovalPending: sendPreview,
      });
    });
    this.#active.set(sessionId, { runId, controller, done });
    return { runId, messageId: started.messageId };
  }

  /**
   * A message's send id, the hash of what it carries, and the earlier send with that id, if any;
   * that id used for something else is refused.
   */
  #sendOf(
    sessionId: string,
    clientId: string,
    request: Extract<RunRequest, { message: string }>,
  ): { clientId: string; hash: string; seen: SendOutcome | undefined } {
    const images = request.images ?? [];
    const hash = sentHash(
      [request.message, images.map((image) => image.mediaType), request.mcpPrompt ?? null, request.mcpResources ?? []],
      images.map((image) => image.data),
    );
    const seen = this.#store.sendIds.seen(sessionId, clientId, hash);
    if (seen !== undefined && !seen.same) {
      throw new DaemonError(
        'SEND_ID_REUSED',
        'this send id was already used in this session for a different message; send it with a new id',
      );
    }
    return { clientId, hash, seen };
  }

  #busy(sessionId: string): 'running' | 'approval-pending' | undefined {
    if (this.#active.has(sessionId)) return 'running';
    return this.#store.approvals.hasPending(sessionId) ? 'approval-pending' : undefined;
  }

  /**
   * Undo a finished run's file changes (src/undo/run-undo.ts), refused while the session has a
   * run going or waiting for an approval. The undo's event and the model's note are written in
   * the transaction that marks the run undone, and published once it committed.
   */
  async undo(sessionId: string, runId: string, options: { dryRun: boolean }): Promise<AgentUndoResponse> {
    if (!this.#store.sessions.get(sessionId)) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
    if (this.#undoing.has(sessionId)) {
      throw new DaemonError('RUN_ACTIVE', 'an undo or a rewind is being done in this session');
    }
    let recorded: AgentStreamEvent | undefined;
    this.#undoing.add(sessionId);
    let answer: AgentUndoResponse;
    try {
      answer = await undoRun(
        {
          undo: this.#undo,
          roots: this.#roots,
          busy: (id) => this.#busy(id),
          commandsOf: (id) => this.#undo.commandsRun(id),
          record: (event, note) => {
            this.#store.transcript.append(sessionId, null, [note]);
            recorded = this.#store.runs.appendEvent(sessionId, event);
          },
        },
        { sessionId, runId, dryRun: options.dryRun },
      );
    } finally {
      this.#undoing.delete(sessionId);
    }
    if (recorded) this.hub.publish(sessionId, recorded);
    if (!options.dryRun) {
      this.#log.info('run.undone', { session_id: sessionId, run_id: runId, count: answer.files.length });
    }
    return answer;
  }

  /**
   * Take the session back to before the prompt of `runId` (src/undo/rewind.ts), with `files` also
   * putting back what its turns wrote; refused while a run goes or waits for an approval, and
   * while an undo or another rewind of the session is being done.
   */
  async rewind(
    sessionId: string,
    runId: string | undefined,
    options: { files: boolean; dryRun: boolean },
  ): Promise<AgentRewindResponse> {
    if (!this.#store.sessions.get(sessionId)) throw new DaemonError('SESSION_NOT_FOUND', 'no such session');
    if (this.#undoing.has(sessionId)) {
      throw new DaemonError('RUN_ACTIVE', 'an undo or a rewind is being done in this session');
    }
    this.#undoing.add(sessionId);
    let done: Awaited<ReturnType<typeof rewindSession>>;
    try {
      done = await rewindSession(
        {
          undo: this.#undo,
          roots: this.#roots,
          transcript: this.#store.transcript,
          busy: (id) => this.#busy(id),
          commandsOf: (id) => this.#undo.commandsRun(id),
          record: (event, fromSeq) =>
            this.#store.writer.write(() => {
              this.#store.transcript.rewind(sessionId, event.run_id, fromSeq);
              return this.#store.runs.appendEvent(sessionId, event);
            }),
        },
        { sessionId, runId, ...options },
      );
    } finally {
      this.#undoing.delete(sessionId);
    }
    if (done.recorded) {
      this.hub.publish(sessionId, done.recorded);
      this.#log.info('session.rewound', {
        session_id: sessionId,
        run_id: done.answer.run_id,
        count: done.answer.turns,
      });
    }
    return done.answer;
  }

  /** Abort the session's active run (if any) and cancel its pending approvals. */
  abort(sessionId: string): boolean {
    const active = this.#active.get(sessionId);
    const cancelled = this.#store.approvals.cancelPending(sessionId);
    if (!active) {
      // A run stopped at an approval has already finished; say on the stream that it is stopped,
      // so every client (and a later reload) stops showing the prompt.
      const waiting = cancelled > 0 ? this.#store.sessions.get(sessionId)?.last_run : undefined;
      if (waiting) {
        this.#emit(sessionId, {
          type: 'run-error',
          run_id: waiting.id,
          code: 'RUN_ABORTED',
          message: 'the run was stopped while it waited for approval',
        });
      }
      return cancelled > 0;
    }
    active.controller.abort(new DaemonError('RUN_ABORTED', 'the run was aborted'));
    return true;
  }

  /** Abort every run and wait until each has written its final event. */
  async shutdown(): Promise<void> {
    const runs = [...this.#active.values()];
    for (const run of runs) run.controller.abort(new DaemonError('RUN_ABORTED', 'the agent is shutting down'));
    await Promise.all(runs.map((run) => run.done));
  }

  /**
   * A write failed for lack of space (or a read-only or damaged store): give the reserve back so
   * final events fit, end every run in progress with the failure's code, and once each has written
   * its final event, return the WAL's slack to the disk and take the reserve again if there is room.
   */
  #storageFailed(failure: DaemonError): void {
    if (this.#storageFailing) return;
    this.#log.error('store.write-failed', { code: failure.code, count: this.#active.size });
    this.#reserve?.release();
    const runs = [...this.#active.values()];
    for (const run of runs) run.controller.abort(failure);
    this.#storageFailing = Promise.all(runs.map((run) => run.done)).then(() => {
      this.#store.runs.releaseUnusedSpace();
      this.#reserve?.ensure();
      this.#storageFailing = undefined;
    });
  }

  #emit(sessionId: string, event: AgentEvent): void {
    const entry = this.#store.runs.appendEvent(sessionId, event);
    this.#store.runs.afterCommit(() => this.hub.publish(sessionId, entry));
  }

  async #execute(
    sessionId: string,
    runId: string,
    controller: AbortController,
    changes: RunChanges,
    { contextWindow, provider }: { contextWindow: number; provider: string },
    loop: () => ReturnType<typeof runAgentLoop>,
  ): Promise<void> {
    // let start() register the run before the loop can finish
    await Promise.resolve();
    let status: FinalRunStatus;
    let final: Extract<AgentEvent, { type: 'run-finished' | 'run-error' }>;
    try {
      const finishReason = await loop();
      if (controller.signal.aborted) throw controller.signal.reason;
      status = 'finished';
      const usage = this.#store.runs.usage(runId);
      const contextTokens = this.#store.runs.contextTokens(runId);
      final = {
        type: 'run-finished',
        run_id: runId,
        finish_reason: finishReason,
        ...(usage ? { usage } : {}),
        ...(contextTokens ? { context: { tokens: contextTokens, window: contextWindow } } : {}),
      };
    } catch (error) {
      const reason: unknown = controller.signal.reason;
      // Stopped by a person or a shutdown; any other reason (a storage failure, an explorer's
      // secret-egress block) ends the run as a failure with its own code.
      if (controller.signal.aborted && !(isDaemonError(reason) && reason.code !== 'RUN_ABORTED')) {
        status = 'aborted';
        final = { type: 'run-error', run_id: runId, code: 'RUN_ABORTED', message: 'the run was aborted' };
      } else {
        status = 'error';
        final = runErrorEvent(runId, controller.signal.aborted ? reason : error, provider);
        // This run's own write failed: the others cannot write either, and the reserve makes room for the final events.
        const own = daemonErrorIn(error);
        if (isStorageFailure(own)) this.#storageFailed(own);
      }
    }
    try {
      // What the run left, commands' changes to its files included, is what a later undo compares with.
      changes.seal(this.#roots);
    } catch (error) {
      this.#log.error('undo.seal-failed', { run_id: runId, code: (error as { code?: string }).code ?? 'UNKNOWN' });
    }
    try {
      this.hub.publish(sessionId, this.#store.runs.finish(sessionId, runId, status, final));
      this.#log.info('run.ended', {
        session_id: sessionId,
        run_id: runId,
        status: status,
        code: final.type === 'run-error' ? final.code : null,
      });
    } catch (error) {
      this.#log.error('run.finish-failed', {
        session_id: sessionId,
        run_id: runId,
        code: (error as { code?: string }).code ?? 'UNKNOWN',
      });
    } finally {
      this.#active.delete(sessionId);
    }
  }
}
