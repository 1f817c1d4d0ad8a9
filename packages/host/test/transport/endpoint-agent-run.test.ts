/**
 * End to end: a custom OpenAI-compatible endpoint on loopback (speaking the chat-completions
 * stream), granted with `--allow-endpoint`, drives a real agent run in the real sidecar. Every
 * model byte crosses the host-routed transport; the sidecar has no network of its own.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { AgentEvent, Session } from '@bastion/protocol';
import { readAgentEvents } from '../../src/agent-event-reader.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { join2 } from '../support/secret-samples.js';
import {
  chatCompletionsServer,
  startServer,
  type ChatCompletionsRequest,
  type TestServer,
} from '@bastion/test-support';

const CANARY = 'sk-endpoint-canary-91b7';
let host: TempHost | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
  await server?.close();
  server = undefined;
});

async function runOnce(h: TempHost, prompt: string): Promise<AgentEvent[]> {
  const created = await h.client.request<Session>('POST', '/sessions', { provider: 'local', model: 'local-model' });
  expect(created.status).toBe(201);
  const stream = await h.client.open('GET', `/agent/stream/${created.body.id}`);
  const run = await h.client.request('POST', '/agent/run', { session_id: created.body.id, message: prompt });
  expect(run.status).toBe(202);
  const events: AgentEvent[] = [];
  for await (const { event } of readAgentEvents(stream)) {
    events.push(event);
    if (event.type === 'run-finished' || event.type === 'run-error') break;
  }
  stream.destroy();
  return events;
}

async function defineEndpoint(h: TempHost, origin: string): Promise<void> {
  const set = await h.client.request('POST', '/providers/endpoints/set', {
    id: 'local',
    base_url: `${origin}/v1`,
    models: ['local-model'],
  });
  expect(set.status).toBe(200);
  expect((await h.client.request('POST', '/secrets/set', { provider: 'local', key: CANARY })).status).toBe(200);
}

it('an agent run streams from a granted loopback endpoint through the transport, key attached', async () => {
  const seen: ChatCompletionsRequest[] = [];
  server = await startServer(chatCompletionsServer(seen));
  host = await startTempHost({ allowEndpoints: [`${server.origin}/v1`] });
  await defineEndpoint(host, server.origin);
  const events = await runOnce(host, 'say hello');
  expect(events.at(-1)?.type).toBe('run-finished');
  const text = events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
  expect(text).toBe('Hello from the loopback endpoint.');
  expect(seen).toHaveLength(1);
  expect(seen[0]?.authorization).toBe(`Bearer ${CANARY}`);
  expect(seen[0]?.body).toMatchObject({ model: 'local-model', stream: true });
  expect(JSON.stringify(seen[0]?.body.messages)).toContain('say hello');
  // The key went to the endpoint and nowhere else a client or a log could see it.
  expect(JSON.stringify(events)).not.toContain(CANARY);
  expect(JSON.stringify(host.records)).not.toContain(CANARY);
});

it('without host consent the same run fails and the endpoint is never reached', async () => {
  const seen: ChatCompletionsRequest[] = [];
  server = await startServer(chatCompletionsServer(seen));
  host = await startTempHost();
  await defineEndpoint(host, server.origin);
  const events = await runOnce(host, 'say hello');
  expect(events.at(-1)?.type).toBe('run-error');
  expect(server.hits).toBe(0);
  expect(JSON.stringify(events)).not.toContain(CANARY);
});

it('a prompt carrying a cloud access key ends the run with EGRESS_SECRET naming the kind; the endpoint never sees it', async () => {
  const seen: ChatCompletionsRequest[] = [];
  server = await startServer(chatCompletionsServer(seen));
  host = await startTempHost({ allowEndpoints: [`${server.origin}/v1`] });
  await defineEndpoint(host, server.origin);
  const awsKey = join2('AKIA', 'Q3XJ7R2VN4TB8KLM');
  const events = await runOnce(host, `deploy with ${awsKey} please`);
  expect(events.at(-1)).toMatchObject({ type: 'run-error', code: 'EGRESS_SECRET' });
  expect(events.at(-1)).toMatchObject({ message: expect.stringContaining('aws-access-key-id') as unknown });
  expect(seen).toHaveLength(0);
  // Blocked, and logged by kind without any of the body.
  expect(host.records.some((record) => record.event === 'egress.blocked')).toBe(true);
  expect(JSON.stringify(host.records)).not.toContain(awsKey);
  // Nor in any log on disk: the host's and the sidecar's log files, the host's audit log.
  const userData = host.userData;
  const logFiles = ['logs', 'host'].flatMap((dir) => filesUnder(join(userData, dir)));
  expect(logFiles.some((file) => file.endsWith('host.log'))).toBe(true);
  for (const file of logFiles) expect(readFileSync(file, 'latin1'), file).not.toContain(awsKey);
});

/** Every regular file below `dir` (none when it does not exist). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}
