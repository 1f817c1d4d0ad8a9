/**
 * `resource-exhaustion`: one event of a model's reply is bounded where the reply enters the
 * sidecar, on the real host and sidecar with a hostile loopback endpoint (every byte through the
 * host-routed transport). One server-sent event grown toward 64 MiB, and an error answer of 64 MiB
 * that is not an event stream, stop being read just past MODEL_MAX_UNPARSED_REPLY_BYTES: the run
 * ends with PROVIDER_REPLY_TOO_LARGE, the host ends the upstream request, the server wrote little
 * past the bound, and sessions.db holds nothing of the reply.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { MODEL_MAX_UNPARSED_REPLY_BYTES, SESSIONS_DB_FILE } from '@bastion/protocol';
import { startServer, type TestServer } from '@bastion/test-support';
import { AgentDriver } from '../commands/agent-stream.js';
import { longestStoredRow } from '../../../../test/support/stored-rows.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';

/** What the endpoint would send of its one huge piece, were it read to the end. */
const CEILING = 64 * 1024 * 1024;
const BLOCK = Buffer.alloc(256 * 1024, 'z');
/**
 * Bytes the endpoint may write past the bound before it sees the request end: what the sidecar's
 * transport lets the host send ahead of its reader (one 8 MiB window) and the sockets' buffers.
 */
const SLACK = 16 * 1024 * 1024;

let host: TempHost | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await host?.stop();
  await server?.close();
  host = undefined;
  server = undefined;
});

interface Endpoint {
  requests: number;
  /** Bytes of the huge piece written so far. */
  written: number;
  /** Whether the connection closed before the piece was all written. */
  cutShort: boolean;
  /** Settles when the answer's connection closed (cut short, or once all was written). */
  closed: Promise<unknown>;
}

/**
 * An OpenAI-compatible endpoint answering every chat request with `head`, then BLOCKs written as
 * the connection drains, up to CEILING, with no line end among them.
 */
async function hostileEndpoint(head: (res: ServerResponse) => void): Promise<Endpoint> {
  const seen: Endpoint = { requests: 0, written: 0, cutShort: false, closed: Promise.resolve() };
  server = await startServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      seen.requests += 1;
      head(res);
      const closed = once(res, 'close').then(() => (seen.cutShort = seen.written < CEILING));
      seen.closed = closed;
      void (async () => {
        while (seen.written < CEILING && !res.destroyed) {
          seen.written += BLOCK.byteLength;
          if (!res.write(BLOCK)) await Promise.race([once(res, 'drain'), closed]);
        }
        if (!res.destroyed) res.end();
      })();
    });
  });
  return seen;
}

/** A session on the endpoint, defined as the custom provider `local` and granted as --allow-endpoint does. */
async function sessionOn(baseUrl: string): Promise<AgentDriver> {
  host = await startTempHost({ allowEndpoints: [baseUrl] });
  const set = await host.client.request('POST', '/providers/endpoints/set', {
    id: 'local',
    base_url: baseUrl,
    models: ['hostile-model'],
  });
  expect(set.status).toBe(200);
  return AgentDriver.create(host, { provider: 'local', model: 'hostile-model' });
}

async function expectCutAtTheBound(endpoint: Endpoint, h: TempHost): Promise<void> {
  // The host ends the upstream request after the run has ended: wait for the server to see it.
  await endpoint.closed;
  console.info(`the endpoint wrote ${endpoint.written / 1024 / 1024} MiB of its 64 MiB piece before the request ended`);
  expect(endpoint.requests).toBe(1);
  expect(endpoint.cutShort).toBe(true);
  expect(endpoint.written).toBeGreaterThan(MODEL_MAX_UNPARSED_REPLY_BYTES);
  expect(endpoint.written).toBeLessThan(MODEL_MAX_UNPARSED_REPLY_BYTES + SLACK);
  expect(h.records.some((record) => record.event === 'transport.aborted')).toBe(true);
}

it('attack: one server-sent event streamed toward 64 MiB stops being read just past the bound, the host ends the request, the run ends with PROVIDER_REPLY_TOO_LARGE and nothing of it is stored', async () => {
  const endpoint = await hostileEndpoint((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object) =>
      JSON.stringify({
        id: 'cmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'hostile-model',
        choices: [{ index: 0, delta, finish_reason: null }],
      });
    res.write(`data: ${chunk({ role: 'assistant', content: 'Here it comes' })}\n\n`);
    // The huge event: one data line whose JSON string never ends.
    res.write(`data: ${chunk({ content: '' }).replace('"content":""', '"content":"')}`);
  });
  const agent = await sessionOn(`${server?.origin}/v1`);
  const outcome = await agent.say('go');
  const h = host as TempHost;

  expect(outcome.events.at(-1)).toMatchObject({ type: 'run-error', code: 'PROVIDER_REPLY_TOO_LARGE' });
  expect((outcome.events.at(-1) as { message: string }).message).toContain('over 32 MiB');
  await expectCutAtTheBound(endpoint, h);
  expect(outcome.raw).not.toContain('zzzzzzzz');
  expect(longestStoredRow(join(h.root, 'home', SESSIONS_DB_FILE), agent.session.id)).toBeLessThan(4 * 1024);
});

it('attack: a 500 answer of 64 MiB that is not an event stream stops being read just past the bound and is not retried', async () => {
  const endpoint = await hostileEndpoint((res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.write('{"error":{"message":"');
  });
  const agent = await sessionOn(`${server?.origin}/v1`);
  const outcome = await agent.say('go');
  const h = host as TempHost;

  expect(outcome.events.at(-1)).toMatchObject({ type: 'run-error', code: 'PROVIDER_REPLY_TOO_LARGE' });
  expect(outcome.events.some((event) => event.type === 'run-retry')).toBe(false);
  await expectCutAtTheBound(endpoint, h);
  expect(longestStoredRow(join(h.root, 'home', SESSIONS_DB_FILE), agent.session.id)).toBeLessThan(4 * 1024);
});
