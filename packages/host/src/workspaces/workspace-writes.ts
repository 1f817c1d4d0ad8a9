/**
 * SEC-004 (workspace file access, the watchdog), the host end of `workspace.write` /
 * `workspace.chunk` / `workspace.remove`: the sidecar's view of the workspace is read-only
 * (sidecar-sandbox-policy.ts), so every write its file tools, undo and the `/workspaces/write-file`
 * route make is a request the host checks and performs, as `run_command` is. Nothing the sidecar
 * decided is trusted: the root must be one the host granted this sidecar (and neither inside nor
 * around userData), the path is resolved and contained by real path here, protected paths are
 * refused (FS_PROTECTED), and the host's policy is evaluated on the write as it will run (the
 * resolved path): `deny` and `hard-deny` refuse it (POLICY_DENIED, the rule named); for an `ask`
 * the write is held while the host asks the person itself (host-asks.ts: its terminal, or the
 * desktop page through guarded host IPC, which shows the host's own diff of the write:
 * write-question-diff.ts), refused (POLICY_UNAPPROVED) unless they say yes — the sidecar has no
 * way to claim an approval here. A write the person was shown a diff for (the
 * frame's `shown_sha256`) is made only over the file that diff was worked out against, checked
 * after the question (FS_CHANGED_SINCE_SHOWN). The write itself is workspace-files.ts's
 * (descriptor walk, atomic, journaled). A write's bytes are held here until its last chunk and its
 * answer; at most WORKSPACE_WRITE_MAX_PENDING writes per sidecar at once.
 *
 * What it does not catch: the tool name (write_file or edit_file) is the sidecar's word, so a rule
 * that names only one of them can be dodged by naming the other (a rule naming both, or none,
 * cannot); the session's mode (read-only, accept-edits) is the sidecar's: the host holds no
 * session state. In the desktop page the person's yes cannot be told from script inside that page
 * (host-asks.ts).
 */
import { realpathSync } from 'node:fs';
import {
  WORKSPACE_MAX_PATH_CHARS,
  WORKSPACE_WRITE_MAX_PENDING,
  type FrameOfType,
  type Logger,
  type SidecarToHostFrame,
  type WorkspaceWriteErrorCode,
} from '@bastion/protocol';
import type { HostAsks } from '../policy/host-asks.js';
import type { PolicyStore } from '../policy/policy-store.js';
import { isAtOrUnder } from '../sandbox/sandbox-policy-check.js';
import type { SidecarHandle } from '../supervisor/sidecar-supervisor.js';
import type { ProtectedLinkIndex } from './protected-link-targets.js';
import type { TempFileJournal } from './temp-file-journal.js';
import { writeQuestionDiff, type HeldCredentials } from './write-question-diff.js';
import {
  removeEmptyWorkspaceDirectory,
  removeWorkspaceFile,
  resolveWritable,
  writeWorkspaceFile,
  WorkspaceWriteError,
  type ProtectedDetail,
  type WritablePath,
} from './workspace-files.js';

/** The sidecar as this module sees it: its channel and the roots the host granted that spawn. */
type Sidecar = { channel: SidecarHandle['channel']; config: Pick<SidecarHandle['config'], 'workspaces'> };
type WriteFrame = FrameOfType<SidecarToHostFrame, 'workspace.write'>;
type RemoveFrame = FrameOfType<SidecarToHostFrame, 'workspace.remove'>;

export interface WorkspaceWritesOptions {
  userData: string;
  /** The watchdog's rules, evaluated on every write and removal. */
  policy: PolicyStore;
  /** Where each write names its temp file first (in userData's `host/`). */
  journal: TempFileJournal;
  /** Where a write the policy says `ask` for is put to the person, by the host; absent, nobody can be asked. */
  asks?: HostAsks;
  /** The host's protected link targets, which its command executor keeps current. */
  links: ProtectedLinkIndex;
  /** The credentials Bastion holds, cut from the diff a question about a write shows; absent, the question shows none. */
  heldCredentials?: HeldCredentials;
  log: Logger;
}

interface PendingWrite {
  frame: WriteFrame;
  chunks: Uint8Array[];
  received: number;
}

