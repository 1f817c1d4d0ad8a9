/**
 * SEC-004 (workspace file access): the daemon writes nothing in a workspace itself. Its view of
 * the workspace is read-only in its sandbox, and every write its file tools, undo and the write
 * route make is a `workspace.write` (bytes in `workspace.chunk` frames) or `workspace.remove` to
 * the host, which checks the root, the containment, the protected paths and its policy rules
 * itself and performs the write (host workspaces/workspace-writes.ts). A refusal comes back as a
 * code and becomes the same error the file tools always gave (FS_PROTECTED, POLICY_DENIED…).
 *
 * What it does not catch: nothing of its own — the host is the control; this only asks.
 */
import { randomBytes } from 'node:crypto';
import {
  CHANNEL_MAX_BODY_CHUNK_BYTES,
  GIT_REPOSITORY_SCAN_MAX_ENTRIES,
  type FrameOfType,
  type HostToSidecarFrame,
  type WorkspaceErrorCode,
  type WorkspaceWriteErrorCode,
} from '@bastion/protocol';
import type { HostChannel } from '../channel/host-channel.js';
import { DaemonError } from '../errors.js';
import { storageFullError } from '../storage/storage-error.js';
import type { ContainedPath } from './containment.js';
import { WORKSPACE_ERROR_MESSAGES, WorkspaceError, workspaceError } from './workspace-error.js';

/** Who is writing, as told to the host: the file tool (its policy rules match on it) and the run. */
export interface WorkspaceWriteCall {
  tool: 'write_file' | 'edit_file';
  sessionId?: string | undefined;
  runId?: string | undefined;
  /** The file the person was shown this write's diff against (sha256, null for no file): the host writes only over it. */
  shownSha256?: string | null | undefined;
}

export interface WorkspaceWriteResult {
  bytes: number;
  created: boolean;
}

/** What performs the daemon's workspace writes: the host, over the channel. */
export interface WorkspaceWriter {
  /** Write `content` to `target` (atomic at the host); rejects with the host's refusal. */
  write(target: ContainedPath, content: Uint8Array, call: WorkspaceWriteCall): Promise<WorkspaceWriteResult>;
  /** Remove the regular file at `target`. */
  remove(target: ContainedPath, call: WorkspaceWriteCall): Promise<void>;
  /** Remove the directory at `target` if it is empty; false when it was not removed. */
  removeEmptyDirectory(target: ContainedPath, call: WorkspaceWriteCall): Promise<boolean>;
}

const REFUSAL_MESSAGES: Record<
  Exclude<WorkspaceWriteErrorCode, WorkspaceErrorCode | 'POLICY_DENIED' | 'STORAGE_FULL'>,
  string
> = {
  POLICY_UNAPPROVED: "the host's policy needs your approval for this write, and none was given",
  WORKSPACE_WRITE_BUSY: 'too many writes are waiting at the host; try again',
  WORKSPACE_WRITE_DUPLICATE_ID: 'the host refused a duplicate write id',
  WORKSPACE_WRITE_SIZE_MISMATCH: 'the host received other bytes than the write announced',
  FS_CHANGED_SINCE_SHOWN:
    'the file changed after its diff was shown for approval, so nothing was written: read it again; the new write will be asked about again',
};

function errorOf(frame: FrameOfType<HostToSidecarFrame, 'workspace.error'>, path: string): DaemonError {
  const { code } = frame;
  // Unlike the fixed messages, these name paths: the tool's own argument and a name in the same
  // workspace the model can list, so the model and the person see which link protects the file.
  if (code === 'FS_PROTECTED' && frame.linked_from !== undefined)
    return new WorkspaceError(
      code,
      `${path} is the file ${frame.linked_from} links to, protected as that name is: it cannot be written`,
    );
  if (code === 'FS_PROTECTED' && frame.scan_incomplete === true)
    return new WorkspaceError(
      code,
      `this workspace holds more than ${GIT_REPOSITORY_SCAN_MAX_ENTRIES} entries, too many to look for links to protected names (AGENTS.md, .envrc, .vscode…), so the host writes nothing in it`,
    );
  if (code === 'POLICY_DENIED')
    return new DaemonError('POLICY_DENIED', `denied by the host's policy rule ${frame.rule_id ?? '(unnamed)'}`);
  if (code === 'FS_DISK_FULL')
    return new WorkspaceError(
      code,
      `the disk holding ${path} is full: ${path} was left as it was; free some space and retry`,
    );
  if (code === 'STORAGE_FULL') return storageFullError();
  if (Object.hasOwn(WORKSPACE_ERROR_MESSAGES, code)) return workspaceError(code as WorkspaceErrorCode);
  return new DaemonError(code, REFUSAL_MESSAGES[code as keyof typeof REFUSAL_MESSAGES]);
}

