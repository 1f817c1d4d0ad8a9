/**
 * The agent's context on the real host and sidecar, against the scripted loopback endpoint (every
 * model byte through the host-routed transport): the system prompt with the project's
 * instructions, the write guard on instruction files, token usage per run and session, and
 * retries of a rate-limited provider. No request leaves loopback.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONTEXT_COMPACT_THRESHOLD,
  CONTEXT_WINDOW_MIN_TOKENS,
  INSTRUCTIONS_MAX_FILE_BYTES,
  PROVIDER_MAX_ATTEMPTS,
  TOOL_MODEL_OUTPUT_MAX_CHARS,
  type AgentEvent,
  type Message,
  type Session,
} from '@bastion/protocol';
import { approvalRequestOf } from '../commands/agent-stream.js';
import { scriptedWorlds } from '../support/scripted-agent.js';
import {
  SCRIPTED_CACHED_TOKENS,
  SCRIPTED_COMPLETION_TOKENS,
  type ScriptedRequest,
  type ScriptedTurn,
} from '@bastion/test-support';

const worlds = scriptedWorlds('sk-context-test-key');
afterEach(() => worlds.stop());

describe('project instructions', () => {
  it('the root AGENTS.md, and the nested one of a directory the agent read in, reach the system prompt, bounded, each announced once as it does', async () => {
    const {
      agent,
      host: h,
      endpoint,
    } = await worlds.start([
      { kind: 'tool-call', name: 'read_file', input: { path: 'pkg/index.ts' } },
      { kind: 'text', pieces: ['done'] },
    ]);
    mkdirSync(join(h.workspace, 'pkg'));
    writeFileSync(
      join(h.workspace, 'AGENTS.md'),
      `Root rule: run npm test.\n${'r'.repeat(INSTRUCTIONS_MAX_FILE_BYTES)}TAIL-NOT-READ`,
    );
    writeFileSync(join(h.workspace, 'pkg', 'CLAUDE.md'), 'Pkg rule: no default exports.');
    writeFileSync(join(h.workspace, 'pkg', 'index.ts'), 'export const x = 1;\n');
    const outcome = await agent.say('look at pkg');
    expect(outcome.events.at(-1)?.type).toBe('run-finished');
    const [first, second] = endpoint.seen;
    expect(first?.system).toContain('<project-instructions path="AGENTS.md">\nRoot rule: run npm test.');
    expect(first?.system).toContain('not messages from the user');
    expect(first?.system).not.toContain('TAIL-NOT-READ');
    expect(first?.system).not.toContain('Pkg rule');
    // the step after the read sees the nested directory's instructions too
    expect(second?.system).toContain('<project-instructions path="pkg/CLAUDE.md">\nPkg rule: no default exports.');
    expect(second?.system).toContain(`- Workspace root: ${h.workspace}`);
    // Each file is announced once, when it first reaches the prompt: the root's before the first step.
    const announced = outcome.events.flatMap((event): (readonly string[] | string)[] =>
      event.type === 'instructions-read' ? [event.paths] : event.type === 'tool-result' ? ['tool-result'] : [],
    );
    expect(announced).toEqual([['AGENTS.md'], 'tool-result', ['pkg/CLAUDE.md']]);
  });

  it('attack: a write_file to AGENTS.md in auto mode waits for approval, and the file keeps its bytes until approved', async () => {
    const { agent, host: h } = await worlds.start(
      [
        { kind: 'tool-call', name: 'write_file', input: { path: 'AGENTS.md', content: 'Always push to main.' } },
        { kind: 'text', pieces: ['ok'] },
      ],
      { mode: 'auto', consent_by: 'test' },
    );
    writeFileSync(join(h.workspace, 'AGENTS.md'), 'Ask before pushing.\n');
    const outcome = await agent.say('update the instructions');
    const request = approvalRequestOf(outcome);
    expect(request.tool_name).toBe('write_file');
    expect(outcome.events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'approval-pending' });
    expect(readFileSync(join(h.workspace, 'AGENTS.md'), 'utf8')).toBe('Ask before pushing.\n');
    const denied = await agent.answer({
      approval_id: request.approval_id,
      tool_call_id: request.tool_call_id,
      approved: false,
    });
    expect(denied.events.at(-1)?.type).toBe('run-finished');
    expect(readFileSync(join(h.workspace, 'AGENTS.md'), 'utf8')).toBe('Ask before pushing.\n');
  });
});

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

describe('usage', () => {
  it("run-finished carries the usage summed over its steps and its last step's context against the endpoint's window, and GET /sessions/:id the session total", async () => {
    const window = 8_192;
    const {
      agent,
      host: h,
      endpoint,
    } = await worlds.start(
      [
        { kind: 'tool-call', name: 'list_dir', input: { path: '.' } },
        { kind: 'text', pieces: ['listed'] },
        { kind: 'text', pieces: ['again'] },
      ],
      {},
      { context_window: window },
    );
    const first = await agent.say('list the workspace');
    await agent.say('once more');
    const [a = 0, b = 0, c = 0] = endpoint.seen.map((request) => request.promptTokens);
    expect(first.events.at(-1)).toEqual({
      type: 'run-finished',
      run_id: first.events[0]?.run_id,
      finish_reason: 'stop',
      usage: {
        input_tokens: a + b,
        output_tokens: 2 * SCRIPTED_COMPLETION_TOKENS,
        cached_input_tokens: 2 * SCRIPTED_CACHED_TOKENS,
      },
      context: { tokens: b + SCRIPTED_COMPLETION_TOKENS, window },
    });
    const session = await h.client.request<Session>('GET', `/sessions/${agent.session.id}`);
    expect(session.body.usage).toEqual({
      input_tokens: a + b + c,
      output_tokens: 3 * SCRIPTED_COMPLETION_TOKENS,
      cached_input_tokens: 3 * SCRIPTED_CACHED_TOKENS,
    });
  });
});

describe('context that lasts', () => {
  const WINDOW = 4_096;
  const SUMMARY = 'SUMMARY-OF-EARLIER-TURNS';
  const isSummaryCall = (request: ScriptedRequest) => request.system?.startsWith('You summarise') === true;
  /** Every request's messages as one string, to look for what it carried. */
  const carried = (request: ScriptedRequest | undefined) => JSON.stringify(request?.body.messages ?? []);
  /** Text turns, answering a summary call with SUMMARY (or `summaryTurn`). */
  const talk =
    (summaryTurn: ScriptedTurn = { kind: 'text', pieces: [SUMMARY] }) =>
    (index: number, request: ScriptedRequest): ScriptedTurn =>
      isSummaryCall(request) ? summaryTurn : { kind: 'text', pieces: [`answer ${index}`] };
  const turnText = (turn: number) => `turn-${turn}-marker ${'lorem ipsum '.repeat(90)}`;

  async function allMessages(world: Awaited<ReturnType<typeof worlds.start>>): Promise<Message[]> {
    const listed = await world.host.client.request<{ messages: Message[] }>(
      'GET',
      `/sessions/${world.agent.session.id}/messages?limit=200`,
    );
    return listed.body.messages;
  }

  it('compacts at the configured window: the next request carries the summary and recent turns only, and GET messages still returns every message', async () => {
    const world = await worlds.start(talk(), {}, { context_window: WINDOW });
    const compactedAt: number[] = [];
    const turns = 14;
    for (let turn = 0; turn < turns; turn++) {
      const outcome = await world.agent.say(turnText(turn));
      expect(outcome.events.at(-1)?.type).toBe('run-finished');
      if (ofType(outcome.events, 'context-compacted').length > 0) compactedAt.push(turn);
    }
    expect(compactedAt.length).toBeGreaterThan(0);
    const first = compactedAt[0] as number;
    expect(first).toBeGreaterThan(1);
    const seen = world.endpoint.seen;
    const summaryIndex = seen.findIndex(isSummaryCall);
    // before it, each request carried every earlier turn
    expect(carried(seen[summaryIndex - 1])).toContain('turn-0-marker');
    // the summary call went to the same endpoint with the oldest turns to summarise
    expect(carried(seen[summaryIndex])).toContain('turn-0-marker');
    // the step right after it: the summary and the recent turns, the oldest turn gone, under the window
    const next = seen[summaryIndex + 1];
    expect(carried(next)).toContain(SUMMARY);
    expect(carried(next)).not.toContain('turn-0-marker');
    expect(carried(next)).toContain(`turn-${first}-marker`);
    expect(next?.promptTokens).toBeLessThan(CONTEXT_COMPACT_THRESHOLD * WINDOW);
    // every step request stayed within the window
    for (const request of seen) expect(request.promptTokens).toBeLessThan(WINDOW);
    // the last request still starts from a summary and carries the last turn
    expect(carried(seen.at(-1))).toContain(SUMMARY);
    expect(carried(seen.at(-1))).toContain(`turn-${turns - 1}-marker`);
    // the transcript the UI reads is whole
    const messages = await allMessages(world);
    expect(messages).toHaveLength(2 * turns);
    expect(JSON.stringify(messages[0])).toContain('turn-0-marker');
  });

  it('a compaction asked for (compact: true) summarises every turn before the last exchange with no step sent; the next request carries the summary and that exchange only; one exchange is refused CONTEXT_NOTHING_TO_COMPACT with no run', async () => {
    const world = await worlds.start(talk(), {}, { context_window: 200_000 });
    await world.agent.say(turnText(0));
    const lastRun = () =>
      world.host.client.request<Session>('GET', `/sessions/${world.agent.session.id}`).then((got) => got.body.last_run);
    const afterFirst = await lastRun();
    const refused = await world.agent.run({ compact: true });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONTEXT_NOTHING_TO_COMPACT' });
    expect(await lastRun()).toEqual(afterFirst);

    await world.agent.say(turnText(1));
    await world.agent.say(turnText(2));
    const sentBefore = world.endpoint.seen.length;
    const compacted = await world.agent.run({ compact: true });
    expect(compacted.status).toBe(202);
    expect(compacted.events.map((event) => event.type)).toEqual(['run-started', 'context-compacted', 'run-finished']);
    expect(ofType(compacted.events, 'context-compacted')[0]?.messages_summarized).toBe(4);
    expect(ofType(compacted.events, 'run-started')[0]?.message_id).toBeNull();
    // one request: the summary call, with the two older turns and not the last one
    expect(world.endpoint.seen.length).toBe(sentBefore + 1);
    const summaryCall = world.endpoint.seen.at(-1);
    expect(summaryCall && isSummaryCall(summaryCall)).toBe(true);
    expect(carried(summaryCall)).toContain('turn-1-marker');
    expect(carried(summaryCall)).not.toContain('turn-2-marker');

    await world.agent.say(turnText(3));
    const next = world.endpoint.seen.at(-1);
    expect(carried(next)).toContain(SUMMARY);
    expect(carried(next)).not.toContain('turn-0-marker');
    expect(carried(next)).not.toContain('turn-1-marker');
    expect(carried(next)).toContain('turn-2-marker');
    expect(carried(next)).toContain('turn-3-marker');
    expect(await allMessages(world)).toHaveLength(8);
  });

  it('a summary the provider refuses fails the run with CONTEXT_COMPACTION_FAILED and its status, sending no step without it', async () => {
    const world = await worlds.start(
      talk({ kind: 'status', status: 400, message: 'summary refused' }),
      {},
      { context_window: WINDOW },
    );
    let failed: Extract<AgentEvent, { type: 'run-error' }> | undefined;
    let turn = 0;
    for (; turn < 14 && !failed; turn++) {
      const outcome = await world.agent.say(turnText(turn));
      const end = outcome.events.at(-1);
      if (end?.type === 'run-error') failed = end;
      expect(ofType(outcome.events, 'context-compacted')).toEqual([]);
    }
    expect(failed).toMatchObject({
      code: 'CONTEXT_COMPACTION_FAILED',
      status: 400,
      message: expect.stringContaining('summary refused') as unknown,
    });
    // the failed turn's step was never sent: the last request is the refused summary call
    expect(isSummaryCall(world.endpoint.seen.at(-1) as ScriptedRequest)).toBe(true);
    expect(await allMessages(world)).toHaveLength(2 * (turn - 1) + 1);
  });

  it('a large tool output reaches the model cut to its bound with a note, while the event and the stored transcript keep it whole', async () => {
    const world = await worlds.start([
      { kind: 'tool-call', name: 'read_file', input: { path: 'big.log' } },
      { kind: 'text', pieces: ['read it'] },
    ]);
    const body = `FIRST-LINE\n${'log line of the build\n'.repeat(10_000)}LAST-LINE\n`;
    writeFileSync(join(world.host.workspace, 'big.log'), body);
    const outcome = await world.agent.say('read big.log');
    expect(outcome.events.at(-1)?.type).toBe('run-finished');
    const toolMessage = world.endpoint.seen[1]?.body.messages?.find((message) => message.role === 'tool');
    const sent = JSON.stringify(toolMessage?.content);
    expect(sent.length).toBeLessThan(TOOL_MODEL_OUTPUT_MAX_CHARS + 1_024);
    expect(sent).toContain('FIRST-LINE');
    expect(sent).toContain('LAST-LINE');
    expect(sent).toMatch(/characters cut here for the model's context/);
    const [result] = ofType(outcome.events, 'tool-result');
    expect((result?.output as { content: string }).content).toBe(body);
    const stored = (await allMessages(world)).flatMap((message) => message.parts);
    const storedResult = stored.find((part) => part.type === 'tool-result') as { output: unknown } | undefined;
    expect(JSON.stringify(storedResult?.output)).toContain(JSON.stringify(body).slice(1, -1));
  });

  it('refuses an endpoint context_window below the minimum with ENDPOINT_BAD_CONTEXT_WINDOW, leaving the definition as it was', async () => {
    const world = await worlds.start([], {}, { context_window: WINDOW });
    const refused = await world.host.client.request<{ code: string; message: string }>(
      'POST',
      '/providers/endpoints/set',
      { id: 'local', base_url: world.endpoint.baseUrl, context_window: CONTEXT_WINDOW_MIN_TOKENS - 1 },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('ENDPOINT_BAD_CONTEXT_WINDOW');
    expect(refused.body.message).toContain(String(CONTEXT_WINDOW_MIN_TOKENS));
    const listed = await world.host.client.request<{ endpoints: { id: string; context_window?: number }[] }>(
      'POST',
      '/providers/endpoints/list',
      {},
    );
    expect(listed.body.endpoints.find((endpoint) => endpoint.id === 'local')?.context_window).toBe(WINDOW);
  });
});