class Refused extends Error {
  constructor(
    readonly code: WorkspaceWriteErrorCode,
    readonly ruleId?: string,
  ) {
    super(code);
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

/** The channel module: `supervisor.addChannelModule((sidecar) => attachWorkspaceWrites(sidecar, options))`. */
export function attachWorkspaceWrites(sidecar: Sidecar, options: WorkspaceWritesOptions): () => void {
  const pending = new Map<string, PendingWrite>();
  /** Writes whose bytes are all here and that wait for the person's answer. */
  let held = 0;
  /** Ends every question still open for this sidecar when it is gone. */
  const gone = new AbortController();
  const userData = realOrUndefined(options.userData) ?? options.userData;

  const send = (frame: Parameters<Sidecar['channel']['send']>[0]) => {
    if (!sidecar.channel.closed) sidecar.channel.send(frame);
  };
  const refuse = (id: string, code: WorkspaceWriteErrorCode, ruleId?: string, detail?: ProtectedDetail) => {
    options.log.warn('workspace.write-refused', { write_id: id, code, rule_id: ruleId ?? null });
    send({
      v: 1,
      type: 'workspace.error',
      id,
      code,
      ...(ruleId === undefined ? {} : { rule_id: ruleId }),
      ...(detail === undefined
        ? {}
        : 'linkedFrom' in detail
          ? // A name past the frame's bound would break the channel: the code alone is said then.
            detail.linkedFrom.length <= WORKSPACE_MAX_PATH_CHARS
            ? { linked_from: detail.linkedFrom }
            : {}
          : { scan_incomplete: true as const }),
    });
  };

  /**
   * The granted root the frame names, resolved and contained, once the policy allows the write:
   * a deny refuses it, an ask waits for the person's yes at the host. `bytes`: a write's, which
   * the question shows as the host's own diff of them against the file as it is.
   */
  const admit = async (
    frame: Pick<WriteFrame, 'id' | 'workspace_root' | 'path' | 'session_id' | 'run_id'>,
    tool: WriteFrame['tool'],
    bytes?: Uint8Array,
  ): Promise<WritablePath> => {
    const root = realOrUndefined(frame.workspace_root);
    const granted = root !== undefined && sidecar.config.workspaces.some((path) => realOrUndefined(path) === root);
    if (!granted || isAtOrUnder(root, userData) || isAtOrUnder(userData, root))
      throw new Refused('FS_OUTSIDE_WORKSPACE');
    const target = resolveWritable(root, frame.path, { links: options.links });
    const audited = { stage: 'write', session_id: frame.session_id, run_id: frame.run_id } as const;
    const verdict = options.policy.evaluate({ tool, workspace_root: root, paths: [target.real] }, audited);
    if (verdict.verdict === 'deny' || verdict.verdict === 'hard-deny')
      throw new Refused('POLICY_DENIED', verdict.rule_id);
    if (verdict.verdict === 'ask') {
      const diff =
        bytes === undefined || options.heldCredentials === undefined
          ? undefined
          : writeQuestionDiff(target, bytes, options.heldCredentials);
      held += 1;
      const asked =
        options.asks?.ask(
          {
            tool,
            workspace_root: root,
            paths: [target.real],
            ...(verdict.rule_id === undefined ? {} : { rule_id: verdict.rule_id }),
            ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
            ...(frame.session_id === undefined ? {} : { session_id: frame.session_id }),
            ...(diff === undefined ? {} : { diff }),
          },
          gone.signal,
          audited,
        ) ?? Promise.resolve('unanswered' as const);
      const outcome = await asked.finally(() => (held -= 1));
      options.log.info('workspace.write-asked', { write_id: frame.id, outcome });
      if (outcome !== 'approved') throw new Refused('POLICY_UNAPPROVED', verdict.rule_id);
    }
    return target;
  };

  const settle = async (id: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (error) {
      if (error instanceof Refused) return refuse(id, error.code, error.ruleId);
      if (error instanceof WorkspaceWriteError) return refuse(id, error.code, undefined, error.detail);
      options.log.error('workspace.write-failed', {
        write_id: id,
        reason: error instanceof Error ? error.name : 'unknown',
      });
      refuse(id, 'FS_IO');
    }
  };

  const perform = (write: PendingWrite) => {
    const { frame } = write;
    void settle(frame.id, async () => {
      const bytes = write.chunks.length === 1 ? (write.chunks[0] as Uint8Array) : Buffer.concat(write.chunks);
      const target = await admit(frame, frame.tool, bytes);
      const result = writeWorkspaceFile(target, bytes, {
        journal: options.journal,
        ...(frame.shown_sha256 === undefined ? {} : { shownSha256: frame.shown_sha256 }),
      });
      send({ v: 1, type: 'workspace.written', id: frame.id, ...result });
    });
  };

  sidecar.channel.on('workspace.write', (frame) => {
    if (pending.has(frame.id)) return refuse(frame.id, 'WORKSPACE_WRITE_DUPLICATE_ID');
    if (pending.size + held >= WORKSPACE_WRITE_MAX_PENDING) return refuse(frame.id, 'WORKSPACE_WRITE_BUSY');
    const write: PendingWrite = { frame, chunks: [], received: 0 };
    if (frame.size === 0) return perform(write);
    pending.set(frame.id, write);
  });

  sidecar.channel.on('workspace.chunk', (frame) => {
    const write = pending.get(frame.id);
    if (!write) return;
    write.received += frame.data.byteLength;
    if (write.received > write.frame.size) {
      pending.delete(frame.id);
      return refuse(frame.id, 'WORKSPACE_WRITE_SIZE_MISMATCH');
    }
    // The decoder hands on views of its input; a copy keeps only this write's bytes alive.
    write.chunks.push(Buffer.from(frame.data));
    if (write.received < write.frame.size) return;
    pending.delete(frame.id);
    perform(write);
  });

  sidecar.channel.on('workspace.remove', (frame: RemoveFrame) => {
    void settle(frame.id, async () => {
      const target = await admit(frame, 'write_file');
      if (frame.kind === 'file') {
        removeWorkspaceFile(target, frame.shown_sha256 === undefined ? {} : { shownSha256: frame.shown_sha256 });
        send({ v: 1, type: 'workspace.removed', id: frame.id, removed: true });
      } else {
        send({ v: 1, type: 'workspace.removed', id: frame.id, removed: removeEmptyWorkspaceDirectory(target) });
      }
    });
  });

  return () => {
    pending.clear();
    gone.abort();
  };
}
