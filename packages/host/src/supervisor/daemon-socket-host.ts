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
  /** Sockets handed to the target whose transfer has not completed yet. */
  #inFlight = new Set<Socket>();
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

  /**
   * Route sockets to this sidecar (which has attested readiness), or to nobody. Sockets still
   * queued for the previous one are closed: Node holds a handle sent while an earlier one awaits
   * the child's acknowledgement and, should the child die, never sends it, so the client's request
   * would hang. The pending bound counts the current sidecar's transfers only.
   */
  setTarget(child: ChildProcess | undefined): void {
    if (child === this.#target) return;
    for (const socket of this.#inFlight) socket.destroy();
    this.#inFlight = new Set();
    this.#target = child;
  }

  /**
   * Stop listening. Transferred sockets belong to the sidecar, and net.Server's drain callback
   * would ask an (exited) sidecar for their count over IPC, so we do not wait for it.
   */
  close(): Promise<void> {
    this.setTarget(undefined);
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
    const inFlight = this.#inFlight;
    if (inFlight.size >= SOCKET_HOST_MAX_PENDING) {
      this.#log.warn('socket.refused', { reason: 'too-many-pending', count: inFlight.size });
      socket.destroy();
      return;
    }
    inFlight.add(socket);
    const message: IpcSocketMessage = { type: IPC_SOCKET_MESSAGE };
    try {
      // keepOpen: our copy is closed here once the write is done (the sidecar's copy travels with
      // the message), not kept by Node until the sidecar acknowledges it, which a sidecar that died
      // never does: the connection then stayed open and its request unanswered (measured: a request
      // made as the sidecar was killed was still open after 60 s). On failure nobody else has it.
      target.send(message, socket, { keepOpen: true }, () => {
        inFlight.delete(socket);
        socket.destroy();
      });
    } catch {
      inFlight.delete(socket);
      socket.destroy();
    }
  }
}