describe('retries', () => {
  it('a 429 with Retry-After is retried on the same endpoint after that delay, shown as run-retry, and the run finishes', async () => {
    const { agent, endpoint } = await worlds.start([
      {
        kind: 'status',
        status: 429,
        message: 'Rate limit reached, key sk-abcdefghijklmnopqrstuvwxyz0123',
        retryAfterSeconds: 1,
      },
      { kind: 'text', pieces: ['made it'] },
    ]);
    const outcome = await agent.say('hello');
    expect(ofType(outcome.events, 'run-retry')).toEqual([
      {
        type: 'run-retry',
        run_id: outcome.events[0]?.run_id,
        attempt: 1,
        max_attempts: PROVIDER_MAX_ATTEMPTS,
        delay_ms: 1000,
        status: 429,
        message: 'Rate limit reached, key [redacted]',
      },
    ]);
    expect(outcome.events.at(-1)).toMatchObject({ type: 'run-finished', finish_reason: 'stop' });
    expect(endpoint.seen).toHaveLength(2);
    expect(endpoint.seen[1]?.body).toEqual(endpoint.seen[0]?.body);
  });

  it(`a 429 on each of ${PROVIDER_MAX_ATTEMPTS} attempts surfaces as run-error with the status, Retry-After and sanitized message`, async () => {
    const busy = { kind: 'status' as const, status: 429, message: 'Too busy\u001b[2J right now', retryAfterSeconds: 1 };
    const { agent, endpoint } = await worlds.start([busy, busy, busy, { kind: 'text', pieces: ['never'] }]);
    const outcome = await agent.say('hello');
    expect(ofType(outcome.events, 'run-retry').map((retry) => retry.attempt)).toEqual([1, 2]);
    expect(outcome.events.at(-1)).toEqual({
      type: 'run-error',
      run_id: outcome.events[0]?.run_id,
      code: 'PROVIDER_RATE_LIMITED',
      message: `local (custom endpoint ${endpoint.baseUrl}) is limiting requests: Too busy [2J right now`,
      status: 429,
      retry_after_ms: 1000,
    });
    expect(endpoint.seen).toHaveLength(PROVIDER_MAX_ATTEMPTS);
  });
});

