/**
 * A write_file or edit_file call waiting for approval is preceded by the diff it would make to the file
 * as it is (a tool-preview event), worked out by the daemon as the tool does: an overwrite shows the lines
 * it replaces, not a new file; Bastion's own credentials in the file are redacted from it; a call
 * the tool would refuse, or a file that is not text, carries none. Nothing is written before the answer,
 * and a yes writes only over the file the diff was worked out against (`fs-race`: one changed, made
 * or kept across a daemon restart before the answer is left as it became).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, Session } from '@bastion/protocol';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { scriptedProvider } from './support/scripted-provider.js';
import { describeAttack } from '../../../test/support/attack.js';

const HELD = 'sk-test-held-credential-0123456789abcdef';
const { provider, turns } = scriptedProvider();
let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  turns.length = 0;
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

/**
 * One call played in a session that asks before each file edit, up to its approval request:
 * `preview` is the diff of the tool-preview event for that call, which must come before the request.
 */
async function approvalRequest(
  call: { tool: string; input: Record<string, unknown> },
  files: Record<string, string | Buffer>,
): Promise<{
  preview: string | undefined;
  workspace: string;
  sessionId: string;
  /** Answer the approval; the call's result. */
  answer: (approved: boolean) => Promise<Extract<AgentEvent, { type: 'tool-result' }>>;
}> {
  daemon = await startInProcessDaemon({
    providers: [provider],
    heldSecrets: () => Promise.resolve([{ kind: 'openai', value: HELD }]),
  });
  for (const [path, content] of Object.entries(files)) writeFileSync(join(daemon.workspace, path), content);
  const session = (
    await daemon.request<Session>('POST', '/sessions', {
      provider: 'mock',
      model: 'scripted',
      workspace: daemon.workspace,
      ask_before_writes: true,
    })
  ).body;
  turns.push(call);
  const ending = daemon.collect(session.id, (event) => event.type === 'run-finished' || event.type === 'run-error');
  expect((await daemon.request('POST', '/agent/run', { session_id: session.id, message: 'go' })).status).toBe(202);
  const events = await ending;
  expect(events.at(-1)?.event).toMatchObject({ type: 'run-finished', finish_reason: 'approval-pending' });
  const types = events.map((e) => e.event.type);
  const request = events.find((e) => e.event.type === 'tool-approval-request')?.event;
  if (request?.type !== 'tool-approval-request') throw new Error('no approval request');
  const previews = events.flatMap(({ event }) =>
    event.type === 'tool-preview' && event.tool_call_id === request.tool_call_id ? [event.preview_diff] : [],
  );
  expect(previews.length).toBeLessThanOrEqual(1);
  if (previews.length === 1) expect(types.indexOf('tool-preview')).toBeLessThan(types.indexOf('tool-approval-request'));
  return {
    preview: previews[0],
    workspace: daemon.workspace,
    sessionId: session.id,
    answer: async (approved) => {
      const after = daemon!.runtime.store.runs.eventsAfter(session.id, 0, 100_000).at(-1)?.id ?? 0;
      const rest = daemon!.collect(
        session.id,
        (event) => event.type === 'run-finished' || event.type === 'run-error',
        after,
      );
      const approval_answer = { approval_id: request.approval_id, tool_call_id: request.tool_call_id, approved };
      expect((await daemon!.request('POST', '/agent/run', { session_id: session.id, approval_answer })).status).toBe(
        202,
      );
      const result = (await rest).find(({ event }) => event.type === 'tool-result')?.event;
      if (result?.type !== 'tool-result') throw new Error('no tool result');
      return result;
    },
  };
}

