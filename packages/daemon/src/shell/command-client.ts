/**
 * The daemon's end of the command frames: `command.request` / `command.abort` out to the host,
 * `command.output` / `end` / `aborted` / `error` back. The daemon never spawns a process itself;
 * the host runs the command under its per-command kernel profile and streams the output here.
 */
import { randomBytes } from 'node:crypto';
import {
  COMMAND_MAX_OUTPUT_BYTES,
  type CommandErrorCode,
  type FrameOfType,
  type HostToSidecarFrame,
} from '@bastion/protocol';
import type { HostChannel } from '../channel/host-channel.js';
import { shellRefusal, type ShellRefusal } from './shell-error.js';

export interface CommandRunRequest {
  command: string;
  args: string[];
  cwd: string;
  workspaceRoot: string;
  scratchDir: string;
  timeoutMs: number;
  /** The session and run the command is part of, for the host's audit log. */
  sessionId?: string | undefined;
  runId?: string | undefined;
}

export interface CommandRunResult {
  exit_code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
  duration_ms: number;
  /** What the host neutralised or flagged after the command (a repository it created, a planted rebase exec line). */
  notices?: string[];
}

/** Where a command's output goes as it comes, besides its result. */
export type CommandOutputListener = (stream: 'stdout' | 'stderr', bytes: Uint8Array) => void;

interface Pending {
  onOutput: CommandOutputListener | undefined;
  stdout: Uint8Array[];
  stderr: Uint8Array[];
  bytes: number;
  truncated: boolean;
  abortRequested: boolean;
  settle: (result: CommandRunResult | ShellRefusal) => void;
}

/** Fixed messages for the host's refusal codes; the host sends only a code. */
/** The host refusals passed to the model with their own message; any other code is SHELL_HOST_REFUSED. */
const HOST_ERROR_MESSAGES: Partial<Record<CommandErrorCode, string>> = {
  COMMAND_SHELL_UNAVAILABLE: 'the host runs no shell commands in this posture',
  COMMAND_QUEUE_FULL: 'too many commands are waiting; try again when one has finished',
  COMMAND_CWD_REFUSED: 'the host refused the working directory',
  COMMAND_ROOT_REFUSED: 'the host refused the workspace root',
  COMMAND_SCRATCH_REFUSED: 'the host refused the scratch directory',
  COMMAND_SPAWN_FAILED: 'the command could not be started (is it installed?)',
  COMMAND_SANDBOX_FAILED: 'the command sandbox could not be prepared',
  COMMAND_DUPLICATE_ID: 'the host refused a duplicate command id',
  COMMAND_POLICY_DENIED: "the host's policy denies this command",
  COMMAND_POLICY_UNAPPROVED: "the host's policy needs your approval for this command, and none was given",
};

type CommandFrame<T extends HostToSidecarFrame['type']> = FrameOfType<HostToSidecarFrame, T>;

export class CommandClient {
  readonly #channel: HostChannel;
  readonly #pending = new Map<string, Pending>();

  /** Registers the handlers of every command frame the host can send (an unhandled type closes the channel). */
  constructor(channel: HostChannel) {
    this.#channel = channel;
    channel.on('command.output', (frame) => this.#onOutput(frame));
    channel.on('command.end', (frame) => this.#onEnd(frame));
    channel.on('command.aborted', (frame) =>
      this.#settle(frame.id, shellRefusal('SHELL_ABORTED', 'the command was aborted')),
    );
    channel.on('command.error', (frame) => {
      const code = frame.code;
      const message = Object.hasOwn(HOST_ERROR_MESSAGES, code)
        ? HOST_ERROR_MESSAGES[code as CommandErrorCode]
        : undefined;
      this.#settle(
        frame.id,
        message === undefined
          ? shellRefusal('SHELL_HOST_REFUSED', 'the host refused the command')
          : shellRefusal(code as CommandErrorCode, message),
      );
    });
  }

  /** Commands sent and not yet ended. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /**
   * Run one validated command in the host. Resolves with its result or a refusal; aborting sends
   * `command.abort`. `onOutput` has each piece of output kept (within the bound) as it comes.
   */
  run(
    request: CommandRunRequest,
    signal?: AbortSignal,
    onOutput?: CommandOutputListener,
  ): Promise<CommandRunResult | ShellRefusal> {
    if (signal?.aborted) return Promise.resolve(shellRefusal('SHELL_ABORTED', 'the command was aborted'));
    const id = `cmd_${randomBytes(16).toString('base64url')}`;
    return new Promise((resolve) => {
      const onAbort = () => {
        const pending = this.#pending.get(id);
        if (!pending || pending.abortRequested || this.#channel.closed) return;
        pending.abortRequested = true;
        this.#channel.send({ v: 1, type: 'command.abort', id });
      };
      this.#pending.set(id, {
        onOutput,
        stdout: [],
        stderr: [],
        bytes: 0,
        truncated: false,
        abortRequested: false,
        settle: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#channel.send({
        v: 1,
        type: 'command.request',
        id,
        command: request.command,
        args: request.args,
        cwd: request.cwd,
        workspace_root: request.workspaceRoot,
        scratch_dir: request.scratchDir,
        timeout_ms: request.timeoutMs,
        ...(request.sessionId === undefined ? {} : { session_id: request.sessionId }),
        ...(request.runId === undefined ? {} : { run_id: request.runId }),
      });
    });
  }

  #onOutput(frame: CommandFrame<'command.output'>): void {
    const pending = this.#pending.get(frame.id);
    if (!pending) return;
    const chunk = frame.data;
    // The host enforces the bound; this keeps the daemon bounded even if it did not.
    const room = COMMAND_MAX_OUTPUT_BYTES - pending.bytes;
    const kept = chunk.byteLength > room ? chunk.subarray(0, Math.max(room, 0)) : chunk;
    if (kept.byteLength < chunk.byteLength) pending.truncated = true;
    pending.bytes += kept.byteLength;
    (frame.stream === 'stdout' ? pending.stdout : pending.stderr).push(kept);
    if (kept.byteLength > 0) pending.onOutput?.(frame.stream, kept);
  }

  #onEnd(frame: CommandFrame<'command.end'>): void {
    const pending = this.#pending.get(frame.id);
    if (!pending) return;
    if (pending.abortRequested) {
      this.#settle(frame.id, shellRefusal('SHELL_ABORTED', 'the command was aborted'));
      return;
    }
    this.#settle(frame.id, {
      exit_code: frame.exit_code,
      signal: frame.signal,
      stdout: Buffer.concat(pending.stdout).toString('utf8'),
      stderr: Buffer.concat(pending.stderr).toString('utf8'),
      truncated: frame.truncated || pending.truncated,
      timed_out: frame.timed_out,
      duration_ms: Math.round(frame.duration_ms),
      ...(frame.notices === undefined ? {} : { notices: frame.notices }),
    });
  }

  #settle(id: string, result: CommandRunResult | ShellRefusal): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.settle(result);
  }
}