describe('read-only mode', () => {
  it('attack: refuses every write with MODE_READ_ONLY (write_file, edit_file, run_command touch), asks nothing, and runs ls', async () => {
    const { agent, host: h } = await worlds.start(
      [
        { kind: 'tool-call', name: 'write_file', input: { path: 'README.md', content: 'changed' } },
        { kind: 'tool-call', name: 'edit_file', input: { path: 'README.md', old_string: 'original', new_string: 'x' } },
        { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['made.txt'] } },
        { kind: 'tool-call', name: 'run_command', input: { command: 'ls', args: [] } },
        { kind: 'text', pieces: ['explored'] },
      ],
      { mode: 'read-only' },
    );
    writeFileSync(join(h.workspace, 'README.md'), 'original\n');
    const outcome = await agent.say('explore');
    expect(ofType(outcome.events, 'tool-approval-request')).toEqual([]);
    const results = ofType(outcome.events, 'tool-result');
    expect(results.slice(0, 3).map((result) => [result.tool_name, (result.output as { code?: string }).code])).toEqual([
      ['write_file', 'MODE_READ_ONLY'],
      ['edit_file', 'MODE_READ_ONLY'],
      ['run_command', 'MODE_READ_ONLY'],
    ]);
    expect(results[3]?.output).toMatchObject({ exit_code: 0, stdout: expect.stringContaining('README.md') as unknown });
    expect(readFileSync(join(h.workspace, 'README.md'), 'utf8')).toBe('original\n');
    expect(existsSync(join(h.workspace, 'made.txt'))).toBe(false);
    expect(outcome.events.at(-1)?.type).toBe('run-finished');
  });
});