describe('the diff an approval shows', () => {
  it('write_file over an existing file: the lines it replaces, against the file as it is; nothing written yet', async () => {
    const { preview, workspace } = await approvalRequest(
      { tool: 'write_file', input: { path: 'keep.txt', content: 'one\nTWO\nthree\n' } },
      { 'keep.txt': 'one\ntwo\nthree\n' },
    );
    expect(preview?.split('\n')).toEqual([
      '--- a/keep.txt',
      '+++ b/keep.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '',
    ]);
    expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('write_file of a new file: every line added, from /dev/null', async () => {
    const { preview } = await approvalRequest(
      { tool: 'write_file', input: { path: 'new.txt', content: 'hello\n' } },
      {},
    );
    expect(preview).toBe('--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,1 @@\n+hello\n');
  });

  it('edit_file: the edit applied to the file as it is, and a held credential in its lines redacted', async () => {
    const { preview, sessionId } = await approvalRequest(
      { tool: 'edit_file', input: { path: 'config.ts', old_string: 'port = 1', new_string: 'port = 2' } },
      { 'config.ts': `key = "${HELD}"\nport = 1\n` },
    );
    expect(preview).toContain('-port = 1\n+port = 2\n');
    expect(preview).toContain(' key = "');
    expect(preview).not.toContain(HELD);
    // Nor is it in the event as stored, which a reload replays.
    const stored = daemon!.runtime.store.runs.eventsAfter(sessionId, 0, 100_000);
    expect(stored.some(({ event: stored }) => stored.type === 'tool-preview')).toBe(true);
    expect(JSON.stringify(stored)).not.toContain(HELD);
  });

  it('carries no diff for an edit the tool would refuse (old_string not in the file) or a file that is not text', async () => {
    const refused = await approvalRequest(
      { tool: 'edit_file', input: { path: 'a.txt', old_string: 'absent', new_string: 'x' } },
      { 'a.txt': 'present\n' },
    );
    expect(refused.preview).toBeUndefined();
    await daemon?.stop();
    daemon?.cleanup();
    const binary = await approvalRequest(
      { tool: 'write_file', input: { path: 'b.bin', content: 'text now\n' } },
      { 'b.bin': Buffer.from([0, 1, 2, 0]) },
    );
    expect(binary.preview).toBeUndefined();
  });
});

describeAttack('fs-race', 'a file changed between the question about a write and its answer', () => {
  it('write_file approved after the file changed: refused FS_CHANGED_SINCE_SHOWN by the host, the file keeps the bytes it changed to', async () => {
    const { answer, workspace } = await approvalRequest(
      { tool: 'write_file', input: { path: 'keep.txt', content: 'approved\n' } },
      { 'keep.txt': 'shown\n' },
    );
    writeFileSync(join(workspace, 'keep.txt'), 'edited while asked\n');
    const result = await answer(true);
    expect(result).toMatchObject({ is_error: true, output: { ok: false, code: 'FS_CHANGED_SINCE_SHOWN' } });
    expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('edited while asked\n');
  });

  it('edit_file approved after the file changed where the edit still applies: refused, the file keeps its bytes; unchanged, the same edit is made', async () => {
    const edit = { tool: 'edit_file', input: { path: 'config.ts', old_string: 'port = 1', new_string: 'port = 2' } };
    const changed = await approvalRequest(edit, { 'config.ts': 'port = 1\n' });
    writeFileSync(join(changed.workspace, 'config.ts'), 'host = "x"\nport = 1\n');
    expect(await changed.answer(true)).toMatchObject({ is_error: true, output: { code: 'FS_CHANGED_SINCE_SHOWN' } });
    expect(readFileSync(join(changed.workspace, 'config.ts'), 'utf8')).toBe('host = "x"\nport = 1\n');
    await daemon?.stop();
    daemon?.cleanup();

    const unchanged = await approvalRequest(edit, { 'config.ts': 'port = 1\n' });
    expect(await unchanged.answer(true)).toMatchObject({ is_error: false, output: { replacements: 1 } });
    expect(readFileSync(join(unchanged.workspace, 'config.ts'), 'utf8')).toBe('port = 2\n');
  });

  it('the file a question showed is kept across a daemon restart: approved after the restart over a changed file, refused', async () => {
    const { answer, workspace } = await approvalRequest(
      { tool: 'write_file', input: { path: 'keep.txt', content: 'approved\n' } },
      { 'keep.txt': 'shown\n' },
    );
    const root = daemon!.root;
    await daemon!.stop();
    daemon = await startInProcessDaemon({
      providers: [provider],
      heldSecrets: () => Promise.resolve([{ kind: 'openai', value: HELD }]),
      root,
    });
    writeFileSync(join(workspace, 'keep.txt'), 'edited while the daemon was down\n');
    expect(await answer(true)).toMatchObject({ is_error: true, output: { code: 'FS_CHANGED_SINCE_SHOWN' } });
    expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('edited while the daemon was down\n');
  });

  it('write_file of a new file approved after a file of that name appeared: refused, the file that appeared stays', async () => {
    const { answer, workspace } = await approvalRequest(
      { tool: 'write_file', input: { path: 'new.txt', content: 'approved\n' } },
      {},
    );
    writeFileSync(join(workspace, 'new.txt'), 'appeared\n');
    expect(await answer(true)).toMatchObject({ is_error: true, output: { code: 'FS_CHANGED_SINCE_SHOWN' } });
    expect(readFileSync(join(workspace, 'new.txt'), 'utf8')).toBe('appeared\n');
  });
});
