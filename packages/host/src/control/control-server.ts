/**
 * SEC-004: the host control socket, `<userData>/host.sock` (mode 0600 inside the 0700 userData):
 * how `bastion open` gets a fresh single-use launch link, how a second `bastion start` learns who
 * holds the home, and how `bastion secrets set` stores a key through the running host instead of
 * starting a second sidecar on the same files. Only the owning user (and root) can connect; the
 * sidecar cannot (seccomp denies it Unix sockets) and run_command children cannot (their profile
 * denies userData). It is bound only while the home lock is held, so a socket file found then is
 * a dead host's and is replaced. Does not catch another process running as the same user, which
 * could read auth.json anyway.
 */
import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import {
  CONTROL_CONNECTION_TIMEOUT_MS,
  CONTROL_MAX_REQUEST_BYTES,
  type HostErrorCode,
  type Logger,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { CONTROL_SOCKET_FILE, controlRequestSchema, type ControlRequest } from './control-protocol.js';

/** What each control operation does in the host; answers are sent as they are. */
export type ControlHandler = (request: ControlRequest) => Promise<Record<string, unknown>>;

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
  static async listen(userData: string, handle: ControlHandler, log: Logger): Promise<ControlServer | undefined> {
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
    const server = createServer({ allowHalfOpen: false }, (socket) => serve(socket, handle, log));
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

function serve(socket: Socket, handle: ControlHandler, log: Logger): void {
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
    handle(request).then(answer, (error: unknown) => {
      // A HostError's code tells the CLI what failed; anything else (an errno) is not a wire code.
      refuse(error instanceof HostError ? error.code : 'CONTROL_FAILED', 'the host could not do that');
    });
  };
  socket.on('data', onData);
}
