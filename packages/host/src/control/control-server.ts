/**
 * SEC-004: the host control socket, `<userData>/host.sock` (mode 0600 inside the 0700 userData):
 * how `bastion open` gets a fresh single-use launch link, how a second `bastion start` learns who
 * holds the home, and how `bastion secrets set` and `delete` reach auth.json through the running
 * host instead of starting a second sidecar on the same files. Only the owning user (and root) can
 * connect; the sidecar cannot (seccomp denies it Unix sockets) and run_command children cannot
 * (their profile denies userData). It is bound only while the home lock is held, so a socket file
 * found then is a dead host's and is replaced. Does not catch another process running as the same
 * user, which could read auth.json anyway.
 *
 * The MCP ops (`mcp.list`, `mcp.restart`) are answered here from the hub the host passes in, and
 * only for a workspace the host granted: the same folders its runs (and so its servers) work in.
 */
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  CONTROL_CONNECTION_TIMEOUT_MS,
  CONTROL_MCP_RESTART_WAIT_MS,
  CONTROL_MAX_ANSWER_BYTES,
  CONTROL_MAX_MESSAGE_CHARS,
  CONTROL_MAX_REQUEST_BYTES,
  isWireErrorCode,
  type HostErrorCode,
  type Logger,
  type McpListing,
  type WireErrorCode,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import {
  CONTROL_SOCKET_FILE,
  controlRequestSchema,
  type HostControlRequest,
  type McpControlRequest,
} from './control-protocol.js';
import { workspaceRootOf } from './workspace-sessions.js';

/** What each control operation but the MCP ones does in the host; answers are sent as they are. */
export type ControlHandler = (request: HostControlRequest) => Promise<Record<string, unknown>>;

/** What the control server asks of the MCP hub (mcp-hub.ts's `McpHub` is one). */
export interface McpControl {
  listing(workspace: string): McpListing;
  restart(workspace: string, name: string): Promise<McpListing>;
}

/**
 * What the control server answers itself. The hub comes with the workspace roots the host granted
 * (real paths), so that no MCP op can go without the check that the workspace is one of them;
 * without a hub every MCP op is refused in words.
 */
export type ControlServerOptions =
  | { mcp?: undefined }
  | {
      mcp: McpControl;
      grantedWorkspaces: () => readonly string[];
    };

/** Longest socket path the platforms accept (sun_path is 104 bytes on macOS, 108 on Linux, NUL included). */
const MAX_SOCKET_PATH_BYTES = 103;

export class ControlServer {
  readonly path: string;
  readonly #server: Server;
  readonly #log: Logger;

  private constructor(path: string, server: Server, log: Logger) {
    this.path = path;
    this.#server = server;
    this.#log = log;
  }

  /** Bind the socket (replacing a dead host's file); `undefined` when the path is too long to bind. */
  static async listen(
    userData: string,
    handle: ControlHandler,
    log: Logger,
    options: ControlServerOptions = {},
  ): Promise<ControlServer | undefined> {
    const path = join(userData, CONTROL_SOCKET_FILE);
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
      log.warn('control.unavailable', { reason: 'socket-path-too-long', bytes: Buffer.byteLength(path) });
      return undefined;
    }
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const server = createServer({ allowHalfOpen: false }, (socket) => serve(socket, handle, log, options));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    return new ControlServer(path, server, log);
  }

  /** Stop accepting and wait for answers in flight (each bounded by the connection timeout); the socket file goes with the listener. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#log.debug('control.closed');
  }
}

function serve(socket: Socket, handle: ControlHandler, log: Logger, options: ControlServerOptions): void {
  socket.setTimeout(CONTROL_CONNECTION_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  let size = 0;
  const answer = (body: Record<string, unknown>) => {
    if (!socket.destroyed) socket.end(`${JSON.stringify(body)}\n`);
  };
  const refuse = (code: HostErrorCode, message: string) => answer({ ok: false, code, message });
  const onData = (chunk: Buffer) => {
    const newline = chunk.indexOf(0x0a);
    size += newline === -1 ? chunk.length : newline;
    if (size > CONTROL_MAX_REQUEST_BYTES) {
      socket.off('data', onData);
      refuse('CONTROL_REQUEST_TOO_LARGE', 'control request too large');
      return;
    }
    chunks.push(newline === -1 ? chunk : chunk.subarray(0, newline));
    if (newline === -1) return;
    socket.off('data', onData);
    let parsed;
    try {
      parsed = controlRequestSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      refuse('CONTROL_BAD_REQUEST', 'not a control request');
      return;
    }
    const request = parsed.data;
    log.info('control.request', { method: request.op });
    const answered =
      request.op === 'mcp.list' || request.op === 'mcp.restart' ? answerMcp(request, options, log) : handle(request);
    answered.then(answer, (error: unknown) => {
      // A HostError's code tells the CLI what failed; anything else (an errno) is not a wire code.
      refuse(error instanceof HostError ? error.code : 'CONTROL_FAILED', 'the host could not do that');
    });
  };
  socket.on('data', onData);
}

/** A refusal the CLI prints as it is: a wire code and words, cut to what a control answer carries. */
export function refused(code: WireErrorCode, message: string): Record<string, unknown> {
  const words =
    message.length <= CONTROL_MAX_MESSAGE_CHARS ? message : `${message.slice(0, CONTROL_MAX_MESSAGE_CHARS - 1)}…`;
  return { ok: true, refused: { code, message: words } };
}

/**
 * `mcp.list` and `mcp.restart`: the hub's listing of a granted workspace. The hub's own refusals
 * (no such server, an unusable mcp.json: HostErrors with wire codes and words meant for the person)
 * are passed on; anything else fails as any control request does.
 */
async function answerMcp(
  request: McpControlRequest,
  options: ControlServerOptions,
  log: Logger,
): Promise<Record<string, unknown>> {
  if (options.mcp === undefined) return refused('MCP_UNAVAILABLE', 'this Bastion runs no MCP servers');
  const root = workspaceRootOf(request.workspace);
  if (!options.grantedWorkspaces().includes(root)) {
    return refused(
      'WORKSPACE_NOT_GRANTED',
      'the running Bastion does not work in this folder, so no MCP server of it runs here',
    );
  }
  let listing: McpListing;
  try {
    listing =
      request.op === 'mcp.list' ? options.mcp.listing(root) : await restartWithin(options.mcp, root, request.name, log);
  } catch (error) {
    if (error instanceof HostError && isWireErrorCode(error.code)) return refused(error.code, error.message);
    throw error;
  }
  const body = { ok: true, listing };
  if (Buffer.byteLength(`${JSON.stringify(body)}\n`) > CONTROL_MAX_ANSWER_BYTES) {
    return refused('CONTROL_FAILED', "the servers' listing is larger than a control answer carries; Settings shows it");
  }
  return body;
}

/** The listing once the restart settles, or as it stands after CONTROL_MCP_RESTART_WAIT_MS (the start goes on). */
async function restartWithin(mcp: McpControl, root: string, name: string, log: Logger): Promise<McpListing> {
  const restarted = mcp.restart(root, name);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), CONTROL_MCP_RESTART_WAIT_MS);
  });
  try {
    const settled = await Promise.race([restarted, waited]);
    if (settled !== undefined) return settled;
  } finally {
    clearTimeout(timer);
  }
  // Answered before the restart settled: how it ends is the hub's to record, and mcp.list shows it.
  void restarted.catch((error: unknown) =>
    log.warn('control.mcp-restart-failed', { server: name, code: error instanceof HostError ? error.code : 'unknown' }),
  );
  return mcp.listing(root);
}
