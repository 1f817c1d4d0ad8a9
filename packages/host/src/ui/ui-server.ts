/**
 * The UI server (SEC-004): the origin the daemon's perimeter allowlists. It binds exactly
 * 127.0.0.1 on an ephemeral port and answers only requests whose Host is exactly its own address.
 * Header size and header/request deadlines bound slow-loris and header-flood connections (431 /
 * 408, then closed) so they cannot starve the pages and host IPC.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  hasLoopbackHost,
  UI_CONNECTIONS_CHECK_INTERVAL_MS,
  UI_HEADERS_TIMEOUT_MS,
  UI_KEEP_ALIVE_TIMEOUT_MS,
  UI_MAX_HEADER_BYTES,
  UI_REQUEST_TIMEOUT_MS,
} from '@bastion/protocol';
import { listenOnLoopback } from '../listen-loopback.js';

export type UiRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export class UiServer {
  readonly #server: Server;
  #port = 0;
  #handler: UiRequestHandler | undefined;

  constructor() {
    this.#server = createServer(
      {
        maxHeaderSize: UI_MAX_HEADER_BYTES,
        headersTimeout: UI_HEADERS_TIMEOUT_MS,
        requestTimeout: UI_REQUEST_TIMEOUT_MS,
        keepAliveTimeout: UI_KEEP_ALIVE_TIMEOUT_MS,
        connectionsCheckingInterval: UI_CONNECTIONS_CHECK_INTERVAL_MS,
      },
      (req, res) => this.#route(req, res),
    );
  }

  get port(): number {
    return this.#port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** The desktop app's request handler, installed once the host is composed. */
  setHandler(handler: UiRequestHandler): void {
    this.#handler = handler;
  }

  async listen(): Promise<number> {
    this.#port = await listenOnLoopback(this.#server);
    return this.#port;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #route(req: IncomingMessage, res: ServerResponse): void {
    if (!hasLoopbackHost({ header: (name) => req.headers[name] as string | undefined }, this.#port)) {
      res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('Misdirected request\n');
      return;
    }
    if (!this.#handler) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      res.end('Not found\n');
      return;
    }
    this.#handler(req, res);
  }
}
