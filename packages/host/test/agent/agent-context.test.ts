/**
 * The agent's context on the real host and sidecar, against the scripted loopback endpoint (every
 * model byte through the host-routed transport): the system prompt with the project's
 * instructions, and the write guard on instruction files. No request leaves loopback.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INSTRUCTIONS_MAX_FILE_BYTES } from '@bastion/protocol';
import { approvalRequestOf } from '../commands/agent-stream.js';
import { scriptedWorlds } from '../support/scripted-agent.js';

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
