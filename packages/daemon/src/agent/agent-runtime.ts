/**
 * Composes the agent side of the sidecar: sessions.db in userData, the host-granted workspace
 * roots, the provider registry (with the one injected provider fetch), the run manager and their
 * routes. At start-up, runs a dead sidecar left `running` are marked interrupted, and the storage
 * reserve (storage-reserve.ts) is made whole if the disk has room.
 */
import { promptsRoutes } from '../prompts/prompts-routes.js';
import { join } from 'node:path';
import { SESSIONS_DB_FILE, type Logger, type ModelRef } from '@bastion/protocol';
import type { RouteModule } from '../http/app.js';
import { agentRoutes } from '../http/routes/agent-routes.js';
import { sessionRoutes } from '../http/routes/session-routes.js';
import { UntouchedSessions } from './untouched-sessions.js';
import { workspaceRoutes } from '../http/routes/workspace-routes.js';
import { DEMO_MODEL_REF } from '../providers/model-preferences.js';
import {
  demoProvider,
  ProviderRegistry,
  type ProviderDefinition,
  type ProviderFetch,
} from '../providers/provider-registry.js';
import { openDatabase } from '../storage/database.js';
import { SessionStore } from '../storage/session-store.js';
import { storageErrorOf } from '../storage/storage-error.js';
import { StorageReserve } from '../storage/storage-reserve.js';
import { WorkspaceRoots } from '../workspaces/workspace-roots.js';
import type { WorkspaceWriter } from '../workspaces/workspace-writer.js';
import { RunManager, type ToolFactory } from './run-manager.js';
import type { PolicyChecker } from '../policy/policy-client.js';
import { AuditLog } from '../storage/audit-log.js';
import { auditRoutes } from '../http/routes/audit-routes.js';
import { changesRoutes } from '../http/routes/changes-routes.js';
import type { HeldSecrets } from '../policy/redact-held.js';
import { UndoStore, type UndoLimits } from '../undo/undo-store.js';

export interface AgentRuntimeOptions {
  userData: string;
  /** Roots from the bootstrap frame: the only ones the daemon opens. */
  workspaces: readonly string[];
  /** What performs every write in them: the host, over the channel (workspace-writer.ts). */
  writer: WorkspaceWriter;
  log: Logger;
  /** The host-routed transport's fetch; without it, HTTP providers fail closed. */
  fetch?: ProviderFetch;
  /** Providers besides `demo`. */
  providers?: readonly ProviderDefinition[];
  /** Extra tools per session (run_command when the posture allows a shell). */
  extraTools?: readonly ToolFactory[];
  /** The model of sessions created without a provider (the user's default, preferences.json); the demo when absent. */
  defaultModel?: () => Promise<ModelRef>;
  /** The watchdog hook: the host's policy, asked before every tool call. */
  policy: PolicyChecker;
  /** Whether the host runs the sidecar inside the OS sandbox (stated in the system prompt). */
  sandboxed?: boolean;
  /** Bastion's own credentials (auth.json), redacted from every tool result. */
  heldSecrets?: HeldSecrets;
  /** Undo's bounds (tests set small ones); UNDO_MAX_* by default. */
  undoLimits?: Partial<UndoLimits>;
}

export interface AgentRuntime {
  readonly store: SessionStore;
  readonly registry: ProviderRegistry;
  readonly runs: RunManager;
  readonly roots: WorkspaceRoots;
  readonly routes: RouteModule[];
  /** Abort runs (each writes its final event), then close the database. */
  close(): Promise<void>;
}

/**
 * The AI SDK prints model warnings to the console, which in the sidecar is stderr (the log
 * channel); route them into the redacted logger as a count instead.
 */
function routeModelWarnings(log: Logger): void {
  (globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = (options: {
    warnings: unknown[];
    provider: string;
    model: string;
  }) =>
    log.warn('model.warnings', { count: options.warnings.length, provider: options.provider, model: options.model });
}

export function openAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  routeModelWarnings(options.log);
  const db = openDatabase(join(options.userData, SESSIONS_DB_FILE));
  const store = new SessionStore(db);
  const audit = new AuditLog(db);
  const reserve = new StorageReserve(options.userData);
  reserve.ensure();
  // On a full disk the sidecar still starts (reads work): the interruption is recorded before the next run.
  let staleRunsPending = false;
  try {
    const interrupted = store.runs.interruptStale();
    if (interrupted > 0) options.log.warn('runs.interrupted', { count: interrupted });
  } catch (error) {
    const failure = storageErrorOf(error);
    if (!failure) throw error;
    staleRunsPending = true;
    options.log.error('runs.interrupt-deferred', { code: failure.code });
  }
  const undo = new UndoStore(store.writer, options.undoLimits ? { limits: options.undoLimits } : {});
  const roots = new WorkspaceRoots(options.workspaces, options.writer);
  const registry = new ProviderRegistry({
    ...(options.fetch ? { fetch: options.fetch } : {}),
    providers: [demoProvider, ...(options.providers ?? [])],
  });
  const runs = new RunManager({
    store,
    registry,
    roots,
    log: options.log,
    extraTools: options.extraTools ?? [],
    policy: options.policy,
    audit,
    undo,
    sandboxed: options.sandboxed ?? false,
    reserve,
    staleRunsPending,
    ...(options.heldSecrets ? { heldSecrets: options.heldSecrets } : {}),
  });
  const untouched = new UntouchedSessions({ store, runs, log: options.log });
  const stopSweeping = untouched.start();
  let closed: Promise<void> | undefined;
  return {
    store,
    registry,
    runs,
    roots,
    routes: [
      workspaceRoutes(roots),
      sessionRoutes({
        store,
        roots,
        registry,
        runs,
        untouched,
        defaultModel: options.defaultModel ?? (() => Promise.resolve(DEMO_MODEL_REF)),
      }),
      agentRoutes({ store, runs }),
      auditRoutes({ store, audit }),
      changesRoutes({ store, undo, roots }),
      promptsRoutes(options.userData),
    ],
    close() {
      stopSweeping();
      closed ??= runs.shutdown().then(() => {
        store.close();
      });
      return closed;
    },
  };
}
