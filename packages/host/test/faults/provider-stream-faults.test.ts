/**
 * Fault injection during a streamed provider response, on the real host (srt posture, real
 * sidecar, the host-routed transport to a loopback OpenAI-compatible endpoint granted with
 * allowEndpoints): the sidecar SIGKILLed while the endpoint is still streaming, and an endpoint
 * that drops its connection mid-stream. Neither hangs a client, loses the store or leaves the
 * upstream request open.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Session } from '@bastion/protocol';
import { AgentDriver, readUntilRunEnd, textOf } from '../commands/agent-stream.js';
import { waitFor, SCRIPTED_MODEL, type Script, type ScriptedEndpoint } from '@bastion/test-support';
import { bridgeHeaders, rawRequest } from '../support/raw-request.js';
import { launchDesktopSession } from '../support/desktop-session.js';
import { scriptedWorlds } from '../support/scripted-agent.js';
import type { TempHost } from '../support/temp-host.js';

const KEY = 'sk-fault-test-key';
const SLOW_PIECES = Array.from({ length: 40 }, (_, index) => `word${index} `);

const worlds = scriptedWorlds(KEY);
let endpoint: ScriptedEndpoint | undefined;
afterEach(async () => {
  await worlds.stop();
  endpoint = undefined;
});

async function hostWith(script: Script): Promise<{ h: TempHost; agent: AgentDriver }> {
  const world = await worlds.start(script);
  endpoint = world.endpoint;
  return { h: world.host, agent: world.agent };
}

/** The desktop UI's view: a launched host session asking host IPC for the daemon's current password. */
async function uiSession(h: TempHost): Promise<() => Promise<string>> {
  const uiHost = `127.0.0.1:${h.ui.port}`;
  const session = await launchDesktopSession(h);
  return async () => {
    const info = await rawRequest({
      port: h.ui.port,
      path: '/_host/ipc/agent.server-info',
      headers: {
        host: uiHost,
        ...session.headers,
        origin: h.uiOrigin,
        referer: `${h.uiOrigin}/desktop/`,
        'content-type': 'application/json',
      },
      body: '{}',
    });
    expect(info.status).toBe(200);
    return (JSON.parse(info.body) as { password: string }).password;
  };
}

async function handshakeStatus(h: TempHost, password: string): Promise<number> {
  return (await rawRequest({ port: h.socketHost.port, headers: bridgeHeaders(h, password) })).status;
}

describe('faults during a streamed provider response', () => {
  it('SIGKILL of the sidecar mid-stream: run interrupted, upstream closed, new password (old refused, UI gets the new one), next run works', async () => {
    const { h, agent } = await hostWith([
      { kind: 'text', pieces: SLOW_PIECES, delayMs: 150 },
      { kind: 'text', pieces: ['after ', 'the restart'] },
    ]);
    const before = h.supervisor.current;
    expect(before).toBeDefined();
    const uiPassword = await uiSession(h);
    expect(await uiPassword()).toBe(before?.password);
    const started = await h.client.request('POST', '/agent/run', { session_id: agent.session.id, message: 'stream' });
    expect(started.status).toBe(202);
    await waitFor(() => (endpoint?.piecesSent ?? 0) >= 3, 20_000, 'the stream to be under way');

    process.kill(before?.pid as number, 'SIGKILL');
    await waitFor(
      () => h.supervisor.current !== undefined && h.supervisor.current.pid !== before?.pid,
      20_000,
      'sidecar restart',
    );
    // The host stopped reading the provider for the dead sidecar.
    await waitFor(() => (endpoint?.abandonedStreams ?? 0) === 1, 10_000, 'the upstream stream to be closed');
    expect(endpoint?.piecesSent).toBeLessThan(SLOW_PIECES.length);

    const fetched = await h.client.request<Session>('GET', `/sessions/${agent.session.id}`);
    expect(fetched.body.last_run?.status).toBe('interrupted');
    const rest = await readUntilRunEnd(h, agent.session.id, 0);
    expect(rest.events.at(-1)).toMatchObject({ type: 'run-error', code: 'RUN_INTERRUPTED' });

    const after = h.supervisor.current;
    expect(after?.password).not.toBe(before?.password);
    expect(await handshakeStatus(h, before?.password as string)).toBe(401);
    expect(await handshakeStatus(h, after?.password as string)).toBe(200);
    // The desktop UI recovers without a new launch: its session now gets the new password.
    expect(await uiPassword()).toBe(after?.password);

    const again = await AgentDriver.create(h, { provider: 'local', model: SCRIPTED_MODEL });
    const outcome = await again.say('once more');
    expect(outcome.events.at(-1)?.type).toBe('run-finished');
    expect(textOf(outcome)).toBe('after the restart');
  }, 90_000);

  it('a provider that drops the connection mid-stream ends the run with UPSTREAM_CONNECTION_RESET and a message naming the endpoint, no hang', async () => {
    const { h, agent } = await hostWith([{ kind: 'text', pieces: SLOW_PIECES, delayMs: 20, dropAfter: 3 }]);
    const outcome = await agent.say('stream');
    expect(outcome.events.at(-1)).toEqual({
      type: 'run-error',
      run_id: expect.any(String) as string,
      // The transport's own code survives the AI SDK's and fetch's wrapping.
      code: 'UPSTREAM_CONNECTION_RESET',
      message: `local (custom endpoint ${endpoint?.baseUrl}) closed the connection before its answer ended`,
    });
    // What arrived before the drop (the last piece may die in the socket with it), nothing after.
    expect(SLOW_PIECES.slice(0, 3).join('')).toContain(textOf(outcome));
    const fetched = await h.client.request<Session>('GET', `/sessions/${agent.session.id}`);
    expect(fetched.body.last_run?.status).toBe('error');
    // The sidecar is the same one and still serves.
    expect((await h.client.request('POST', '/handshake')).status).toBe(200);
  }, 60_000);
});
