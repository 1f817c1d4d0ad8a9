/**
 * SEC-004: the host alone owns the daemon's listener. It binds exactly 127.0.0.1 on an ephemeral
 * port with accepted sockets paused (so not one request byte is read here), accepts only loopback
 * peers, and transfers each socket to the sidecar over IPC once that sidecar has attested
 * readiness. Connections that arrive before readiness, or beyond SOCKET_HOST_MAX_PENDING
 * transfers in flight, are closed. Does not catch a local process that connects: the daemon's
 * perimeter (Host, Origin, Referer, password) is the control for that.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { IPC_SOCKET_MESSAGE, SOCKET_HOST_MAX_PENDING, type IpcSocketMessage, type Logger } from '@bastion/protocol';
import { listenOnLoopback } from '../listen-loopback.js';

const LOOPBACK_PEERS = new Set(['127.0.0.1', '::ffff:127.0.0.1']);

export class DaemonSocketHost {
  readonly #server: Server;
  readonly #log: Logger;
  #target: ChildProcess | undefined;
  #pending = 0;
  #port = 0;

  constructor(log: Logger) {
    this.#log = log;
    this.#server = createServer({ pauseOnConnect: true }, (socket) => this.#accept(socket));
  }

  get port(): number {
    return this.#port;
  }

  async listen(): Promise<number> {
    this.#port = await listenOnLoopback(this.#server);
    return this.#port;
  }

  /** Route sockets to this sidecar (which has attested readiness), or to nobody. */
  setTarget(child: ChildProcess | undefined): void {
    this.#target = child;
  }

  /**
   * Stop listening. Transferred sockets belong to the sidecar, and net.Server's drain callback
   * would ask an (exited) sidecar for their count over IPC, so we do not wait for it.
   */
  close(): Promise<void> {
    this.#target = undefined;
    this.#server.close();
    return Promise.resolve();
  }

  #accept(socket: Socket): void {
    const target = this.#target;
    if (!LOOPBACK_PEERS.has(socket.remoteAddress ?? '')) {
      this.#log.warn('socket.refused', { reason: 'peer-not-loopback' });
      socket.destroy();
      return;
    }
    if (target === undefined || !target.connected) {
      this.#log.debug('socket.refused', { reason: 'sidecar-not-ready' });
      socket.destroy();
      return;
    }
    if (this.#pending >= SOCKET_HOST_MAX_PENDING) {
      this.#log.warn('socket.refused', { reason: 'too-many-pending', count: this.#pending });
      socket.destroy();
      return;
    }
    this.#pending += 1;
    const message: IpcSocketMessage = { type: IPC_SOCKET_MESSAGE };
    try {
      target.send(message, socket, { keepOpen: false }, (error) => {
        this.#pending -= 1;
        // After a successful send the handle belongs to the sidecar; on failure it is ours to close.
        if (error) socket.destroy();
      });
    } catch {
      this.#pending -= 1;
      socket.destroy();
    }
  }
}
