/**
 * Test support: the daemon's real app (perimeter + agent routes + real SQLite) served by a plain
 * node http server on 127.0.0.1, so tests can plug in MockLanguageModelV3 providers. Tests that
 * need the real sidecar process use startTempHost (packages/host/test/support) instead.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { createLogger, DAEMON_AUTH_USER, DESKTOP_ROUTE_ROOT, type AgentEvent, type LogRecord } from '@bastion/protocol';
import { readSseMessages } from './sse-messages.js';
import { openAgentRuntime, type AgentRuntime, type AgentRuntimeOptions } from '../../src/agent/agent-runtime.js';
import { createDaemonApp } from '../../src/http/app.js';
import type { WorkspaceWriter } from '../../src/workspaces/workspace-writer.js';
import { hostWrites } from './host-writes.js';
import { makeTempDir } from './temp-dir.js';

export interface InProcessDaemon {
  readonly root: string;
  readonly workspace: string;
  readonly userData: string;
  readonly runtime: AgentRuntime;
  readonly records: LogRecord[];
  readonly port: number;
  request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T }>;
  /** Open the session's event stream for raw reading; stop() aborts it if it is still open. */
  openStream(sessionId: string, lastEventId?: number): Promise<Response>;
  /** Collect events from the stream until `until` says stop, or (what came so far) until stop(). */
  collect(
    sessionId: string,
    until: (event: AgentEvent) => boolean,
    lastEventId?: number,
  ): Promise<{ id: number; event: AgentEvent }[]>;
  /** Close the runtime (not the files): the next start() on the same root simulates a restart. */
  stop(): Promise<void>;
  cleanup(): void;
}

const UI_ORIGIN = 'http://127.0.0.1:1';

export async function startInProcessDaemon(
  options: Partial<Omit<AgentRuntimeOptions, 'log'>> & {
    root?: string;
    /** Wraps the host's real writer (a test that acts between the daemon's writes). */
    wrapWriter?: (writer: WorkspaceWriter) => WorkspaceWriter;
  } = {},
): Promise<InProcessDaemon> {
  const { wrapWriter = (writer: WorkspaceWriter) => writer, ...runtimeOptions } = options;
  const root = options.root ?? makeTempDir();
  const workspace = join(root, 'workspace');
  const userData = join(root, 'home');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(userData, { recursive: true });
  const records: LogRecord[] = [];
  const runtime = openAgentRuntime({
    userData,
    workspaces: [workspace],
    // No host here: a policy with no rules, so the mode alone decides (host tests cover the rules).
    policy: { check: () => Promise.resolve({ verdict: 'none' }) },
    // No host process either: its real workspace-write code answers over an in-memory channel.
    writer: wrapWriter(hostWrites({ userData: join(root, 'host-data'), workspaces: [workspace] })),
    ...runtimeOptions,
    log: createLogger('daemon', (record) => records.push(record)),
  });
  const password = 'test-password-0123456789';
  // The perimeter needs the port, which is known only after listen().
  const routing: { handler?: ReturnType<typeof getRequestListener> } = {};
  const server: Server = createServer((req, res) => void routing.handler?.(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  routing.handler = getRequestListener(
    createDaemonApp({ port, allowedOrigins: [UI_ORIGIN], password }, runtime.routes).fetch,
  );

  const headers = {
    origin: UI_ORIGIN,
    referer: `${UI_ORIGIN}${DESKTOP_ROUTE_ROOT}/`,
    authorization: `Basic ${Buffer.from(`${DAEMON_AUTH_USER}:${password}`).toString('base64')}`,
  };
  const openStreams = new Set<AbortController>();
  /** The session's event stream, its controller kept for stop() until its reader lets it go. */
  const open = (sessionId: string, lastEventId: number | undefined, controller = new AbortController()) => {
    openStreams.add(controller);
    return fetch(`http://127.0.0.1:${port}/agent/stream/${sessionId}`, {
      headers: { ...headers, ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }) },
      signal: controller.signal,
    });
  };

  const daemon: InProcessDaemon = {
    root,
    workspace,
    userData,
    runtime,
    records,
    port,
    async request<T>(method: string, path: string, body?: unknown, extra: Record<string, string> = {}) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
    openStream: (sessionId, lastEventId) => open(sessionId, lastEventId),
    async collect(sessionId, until, lastEventId) {
      const events: { id: number; event: AgentEvent }[] = [];
      const controller = new AbortController();
      try {
        const body = (await open(sessionId, lastEventId, controller)).body;
        if (!body) throw new Error('no stream body');
        for await (const message of readSseMessages(body)) {
          const event = JSON.parse(message.data) as AgentEvent;
          events.push({ id: Number(message.id), event });
          if (until(event)) break;
        }
        await body.cancel().catch(() => undefined);
        return events;
      } catch (error) {
        // stop() ends a collection nobody awaits any more (a run that was refused) without an unhandled rejection.
        if (controller.signal.aborted) return events;
        throw error;
      } finally {
        openStreams.delete(controller);
      }
    },
    async stop() {
      for (const controller of openStreams) controller.abort();
      await runtime.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  return daemon;
}
