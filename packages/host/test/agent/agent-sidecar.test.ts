/**
 * The agent runtime in the real sidecar process, through the real perimeter: the demo model end
 * to end, a SIGKILL mid-run (the store stays readable and the run is marked interrupted by the
 * restarted sidecar), and a quiet event stream that outlives the daemon's idle socket timeout.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_HEADERS_TIMEOUT_MS, type AgentEvent, type Message, type Session } from '@bastion/protocol';
import { readAgentEvents } from '../../src/agent-event-reader.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { waitFor } from '@bastion/test-support';

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const isEnd = (event: AgentEvent) => event.type === 'run-finished' || event.type === 'run-error';

async function collect(
  h: TempHost,
  sessionId: string,
  until: (event: AgentEvent) => boolean,
  options: { lastEventId?: number; onOpen?: (response: IncomingMessage) => void } = {},
): Promise<{ id: number; event: AgentEvent }[]> {
  const response = await h.client.open(
    'GET',
    `/agent/stream/${sessionId}`,
    undefined,
    options.lastEventId === undefined ? {} : { 'last-event-id': String(options.lastEventId) },
  );
  expect(response.statusCode).toBe(200);
  options.onOpen?.(response);
  const events: { id: number; event: AgentEvent }[] = [];
  for await (const streamed of readAgentEvents(response)) {
    events.push(streamed);
    if (until(streamed.event)) break;
  }
  response.destroy();
  return events;
}

async function createSession(h: TempHost): Promise<Session> {
  const created = await h.client.request<Session>('POST', '/sessions', { provider: 'demo' });
  expect(created.status).toBe(201);
  return created.body;
}

describe('agent in the real sidecar', () => {
  it('demo model: "read README.md" reads the file through read_file and summarises it', async () => {
    host = await startTempHost();
    writeFileSync(join(host.workspace, 'README.md'), '# Hello from the workspace\nCANARY-readme-5d2e\n');
    const session = await createSession(host);
    expect(session).toMatchObject({ provider: 'demo', model: 'demo', mode: 'accept-edits', workspace: host.workspace });
    const collecting = collect(host, session.id, isEnd);
    const run = await host.client.request<{ run_id: string }>('POST', '/agent/run', {
      session_id: session.id,
      message: 'read README.md',
    });
    expect(run.status).toBe(202);
    const events = await collecting;
    const types = events.map((e) => e.event.type);
    expect(types.slice(0, 3)).toEqual(['run-started', 'tool-call', 'tool-result']);
    expect(types.at(-1)).toBe('run-finished');
    expect(events[1]?.event).toMatchObject({ tool_name: 'read_file', input: { path: 'README.md' } });
    const text = events.map((e) => (e.event.type === 'text-delta' ? e.event.text : '')).join('');
    expect(text).toBe('demo: read README.md (46 bytes); it starts with "# Hello from the workspace".');
    // the file's content travelled in the events, and never into a log record
    expect(JSON.stringify(events)).toContain('CANARY-readme-5d2e');
    expect(JSON.stringify(host.records)).not.toContain('CANARY-readme-5d2e');
    expect(JSON.stringify(host.records)).not.toContain('read README.md');
  });

  it('SIGKILL mid-run: the restarted sidecar marks the run interrupted and the store stays readable', async () => {
    host = await startTempHost();
    const session = await createSession(host);
    const before = host.supervisor.current?.pid;
    expect(before).toBeDefined();
    // the demo's help text streams word by word, so the run is still going after the first delta
    const firstDelta = collect(host, session.id, (e) => e.type === 'text-delta');
    await host.client.request('POST', '/agent/run', { session_id: session.id, message: 'hello' });
    const seen = await firstDelta;
    process.kill(before as number, 'SIGKILL');
    await waitFor(
      () => host?.supervisor.current !== undefined && host.supervisor.current.pid !== before,
      20_000,
      'sidecar restart',
    );

    const fetched = await host.client.request<Session>('GET', `/sessions/${session.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.last_run?.status).toBe('interrupted');
    // a client that reconnects after the last event it saw gets the end of the run
    const rest = await collect(host, session.id, isEnd, { lastEventId: seen.at(-1)?.id });
    expect(rest.at(-1)?.event).toMatchObject({ type: 'run-error', code: 'RUN_INTERRUPTED' });
    const messages = await host.client.request<{ messages: Message[] }>('GET', `/sessions/${session.id}/messages`);
    expect(messages.body.messages[0]).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'hello' }] });
    // and the session runs again
    const again = collect(host, session.id, isEnd, { lastEventId: rest.at(-1)?.id });
    expect((await host.client.request('POST', '/agent/run', { session_id: session.id, message: 'ls' })).status).toBe(
      202,
    );
    expect((await again).at(-1)?.event.type).toBe('run-finished');
  });

  it('keeps a quiet stream open past the idle socket timeout (heartbeats)', async () => {
    host = await startTempHost();
    const session = await createSession(host);
    let opened = 0;
    const collecting = collect(host, session.id, isEnd, { onOpen: () => (opened = Date.now()) });
    await waitFor(() => opened > 0, 10_000, 'stream open');
    await new Promise((resolve) => setTimeout(resolve, DAEMON_HEADERS_TIMEOUT_MS + 2_000));
    expect((await host.client.request('POST', '/agent/run', { session_id: session.id, message: 'ls' })).status).toBe(
      202,
    );
    const events = await collecting;
    expect(events.map((e) => e.event.type)).toContain('run-finished');
  }, 40_000);
});
