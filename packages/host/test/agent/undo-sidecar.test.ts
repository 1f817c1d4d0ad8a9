/**
 * Undo on the real host and sidecar (its real SQLite in userData), against the scripted loopback
 * endpoint: a run's write_file/edit_file changes put back byte for byte (a binary file among
 * them), the file it created removed, what its command made left and counted, the model told on
 * its next turn; and a file changed since the run refusing the undo with every file untouched.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentUndoResponse } from '@bastion/protocol';
import { scriptedWorlds } from '../support/scripted-agent.js';

const worlds = scriptedWorlds('sk-undo-test-key');
afterEach(() => worlds.stop());

const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0x0d, 0x0a, 0x1a, 0, 0x80]);

describe('undo through the real sidecar', () => {
  it('restores the binary and edited files exactly, removes the created one, leaves the command’s file and counts it', async () => {
    const { agent, host, endpoint } = await worlds.start(
      [
        { kind: 'tool-call', name: 'write_file', input: { path: 'image.png', content: 'not an image' } },
        { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'beta', new_string: 'gamma' } },
        { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made by the run\n' } },
        { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['by-command.txt'] } },
        { kind: 'text', pieces: ['done'] },
        { kind: 'text', pieces: ['noted'] },
      ],
      { mode: 'auto', consent_by: 'test' },
    );
    const ws = host.workspace;
    writeFileSync(join(ws, 'image.png'), BINARY);
    writeFileSync(join(ws, 'notes.md'), 'alpha\nbeta\n');
    const run = await agent.say('change things');
    expect(run.events.at(-1)?.type).toBe('run-finished');
    const runId = (run.body as { run_id: string }).run_id;
    expect(readFileSync(join(ws, 'notes.md'), 'utf8')).toBe('alpha\ngamma\n');
    const shell = host.capabilities.shell;
    expect(existsSync(join(ws, 'by-command.txt'))).toBe(shell);

    const undone = await host.client.request<AgentUndoResponse>('POST', '/agent/undo', {
      session_id: agent.session.id,
      run_id: runId,
    });
    expect(undone.status).toBe(200);
    expect(undone.body).toEqual({
      run_id: runId,
      dry_run: false,
      commands: shell ? 1 : 0,
      files: [
        { path: 'image.png', action: 'restore' },
        { path: 'notes.md', action: 'restore' },
        { path: 'made.txt', action: 'remove' },
      ],
    });
    expect(readFileSync(join(ws, 'image.png')).equals(BINARY)).toBe(true);
    expect(readFileSync(join(ws, 'notes.md'), 'utf8')).toBe('alpha\nbeta\n');
    expect(existsSync(join(ws, 'made.txt'))).toBe(false);
    // Undo never claims a command's change: the file it made is still there.
    expect(existsSync(join(ws, 'by-command.txt'))).toBe(shell);

    await agent.say('and now?');
    const note = JSON.stringify(endpoint.seen.at(-1)?.body.messages);
    expect(note).toContain('[Bastion] The user undid the changes of an earlier run');
    expect(note).toContain('Removed (that run created them): made.txt.');
    if (shell) expect(note).toContain('What its commands changed was not undone.');
  });

  it('refuses with UNDO_CONFLICT when a file changed since the run, and every file keeps its bytes', async () => {
    const { agent, host } = await worlds.start([
      { kind: 'tool-call', name: 'write_file', input: { path: 'a.txt', content: 'a by run' } },
      { kind: 'tool-call', name: 'write_file', input: { path: 'b.txt', content: 'b by run' } },
      { kind: 'text', pieces: ['done'] },
    ]);
    const ws = host.workspace;
    writeFileSync(join(ws, 'a.txt'), 'a before');
    const run = await agent.say('write');
    const runId = (run.body as { run_id: string }).run_id;
    writeFileSync(join(ws, 'b.txt'), 'b by a person');
    const refused = await host.client.request('POST', '/agent/undo', { session_id: agent.session.id, run_id: runId });
    expect(refused).toMatchObject({
      status: 409,
      body: { code: 'UNDO_CONFLICT', message: 'nothing was undone: a file changed since the run (b.txt)' },
    });
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('a by run');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('b by a person');
  });
});
