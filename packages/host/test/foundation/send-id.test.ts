/**
 * A send's client-chosen id (POST /agent/run's `client_id`), with a real host, a real sidecar
 * (demo model) and its real sessions.db: the same send made twice is stored once and answered with
 * the first one's run and message, also when the sidecar that stored it was replaced in between;
 * the id used again for another message is refused SEND_ID_REUSED and stores nothing.
 */
import { afterEach, expect, it } from 'vitest';
import type { AgentRunResponse, EventPageResponse, MessageListResponse, Session } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';

let host: TempHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

const CLIENT_ID = 'AAECAwQFBgcICQoLDA0ODw';

async function demoSession(started: TempHost): Promise<string> {
  const created = await started.client.request<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
  expect(created.status).toBe(201);
  return created.body.id;
}

async function stored(started: TempHost, sessionId: string): Promise<{ prompts: number; runs: number }> {
  const messages = await started.client.request<MessageListResponse>(
    'GET',
    `/sessions/${sessionId}/messages?limit=100`,
  );
  const events = await started.client.request<EventPageResponse>('GET', `/sessions/${sessionId}/events?limit=100`);
  return {
    prompts: messages.body.messages.filter((message) => message.role === 'user').length,
    runs: events.body.events.filter(({ event }) => event.type === 'run-started').length,
  };
}

it('a send made twice with one client_id is stored once: the second is answered with the first run and message, no second run', async () => {
  host = await startTempHost();
  const sessionId = await demoSession(host);
  const send = { session_id: sessionId, message: 'ls', client_id: CLIENT_ID };
  const first = await host.client.request<AgentRunResponse>('POST', '/agent/run', send);
  const second = await host.client.request<AgentRunResponse>('POST', '/agent/run', send);
  expect(first.status).toBe(202);
  expect(second.status).toBe(202);
  expect(second.body).toEqual(first.body);
  expect(first.body.message_id).not.toBeNull();
  expect(await stored(host, sessionId)).toEqual({ prompts: 1, runs: 1 });
});

it('a send stored by a sidecar that was then replaced, made again with its client_id, is answered by the new sidecar with the first run and message', async () => {
  host = await startTempHost();
  const sessionId = await demoSession(host);
  const send = { session_id: sessionId, message: 'ls', client_id: CLIENT_ID };
  const first = await host.client.request<AgentRunResponse>('POST', '/agent/run', send);
  await host.supervisor.restart('test');
  const again = await host.client.request<AgentRunResponse>('POST', '/agent/run', send);
  expect(again.status).toBe(202);
  expect(again.body).toEqual(first.body);
  expect(await stored(host, sessionId)).toEqual({ prompts: 1, runs: 1 });
});

it('a client_id used again with a different message is refused SEND_ID_REUSED (409) and nothing more is stored', async () => {
  host = await startTempHost();
  const sessionId = await demoSession(host);
  await host.client.request('POST', '/agent/run', { session_id: sessionId, message: 'ls', client_id: CLIENT_ID });
  const other = await host.client.request<{ code: string; message: string }>('POST', '/agent/run', {
    session_id: sessionId,
    message: 'pwd',
    client_id: CLIENT_ID,
  });
  expect(other.status).toBe(409);
  expect(other.body.code).toBe('SEND_ID_REUSED');
  expect(other.body.message).toContain('different message');
  expect(await stored(host, sessionId)).toEqual({ prompts: 1, runs: 1 });
});

it('the same client_id in another session is a send of its own there', async () => {
  host = await startTempHost();
  const one = await demoSession(host);
  const two = await demoSession(host);
  const first = await host.client.request<AgentRunResponse>('POST', '/agent/run', {
    session_id: one,
    message: 'ls',
    client_id: CLIENT_ID,
  });
  const second = await host.client.request<AgentRunResponse>('POST', '/agent/run', {
    session_id: two,
    message: 'ls',
    client_id: CLIENT_ID,
  });
  expect(second.status).toBe(202);
  expect(second.body.run_id).not.toBe(first.body.run_id);
  expect(await stored(host, two)).toEqual({ prompts: 1, runs: 1 });
});

it('a client_id shorter than 96 bits (15 base64url characters) is refused as a bad request and nothing is stored', async () => {
  host = await startTempHost();
  const sessionId = await demoSession(host);
  const short = await host.client.request<{ code: string }>('POST', '/agent/run', {
    session_id: sessionId,
    message: 'ls',
    client_id: CLIENT_ID.slice(0, 15),
  });
  expect(short.status).toBe(400);
  expect(await stored(host, sessionId)).toEqual({ prompts: 0, runs: 0 });
});
