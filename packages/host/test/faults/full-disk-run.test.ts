/**
 * The data disk fills while Bastion runs, end to end: the real host (srt posture), the real
 * sidecar, the demo model and run_command, with userData on a real tmpfs that the test fills to
 * ENOSPC while a run is in progress. The run ends with `run-error STORAGE_FULL` (recorded, thanks
 * to the storage reserve), write requests get 507 STORAGE_FULL, the sidecar never dies, and once
 * space is freed the same processes serve new sessions and runs with every earlier row intact.
 * Mounting needs root; elsewhere the suite is skipped, saying so.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Session } from '@bastion/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canMount, fillDisk, mountTmpfs, type Tmpfs } from '../../../../test/support/tmpfs.js';
import { AgentDriver } from '../commands/agent-stream.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';

const FULL = { code: 'STORAGE_FULL', message: "the disk holding Bastion's data is full; free some space and retry" };

/** The ids of every message, event and run of `sessionId`, read from sessions.db itself. */
function storedRows(userData: string, sessionId: string): { messages: string[]; events: number[]; runs: string[] } {
  const db = new Database(join(userData, 'sessions.db'), { readonly: true });
  try {
    const column = <T>(sql: string) =>
      db
        .prepare<[string], { v: T }>(sql)
        .all(sessionId)
        .map((row) => row.v);
    return {
      messages: column<string>('SELECT id AS v FROM messages WHERE session_id = ? ORDER BY seq'),
      events: column<number>('SELECT id AS v FROM message_parts WHERE session_id = ? ORDER BY id'),
      runs: column<string>('SELECT id AS v FROM runs WHERE session_id = ? ORDER BY started_at'),
    };
  } finally {
    db.close();
  }
}

describe.skipIf(!canMount)(
  'a data disk that fills while a run is in progress (skipped unless root: mounting a tmpfs needs root)',
  () => {
    let disk: Tmpfs | undefined;
    let host: TempHost | undefined;
    beforeAll(async () => {
      disk = mountTmpfs('24m');
      host = await startTempHost({ userData: join(disk.path, 'home') });
    });
    afterAll(async () => {
      await host?.stop();
      disk?.unmount();
    });

    it('ends the run with run-error STORAGE_FULL, answers writes 507 STORAGE_FULL, and after space is freed works on without a restart, losing nothing', async () => {
      if (!host || !disk) throw new Error('not set up');
      expect(host.capabilities).toMatchObject({ sandbox: 'srt', shell: true });
      const sidecarPid = host.supervisor.current?.pid;
      const agent = await AgentDriver.create(host, {
        workspace: host.workspace,
        mode: 'auto',
        consent_by: 'full-disk test',
      });
      const first = await agent.say('ls');
      expect(first.events.at(-1)).toMatchObject({ type: 'run-finished' });
      const before = storedRows(host.userData, agent.session.id);

      // In progress when the disk fills: the command prints ~350 KB after a pause.
      const started = await host.client.request('POST', '/agent/run', {
        session_id: agent.session.id,
        message: '$ sh -c "sleep 1; seq 1 60000"',
      });
      expect(started.status).toBe(202);
      const filler = join(disk.path, 'filler');
      fillDisk(filler);
      const ended = await agent.readToEnd();
      expect(ended.events.at(-1)).toEqual({ type: 'run-error', run_id: expect.any(String) as string, ...FULL });
      const session = await host.client.request<Session>('GET', `/sessions/${agent.session.id}`);
      expect(session.body.last_run).toMatchObject({ status: 'error' });

      // Still full (whatever the run gave back is taken again): writes are refused with 507, reads work.
      fillDisk(filler, 'a');
      const created = await host.client.request('POST', '/sessions', { provider: 'demo', model: 'demo' });
      expect(created).toEqual({ status: 507, body: FULL });
      const key = await host.client.request('POST', '/secrets/set', {
        provider: 'openai',
        key: 'sk-full-disk-0123456789',
      });
      expect(key).toEqual({ status: 507, body: FULL });
      expect((await host.client.request('GET', `/sessions/${agent.session.id}/messages`)).status).toBe(200);

      // Space is back: the same sidecar serves new sessions and runs.
      rmSync(filler);
      const again = await AgentDriver.create(host, { workspace: host.workspace });
      const after = await again.say('ls');
      expect(after.events.at(-1)).toMatchObject({ type: 'run-finished' });
      expect((await agent.say('ls')).events.at(-1)).toMatchObject({ type: 'run-finished' });
      expect(host.supervisor.current?.pid).toBe(sidecarPid);
      expect(host.records.filter((record) => record.event === 'sidecar.exited')).toEqual([]);

      // Nothing written before the disk filled is gone, and the failed run is recorded as ended.
      const now = storedRows(host.userData, agent.session.id);
      for (const kind of ['messages', 'events', 'runs'] as const) {
        expect(now[kind].slice(0, before[kind].length)).toEqual(before[kind]);
      }
      expect(now.runs).toHaveLength(3);
    });
  },
);
