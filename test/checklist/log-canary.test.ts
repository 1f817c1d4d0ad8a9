/**
 * Reviewer checklist 5 — logs elide content. One end-to-end run on the real host (srt posture,
 * real sidecar, real transport to a loopback OpenAI-compatible endpoint) carries a recognisable
 * canary for each secret or piece of content: the daemon password, an API key, the user's
 * message, a tool argument, the command's output and the model's output. Every log file under
 * userData/logs, every log record and everything the host wrote to stderr (verbose, so every
 * record is echoed there) is then scanned: zero hits. The same scan finds each canary where it
 * legitimately lives (the transcript, auth.json, the endpoint's request), so it can fail.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../../packages/host/test/support/temp-host.js';
import {
  makeTempDir,
  defineScriptedProvider,
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type ScriptedEndpoint,
} from '@bastion/test-support';
import { bridgeHeaders, rawRequest } from '../../packages/host/test/support/raw-request.js';
import { AgentDriver, textOf, toolResultOf, type RunOutcome } from '../../packages/host/test/commands/agent-stream.js';

const tag = () => randomBytes(6).toString('hex');
const CANARIES = {
  apiKey: `sk-canary-apikey-${tag()}`,
  message: `canary-message-${tag()}`,
  toolArgument: `canary-argument-${tag()}.txt`,
  commandOutput: `canary-command-output-${tag()}`,
  modelOutput: `canary-model-output-${tag()}`,
};

/** Every place a canary is looked for, by name. */
function hits(haystacks: Record<string, string>, canary: string): string[] {
  return Object.entries(haystacks)
    .filter(([, text]) => text.includes(canary))
    .map(([name]) => name);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let host: TempHost;
let endpoint: ScriptedEndpoint;
let password: string;
let outcome: RunOutcome;
let transcript: string;
let authJson: string;
let logs: Record<string, string>;
let stderr = '';
let home: string;

beforeAll(async () => {
  endpoint = await startScriptedEndpoint([
    { kind: 'tool-call', name: 'run_command', input: { command: 'cat', args: [CANARIES.toolArgument] } },
    { kind: 'text', pieces: ['The file says: ', CANARIES.modelOutput, '.'] },
  ]);
  home = makeTempDir('bastion-canary-home-');
  mkdirSync(join(home, '.ssh'));
  const write = process.stderr.write.bind(process.stderr);
  // The host writes its stderr in-process: capture every byte of it for the scan.
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  };
  try {
    host = await startTempHost({ home, allowEndpoints: [endpoint.baseUrl], verbose: true, stderr: 'warnings' });
    expect(host.capabilities).toMatchObject({ sandbox: 'srt', shell: true });
    password = host.supervisor.current?.password ?? '';
    writeFileSync(join(host.workspace, CANARIES.toolArgument), `${CANARIES.commandOutput}\n`);

    await defineScriptedProvider(host, endpoint, CANARIES.apiKey);
    const agent = await AgentDriver.create(host, {
      provider: 'local',
      model: SCRIPTED_MODEL,
      workspace: host.workspace,
    });
    outcome = await agent.say(`Please read the notes, ${CANARIES.message}`);
    const messages = await host.client.request<{ messages: Message[] }>(
      'GET',
      `/sessions/${agent.session.id}/messages`,
    );
    transcript = JSON.stringify(messages.body);
    authJson = readFileSync(join(host.userData, 'auth.json'), 'utf8');
    // The password is the one the perimeter takes right now.
    expect((await rawRequest({ port: host.socketHost.port, headers: bridgeHeaders(host, password) })).status).toBe(200);
    // Read before stop: the temporary userData goes with the host.
    logs = Object.fromEntries(
      filesUnder(join(host.userData, 'logs')).map((path) => [
        path.slice(host.userData.length),
        readFileSync(path, 'utf8'),
      ]),
    );
  } finally {
    await host?.stop().catch(() => undefined);
    process.stderr.write = write;
  }
  logs['log records (tap)'] = JSON.stringify(host.records);
  logs['host stderr'] = stderr;
}, 120_000);

afterAll(async () => {
  await endpoint?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('checklist 5: no secret or content in any log', () => {
  it('the run really carried every canary (tool call, command output, model output, key on the wire)', () => {
    expect(outcome.events.at(-1)?.type).toBe('run-finished');
    expect(toolResultOf(outcome).output).toMatchObject({ exit_code: 0 });
    expect(JSON.stringify(toolResultOf(outcome).output)).toContain(CANARIES.commandOutput);
    expect(textOf(outcome)).toContain(CANARIES.modelOutput);
    expect(endpoint.seen[0]?.authorization).toBe(`Bearer ${CANARIES.apiKey}`);
    expect(JSON.stringify(endpoint.seen[1]?.body.messages)).toContain(CANARIES.commandOutput);
  });

  it('the scan finds each canary where it legitimately lives (so it can fail)', () => {
    for (const canary of [CANARIES.message, CANARIES.toolArgument, CANARIES.commandOutput, CANARIES.modelOutput])
      expect(hits({ transcript }, canary)).toEqual(['transcript']);
    expect(hits({ 'auth.json': authJson }, CANARIES.apiKey)).toEqual(['auth.json']);
    expect(password).toMatch(/^.{16,}$/);
  });

  it('the logs are not empty: host.log, the records and stderr hold the run', () => {
    expect(logs['/logs/host.log']).toContain('host.ready');
    expect(host.records.length).toBeGreaterThan(10);
    expect(stderr).toContain('host.ready');
  });

  it.each(Object.keys(CANARIES))('the %s canary is in no log file, no record and no stderr', (name) => {
    expect(hits(logs, CANARIES[name as keyof typeof CANARIES])).toEqual([]);
  });

  it('the daemon password is in no log file, no record and no stderr', () => {
    expect(hits(logs, password)).toEqual([]);
    expect(hits(logs, Buffer.from(`bastion:${password}`).toString('base64'))).toEqual([]);
  });
});
