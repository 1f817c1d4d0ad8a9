/**
 * An HTTP server that never listens (SEC-004). It serves only sockets the host accepted on its
 * own loopback listener and transferred over IPC; the daemon has no listener, bind or connect.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Hono } from 'hono';
import {
  DAEMON_CONNECTIONS_CHECK_INTERVAL_MS,
  DAEMON_HEADERS_TIMEOUT_MS,
  DAEMON_KEEP_ALIVE_TIMEOUT_MS,
  DAEMON_MAX_HEADER_BYTES,
  DAEMON_REQUEST_TIMEOUT_MS,
} from '@bastion/protocol';

export interface SocketlessServer {
  accept(socket: Socket): void;
  close(): Promise<void>;
}

export function createSocketlessServer(app: Hono): SocketlessServer {
  const listener = getRequestListener(app.fetch);
  const server: Server = createServer(
    {
      maxHeaderSize: DAEMON_MAX_HEADER_BYTES,
      headersTimeout: DAEMON_HEADERS_TIMEOUT_MS,
      requestTimeout: DAEMON_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: DAEMON_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: DAEMON_CONNECTIONS_CHECK_INTERVAL_MS,
    },
    (req, res) => {
      void listener(req, res);
    },
  );
  // Node enforces headersTimeout/requestTimeout (slow-loris defence) from a connection tracker
  // that it starts on 'listening'. This server never listens, so start the tracker explicitly;
  // without it a client trickling header bytes would hold a socket forever (measured).
  server.emit('listening');
  // Idle sockets (a connection that never sends a byte) are closed after the headers timeout.
  server.timeout = DAEMON_HEADERS_TIMEOUT_MS;
  return {
    accept(socket) {
      server.emit('connection', socket);
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        resolve();
      }),
  };
}
