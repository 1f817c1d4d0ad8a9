/**
 * A running command's output reaches the session's stream while it runs, on the real host (srt
 * posture, a real sandboxed command, real SQLite): tool-output-delta events come before the
 * command ends, Bastion's own credential redacted in them as in the result, and the run's end
 * leaves none of them in the store.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COMMAND_OUTPUT_DELTA_MS, type AgentEvent } from '@bastion/protocol';
import { waitFor } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { AgentDriver, expectCanaryNowhere, readUntilRunEnd, toolResultOf } from './agent-stream.js';
import { processesWith } from './command-harness.js';

const KEY = 'sk-live-output-7c1e9a5b3d0f2468ace';
const REDACTED = "[redacted: Bastion's openai credential]";

let host: TempHost;

beforeAll(async () => {
  host = await startTempHost();
  expect(host.capabilities).toMatchObject({ sandbox: 'srt', shell: true });
  writeFileSync(
    join(host.userData, 'auth.json'),
    JSON.stringify({ version: 1, entries: { openai: { type: 'api', key: KEY } } }),
    { mode: 0o600 },
  );
  writeFileSync(join(host.workspace, 'leak.txt'), `${KEY}\n`);
}, 60_000);

afterAll(async () => {
  await host?.stop();
});

it('streams a command’s output while it runs (it waits for the test to see its first line), the held key redacted, and drops the deltas from the store when the run ends', async () => {
  const agent = await AgentDriver.create(host, { workspace: host.workspace, mode: 'auto', consent_by: 'e2e-tester' });
  expect(agent.session.mode).toBe('auto');
  // The command goes on only once the file `go` exists, which the test makes on seeing its first line.
  const script = 'cat leak.txt; echo first; while [ ! -e go ]; do sleep 0.05; done; echo second >&2';
  const started = await host.client.request('POST', '/agent/run', {
    session_id: agent.session.id,
    message: `$ sh -c '${script}'`,
  });
  expect(started.status).toBe(202);
  let live = '';
  const read = await readUntilRunEnd(host, agent.session.id, 0, (event: AgentEvent) => {
    if (event.type !== 'tool-output-delta') return;
    live += event.text;
    if (live.includes('first\n')) writeFileSync(join(host.workspace, 'go'), '');
  });

  const deltas = read.events.filter((event) => event.type === 'tool-output-delta');
  const resultAt = read.events.findIndex((event) => event.type === 'tool-result');
  expect(deltas.length).toBeGreaterThan(0);
  expect(read.events.findIndex((event) => event.type === 'tool-output-delta')).toBeLessThan(resultAt);
  expect(deltas.map((event) => [event.stream, event.text].join(':')).join('')).toBe(
    `stdout:${REDACTED}\nfirst\nstderr:second\n`,
  );
  expect(toolResultOf({ status: 202, body: null, ...read }).output).toMatchObject({
    exit_code: 0,
    stdout: `${REDACTED}\nfirst\n`,
    stderr: 'second\n',
  });
  expectCanaryNowhere(host, read.raw, KEY);

  const stored = await host.client.request<{ events: { event: AgentEvent }[] }>(
    'GET',
    `/sessions/${agent.session.id}/events?limit=200`,
  );
  expect(stored.status).toBe(200);
  expect(stored.body.events.map(({ event }) => event.type)).toContain('tool-result');
  expect(stored.body.events.filter(({ event }) => event.type === 'tool-output-delta')).toEqual([]);
  for (const file of ['sessions.db', 'sessions.db-wal'].filter((name) => existsSync(join(host.userData, name))))
    expect(readFileSync(join(host.userData, file)).toString('latin1')).not.toContain(KEY);
}, 60_000);

it('Stop while a command prints: no output event comes after the run’s end, and none is left in the store', async () => {
  const agent = await AgentDriver.create(host, { workspace: host.workspace, mode: 'auto', consent_by: 'e2e-tester' });
  const marker = `tick-${process.pid}-${Date.now()}`;
  const started = await host.client.request('POST', '/agent/run', {
    session_id: agent.session.id,
    message: `$ sh -c 'while true; do echo ${marker}; sleep 0.01; done'`,
  });
  expect(started.status).toBe(202);
  let aborting: Promise<unknown> | undefined;
  const read = await readUntilRunEnd(host, agent.session.id, 0, (event) => {
    if (event.type === 'tool-output-delta' && aborting === undefined)
      aborting = host.client.request('POST', '/agent/abort', { session_id: agent.session.id });
  });
  expect(await aborting).toMatchObject({ status: 200 });
  expect(read.events.at(-1)).toMatchObject({ type: 'run-error', code: 'RUN_ABORTED' });
  await waitFor(() => processesWith(marker).length === 0, 20_000, 'the aborted command to end');
  // The command's last output reaches the daemon as it ends; give a late event time to be written.
  await new Promise((resolve) => setTimeout(resolve, 4 * COMMAND_OUTPUT_DELTA_MS));
  const stored = await host.client.request<{ events: { event: AgentEvent }[] }>(
    'GET',
    `/sessions/${agent.session.id}/events?limit=200`,
  );
  expect(stored.body.events.map(({ event }) => event.type)).toContain('run-error');
  expect(stored.body.events.filter(({ event }) => event.type === 'tool-output-delta')).toEqual([]);
}, 60_000);
