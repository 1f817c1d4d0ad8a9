/**
 * The daemon's end of the MCP frames: `mcp.list` and `mcp.call` out to the host, `mcp.listed`,
 * `mcp.result` and `mcp.error` back. The host runs the servers and is their client; the sidecar
 * never holds a server's pipes. No answer in time or a closed channel is an empty list or a
 * failed call, never an exception.
 */
import { randomBytes } from 'node:crypto';
import {
  MCP_ANSWER_GRACE_MS,
  MCP_CALL_TIMEOUT_MS,
  MCP_START_TIMEOUT_MS,
  type FrameOfType,
  type HostToSidecarFrame,
  type McpCallErrorCode,
} from '@bastion/protocol';
import type { HostChannel } from '../channel/host-channel.js';

export type McpListedServer = FrameOfType<HostToSidecarFrame, 'mcp.listed'>['servers'][number];

export type McpCallOutcome =
  | { ok: true; text: string; is_error: boolean; truncated: boolean }
  | { ok: false; code: McpCallErrorCode; message?: string };

export interface McpCallRequest {
  workspaceRoot: string;
  server: string;
  tool: string;
  /** The arguments' JSON text. */
  arguments: string;
  sessionId?: string | undefined;
  runId?: string | undefined;
}

export class McpClient {
  readonly #channel: HostChannel;
  readonly #lists = new Map<string, (servers: McpListedServer[]) => void>();
  readonly #calls = new Map<string, (outcome: McpCallOutcome) => void>();

  /** Registers the `mcp.*` handlers (an unhandled frame type would close the channel). */
  constructor(channel: HostChannel) {
    this.#channel = channel;
    channel.on('mcp.listed', (frame) => this.#lists.get(frame.id)?.(frame.servers));
    channel.on('mcp.result', (frame) =>
      this.#calls.get(frame.id)?.({ ok: true, text: frame.text, is_error: frame.is_error, truncated: frame.truncated }),
    );
    channel.on('mcp.error', (frame) =>
      this.#calls.get(frame.id)?.({
        ok: false,
        code: frame.code,
        ...(frame.message === undefined ? {} : { message: frame.message }),
      }),
    );
  }

  /** A workspace's servers and the tools of the ready ones; empty when the host cannot say. */
  list(workspaceRoot: string): Promise<McpListedServer[]> {
    if (this.#channel.closed) return Promise.resolve([]);
    const id = `mcl_${randomBytes(12).toString('base64url')}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle([]), MCP_START_TIMEOUT_MS + MCP_ANSWER_GRACE_MS);
      const settle = (servers: McpListedServer[]) => {
        clearTimeout(timer);
        this.#lists.delete(id);
        resolve(servers);
      };
      this.#lists.set(id, settle);
      try {
        this.#channel.send({ v: 1, type: 'mcp.list', id, workspace_root: workspaceRoot });
      } catch {
        settle([]);
      }
    });
  }

  /** Call one tool; an abort tells the host to cancel it and settles at once. */
  call(request: McpCallRequest, signal?: AbortSignal): Promise<McpCallOutcome> {
    if (this.#channel.closed)
      return Promise.resolve({ ok: false, code: 'MCP_CALL_FAILED', message: 'the host is not reachable' });
    const id = `mcc_${randomBytes(12).toString('base64url')}`;
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => settle({ ok: false, code: 'MCP_CALL_FAILED', message: 'the host did not answer the call' }),
        MCP_CALL_TIMEOUT_MS + MCP_ANSWER_GRACE_MS,
      );
      const onAbort = () => {
        if (!this.#channel.closed) this.#channel.send({ v: 1, type: 'mcp.abort', id });
        settle({ ok: false, code: 'MCP_CALL_FAILED', message: 'the call was stopped' });
      };
      const settle = (outcome: McpCallOutcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#calls.delete(id);
        resolve(outcome);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#calls.set(id, settle);
      try {
        this.#channel.send({
          v: 1,
          type: 'mcp.call',
          id,
          workspace_root: request.workspaceRoot,
          server: request.server,
          tool: request.tool,
          arguments: request.arguments,
          ...(request.sessionId === undefined ? {} : { session_id: request.sessionId }),
          ...(request.runId === undefined ? {} : { run_id: request.runId }),
        });
      } catch {
        settle({
          ok: false,
          code: 'MCP_ARGUMENTS_INVALID',
          message: 'the call cannot be sent to the host (its arguments are too large)',
        });
      }
    });
  }
}
