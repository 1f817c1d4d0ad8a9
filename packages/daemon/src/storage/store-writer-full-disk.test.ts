/**
 * The one writer of sessions.db on a disk that fills while a group of events is open (a real
 * tmpfs filled to ENOSPC; mounting needs root, elsewhere the suite is skipped, saying so): a read
 * still answers, from what is committed, while the group is rolled back and its listeners told;
 * once space is back, the store writes again.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canMount, fillDisk, mountTmpfs, type Tmpfs } from '../../../../test/support/tmpfs.js';
import { newSession } from '../../test/support/temp-store.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { SessionStore } from './session-store.js';

let disk: Tmpfs | undefined;
let db: SqliteDatabase | undefined;
afterEach(() => {
  db?.close();
  disk?.unmount();
  db = disk = undefined;
});

describe.skipIf(!canMount)(
  'a read while a group of events cannot commit (skipped unless root: mounting a tmpfs needs root)',
  () => {
    it('answers from what is committed, the group rolled back and its listeners told; after space is freed, writes work', () => {
      disk = mountTmpfs('8m');
      db = openDatabase(join(disk.path, 'sessions.db'));
      const store = new SessionStore(db);
      const session = newSession(store);
      const { runId } = store.runs.start(session.id, { provider: 'demo', model: 'demo' });
      const committed = store.runs.eventsAfter(session.id, 0, 100);
      const lost: unknown[] = [];
      store.runs.onGroupLost((error) => lost.push(error));
      // An open group of events large enough that committing it needs room the disk no longer has.
      for (let index = 0; index < 200; index += 1) {
        store.runs.appendEvent(session.id, { type: 'text-delta', run_id: runId, text: 'x'.repeat(2000) });
      }
      const filler = join(disk.path, 'filler');
      fillDisk(filler);
      expect(store.runs.eventsAfter(session.id, 0, 100)).toEqual(committed);
      expect(lost).toHaveLength(1);
      expect((lost[0] as { code?: string }).code).toBe('SQLITE_FULL');
      rmSync(filler);
      const event = store.runs.appendEvent(session.id, { type: 'text-delta', run_id: runId, text: 'after' });
      expect(store.runs.eventsAfter(session.id, 0, 100).map((entry) => entry.id)).toEqual([
        ...committed.map((entry) => entry.id),
        event.id,
      ]);
    });
  },
);
