import type { DaemonErrorCode } from '@bastion/protocol';
import type { SessionStore } from '../storage/session-store.js';
import type { RunChanges } from '../undo/run-changes.js';
import type { WorkspaceRoots } from '../workspaces/workspace-roots.js';

/** What a session's tools are bound to: the granted roots, the session's root and its store row. */
export interface ToolContext {
  roots: WorkspaceRoots;
  /** The session's workspace root, or null when the host granted none. */
  workspace: string | null;
  sessionId: string;
  /** The run the tools serve (told to the host with each policy check and command, for its audit log). */
  runId?: string;
  store: SessionStore;
  /** The run's undo journal: writes keep the file's earlier bytes first. Absent, writes are not undoable. */
  changes?: RunChanges;
  /** Where the output of the command call `toolCallId` goes while it runs (the run's events). Absent, nowhere. */
  commandOutput?: (toolCallId: string) => Promise<CommandOutputSink>;
}

/** A running command's output on its way out: each piece as it comes, then `end` once it has stopped. */
export interface CommandOutputSink {
  push(stream: 'stdout' | 'stderr', bytes: Uint8Array): void;
  end(): void;
}

/** What the model sees when a tool refuses: a code and a fixed message, never a resolved path. */
export interface ToolRefusal {
  ok: false;
  code: DaemonErrorCode;
  message: string;
}