type Answer = { kind: 'written'; result: WorkspaceWriteResult } | { kind: 'removed'; removed: boolean };

/** A request waiting for the host's answer, and the path it asked about (for a refusal's message). */
interface Pending {
  path: string;
  resolve: (answer: Answer) => void;
  reject: (error: DaemonError) => void;
}

export class HostWorkspaceWriter implements WorkspaceWriter {
  readonly #channel: HostChannel;
  readonly #pending = new Map<string, Pending>();

  /** Registers the `workspace.*` answer handlers (an unhandled frame type would close the channel). */
  constructor(channel: HostChannel) {
    this.#channel = channel;
    channel.on('workspace.written', (frame) =>
      this.#settle(frame.id, (pending) =>
        pending.resolve({ kind: 'written', result: { bytes: frame.bytes, created: frame.created } }),
      ),
    );
    channel.on('workspace.removed', (frame) =>
      this.#settle(frame.id, (pending) => pending.resolve({ kind: 'removed', removed: frame.removed })),
    );
    channel.on('workspace.error', (frame) =>
      this.#settle(frame.id, (pending) => pending.reject(errorOf(frame, pending.path))),
    );
  }

  async write(target: ContainedPath, content: Uint8Array, call: WorkspaceWriteCall): Promise<WorkspaceWriteResult> {
    const answer = await this.#ask(target.requested, (id) => {
      this.#channel.send({
        v: 1,
        type: 'workspace.write',
        id,
        workspace_root: target.root,
        path: target.requested,
        tool: call.tool,
        size: content.byteLength,
        ...(call.shownSha256 === undefined ? {} : { shown_sha256: call.shownSha256 }),
        ...this.#run(call),
      });
      for (let at = 0; at < content.byteLength; at += CHANNEL_MAX_BODY_CHUNK_BYTES) {
        this.#channel.send({
          v: 1,
          type: 'workspace.chunk',
          id,
          data: content.subarray(at, at + CHANNEL_MAX_BODY_CHUNK_BYTES),
        });
      }
    });
    if (answer.kind !== 'written') throw workspaceError('FS_IO');
    return answer.result;
  }

  async remove(target: ContainedPath, call: WorkspaceWriteCall): Promise<void> {
    await this.#removeAs('file', target, call);
  }

  async removeEmptyDirectory(target: ContainedPath, call: WorkspaceWriteCall): Promise<boolean> {
    return this.#removeAs('empty-directory', target, call);
  }

  async #removeAs(kind: 'file' | 'empty-directory', target: ContainedPath, call: WorkspaceWriteCall) {
    const answer = await this.#ask(target.requested, (id) =>
      this.#channel.send({
        v: 1,
        type: 'workspace.remove',
        id,
        workspace_root: target.root,
        path: target.requested,
        kind,
        ...(kind === 'file' && typeof call.shownSha256 === 'string' ? { shown_sha256: call.shownSha256 } : {}),
        ...this.#run(call),
      }),
    );
    if (answer.kind !== 'removed') throw workspaceError('FS_IO');
    return answer.removed;
  }

  #run(call: WorkspaceWriteCall) {
    return {
      ...(call.sessionId === undefined ? {} : { session_id: call.sessionId }),
      ...(call.runId === undefined ? {} : { run_id: call.runId }),
    };
  }

  #ask(path: string, send: (id: string) => void): Promise<Answer> {
    if (this.#channel.closed) return Promise.reject(workspaceError('FS_IO'));
    const id = `wr_${randomBytes(12).toString('base64url')}`;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { path, resolve, reject });
      try {
        send(id);
      } catch (cause) {
        this.#pending.delete(id);
        reject(workspaceError('FS_IO', cause));
      }
    });
  }

  #settle(id: string, settle: (pending: Pending) => void) {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    settle(pending);
  }
}
