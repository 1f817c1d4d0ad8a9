/**
 * The agent's context on the real host and sidecar, against the scripted loopback endpoint (every
 * model byte through the host-routed transport): the system prompt with the project's
 * instructions, the write guard on instruction files, token usage per run and session, and
 * retries of a rate-limited provider. No request leaves loopback.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INSTRUCTIONS_MAX_FILE_BYTES, PROVIDER_MAX_ATTEMPTS, type AgentEvent, type Session } from '@bastion/protocol';
import { approvalRequestOf } from '../commands/agent-stream.js';
import { scriptedWorlds } from '../support/scripted-agent.js';
import { SCRIPTED_CACHED_TOKENS, SCRIPTED_COMPLETION_TOKENS } from '../support/scripted-chat-endpoint.js';

const worlds = scriptedWorlds('sk-context-test-key');
afterEach(() => worlds.stop());

describe('project instructions', () => {
  it('the root AGENTS.md, and the nested one of a directory the agent read in, reach the system prompt, bounded', async () => {
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
  it('run-finished carries the usage summed over its steps, and GET /sessions/:id the session total', async () => {
    const {
      agent,
      host: h,
      endpoint,
    } = await worlds.start([
      { kind: 'tool-call', name: 'list_dir', input: { path: '.' } },
      { kind: 'text', pieces: ['listed'] },
      { kind: 'text', pieces: ['again'] },
    ]);
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
    });
    const session = await h.client.request<Session>('GET', `/sessions/${agent.session.id}`);
    expect(session.body.usage).toEqual({
      input_tokens: a + b + c,
      output_tokens: 3 * SCRIPTED_COMPLETION_TOKENS,
      cached_input_tokens: 3 * SCRIPTED_CACHED_TOKENS,
    });
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
      message: 'the provider refused: Too busy [2J right now',
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
