import { describe, expect, it } from 'vitest';
import { AGENT_SEND_IDS_KEPT_PER_SESSION } from '@bastion/protocol';
import { newSession, useTempStore } from '../../test/support/temp-store.js';
import type { SqliteDatabase } from './database.js';
import { sentHash } from './send-ids.js';
import type { SessionStore } from './session-store.js';

let db: SqliteDatabase;
let store: SessionStore;
useTempStore((opened) => ({ db, store } = opened));

const hash = sentHash(['ls'], []);
const outcome = (n: number) => ({ runId: `run_${n}`, messageId: `msg_${n}` });
const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM send_ids').get() as { n: number }).n;

describe('send ids', () => {
  it('an id recorded in a session is found there with what its send made, and not in another session', () => {
    const one = newSession(store);
    const two = newSession(store);
    store.sendIds.record(one.id, 'id-of-the-first-send', hash, outcome(1));
    expect(store.sendIds.seen(one.id, 'id-of-the-first-send', hash)).toEqual({ ...outcome(1), same: true });
    expect(store.sendIds.seen(one.id, 'id-of-the-first-send', sentHash(['pwd'], []))?.same).toBe(false);
    expect(store.sendIds.seen(two.id, 'id-of-the-first-send', hash)).toBeUndefined();
  });

  it('an id recorded twice in one session is refused by the store (unique a session)', () => {
    const session = newSession(store);
    store.sendIds.record(session.id, 'id-of-the-first-send', hash, outcome(1));
    expect(() => store.sendIds.record(session.id, 'id-of-the-first-send', hash, outcome(2))).toThrow(/UNIQUE/);
    expect(rows()).toBe(1);
  });

  it(`keeps a session's latest ${AGENT_SEND_IDS_KEPT_PER_SESSION} ids: the oldest goes as one more comes, other sessions' stay`, () => {
    const session = newSession(store);
    const other = newSession(store);
    store.sendIds.record(other.id, 'id-in-another-session', hash, outcome(0));
    for (let n = 1; n <= AGENT_SEND_IDS_KEPT_PER_SESSION + 1; n += 1)
      store.sendIds.record(session.id, `id-number-${n}`, hash, outcome(n));
    expect(store.sendIds.seen(session.id, 'id-number-1', hash)).toBeUndefined();
    expect(store.sendIds.seen(session.id, 'id-number-2', hash)).toEqual({ ...outcome(2), same: true });
    expect(store.sendIds.seen(other.id, 'id-in-another-session', hash)?.same).toBe(true);
    expect(rows()).toBe(AGENT_SEND_IDS_KEPT_PER_SESSION + 1);
  });

  it('go with their session', () => {
    const session = newSession(store);
    store.sendIds.record(session.id, 'id-of-the-first-send', hash, outcome(1));
    store.sessions.delete(session.id);
    expect(rows()).toBe(0);
  });

  it('the hash tells images apart by their bytes, and bytes moved from one image to the next', () => {
    const a = Uint8Array.from([1, 2, 3]);
    const b = Uint8Array.from([4]);
    expect(sentHash(['x'], [a, b])).not.toBe(sentHash(['x'], [Uint8Array.from([1, 2]), Uint8Array.from([3, 4])]));
    expect(sentHash(['x'], [a])).not.toBe(sentHash(['x'], [b]));
    expect(sentHash(['x'], [a, b])).toBe(sentHash(['x'], [Uint8Array.from([1, 2, 3]), Uint8Array.from([4])]));
  });
});
