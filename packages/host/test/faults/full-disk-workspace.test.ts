/**
 * The disk holding the workspace fills, end to end: the real host and sidecar, the scripted
 * loopback endpoint, the workspace on a real tmpfs the test fills to ENOSPC (mounting needs root;
 * elsewhere the suite is skipped, saying so). write_file answers FS_DISK_FULL naming the file and
 * the run goes on, leaving no folder it made for a new file; an undo stops at the file it cannot put back with FS_DISK_FULL (507), saying
 * the files before it were put back; each file keeps its bytes and no temp file is left; once
 * space is freed, undo again finishes and the session takes the next prompt. With userData's disk
 * full instead (sessions.db, SQLITE_FULL), an undo whose files are back says so (STORAGE_FULL)
 * and undo again records it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  defineScriptedProvider,
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type ScriptedEndpoint,
  type ScriptedTurn,
} from '@bastion/test-support';
import { canMount, fillDisk, mountTmpfs, type Tmpfs } from '../../../../test/support/tmpfs.js';
import { AgentDriver, toolResultOf } from '../commands/agent-stream.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';

/** notes.md before the run: larger than the room removing made.txt gives back. */
const NOTES = `alpha\nbeta\n${'x'.repeat(64 * 1024)}\n`;
const EDITED = NOTES.replace('beta', 'gamma');

let disk: Tmpfs | undefined;
let host: TempHost | undefined;
let endpoint: ScriptedEndpoint | undefined;

/** A host granted `workspace` and an agent on it in auto mode, its model the scripted `turns`. */
async function agentIn(workspace: string, turns: ScriptedTurn[]): Promise<AgentDriver> {
  endpoint = await startScriptedEndpoint(turns);
  host = await startTempHost({ allowEndpoints: [endpoint.baseUrl], workspaces: [workspace] });
  await defineScriptedProvider(host, endpoint, 'sk-full-disk-workspace-key');
  return AgentDriver.create(host, {
    provider: 'local',
    model: SCRIPTED_MODEL,
    workspace,
    mode: 'auto',
    consent_by: 'full-disk test',
  });
}
afterEach(async () => {
  await host?.stop();
  await endpoint?.close();
  disk?.unmount();
  disk = host = endpoint = undefined;
});

describe.skipIf(!canMount)(
  'a workspace on a disk that fills (skipped unless root: mounting a tmpfs needs root)',
  () => {
    it('write_file and undo answer FS_DISK_FULL with every file as it was and no temp file; after space is freed undo again finishes', async () => {
      disk = mountTmpfs('1m');
      const workspace = join(realpathSync(disk.path), 'workspace');
      mkdirSync(workspace);
      writeFileSync(join(workspace, 'notes.md'), NOTES);
      const agent = await agentIn(workspace, [
        { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made by the run\n' } },
        { kind: 'tool-call', name: 'edit_file', input: { path: 'notes.md', old_string: 'beta', new_string: 'gamma' } },
        { kind: 'text', pieces: ['done'] },
        { kind: 'tool-call', name: 'write_file', input: { path: 'notes.md', content: 'overwritten\n' } },
        { kind: 'text', pieces: ['the disk is full'] },
        { kind: 'text', pieces: ['still here'] },
      ]);
      const run = await agent.say('change things');
      expect(run.events.at(-1)?.type).toBe('run-finished');
      const runId = (run.body as { run_id: string }).run_id;
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe(EDITED);

      const filler = join(disk.path, 'filler');
      fillDisk(filler);
      const refused = await agent.say('overwrite the notes');
      expect(toolResultOf(refused).output).toEqual({
        ok: false,
        code: 'FS_DISK_FULL',
        message: 'the disk holding notes.md is full: notes.md was left as it was; free some space and retry',
      });
      expect(refused.events.at(-1)?.type).toBe('run-finished');

      const undo = () => host!.client.request('POST', '/agent/undo', { session_id: agent.session.id, run_id: runId });
      const stopped = await undo();
      expect(stopped).toEqual({
        status: 507,
        body: {
          code: 'FS_DISK_FULL',
          message:
            'notes.md could not be put back: the disk holding it is full; the files before it were put back — free some space; undo again to finish',
        },
      });
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe(EDITED);
      expect(existsSync(join(workspace, 'made.txt'))).toBe(false);
      expect(readdirSync(workspace)).toEqual(['notes.md']);

      rmSync(filler);
      const finished = await undo();
      expect(finished.status).toBe(200);
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe(NOTES);
      expect(readdirSync(workspace)).toEqual(['notes.md']);
      expect((await undo()).body).toMatchObject({ code: 'UNDO_ALREADY_DONE' });
      expect((await agent.say('are you there?')).events.at(-1)?.type).toBe('run-finished');
    });

    it('userData full when the undo is recorded: STORAGE_FULL saying the files were put back; after space is freed undo again records it', async () => {
      disk = mountTmpfs('24m');
      endpoint = await startScriptedEndpoint([
        { kind: 'tool-call', name: 'write_file', input: { path: 'made.txt', content: 'made by the run\n' } },
        { kind: 'text', pieces: ['done'] },
        { kind: 'text', pieces: ['still here'] },
      ]);
      host = await startTempHost({ allowEndpoints: [endpoint.baseUrl], userData: join(disk.path, 'home') });
      await defineScriptedProvider(host, endpoint, 'sk-full-disk-workspace-key');
      const agent = await AgentDriver.create(host, {
        provider: 'local',
        model: SCRIPTED_MODEL,
        workspace: host.workspace,
        mode: 'auto',
        consent_by: 'full-disk test',
      });
      const run = await agent.say('make a file');
      const runId = (run.body as { run_id: string }).run_id;
      expect(readdirSync(host.workspace)).toEqual(['made.txt']);

      // Removing a file needs no journal entry: the first write the full disk refuses is the record.
      const filler = join(disk.path, 'filler');
      fillDisk(filler);
      const undo = () => host!.client.request('POST', '/agent/undo', { session_id: agent.session.id, run_id: runId });
      expect(await undo()).toEqual({
        status: 507,
        body: {
          code: 'STORAGE_FULL',
          message:
            "the files were put back, but the undo could not be recorded: the disk holding Bastion's data is full — free some space; undo again to finish",
        },
      });
      expect(readdirSync(host.workspace)).toEqual([]);

      rmSync(filler);
      expect(await undo()).toMatchObject({ status: 200, body: { files: [{ path: 'made.txt', action: 'remove' }] } });
      expect((await undo()).body).toMatchObject({ code: 'UNDO_ALREADY_DONE' });
      expect((await agent.say('are you there?')).events.at(-1)?.type).toBe('run-finished');
    });

    it('write_file of a new nested path answers FS_DISK_FULL and leaves none of the folders it made, and the folder that was there', async () => {
      disk = mountTmpfs('1m');
      const workspace = join(realpathSync(disk.path), 'workspace');
      mkdirSync(join(workspace, 'src'), { recursive: true });
      writeFileSync(join(workspace, 'src', 'keep.txt'), 'kept');
      const agent = await agentIn(workspace, [
        { kind: 'tool-call', name: 'write_file', input: { path: 'src/a/b/new.txt', content: NOTES } },
        { kind: 'text', pieces: ['the disk is full'] },
      ]);
      fillDisk(join(disk.path, 'filler'));
      const refused = await agent.say('write it');
      expect(toolResultOf(refused).output).toMatchObject({ ok: false, code: 'FS_DISK_FULL' });
      expect(readdirSync(join(workspace, 'src'))).toEqual(['keep.txt']);
      expect(readdirSync(workspace)).toEqual(['src']);
    });
  },
);
