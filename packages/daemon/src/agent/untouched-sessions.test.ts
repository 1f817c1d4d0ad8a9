import { describe, expect, it } from 'vitest';
import { createLogger, UNTOUCHED_SESSION_GRACE_MS, type LogRecord } from '@bastion/protocol';
import { newSession, useTempStore } from '../../test/support/temp-store.js';
import type { SessionStore } from '../storage/session-store.js';
import { EventHub } from './event-hub.js';
import { UntouchedSessions } from './untouched-sessions.js';

let store: SessionStore;
useTempStore((opened) => ({ store } = opened));

/** A real store and event hub, a clock the test moves, and whether a run or undo is going. */
function sweeper(busy: { running?: boolean; undoing?: boolean } = {}) {
  let now = 1_000_000;
  const hub = new EventHub();
  const records: LogRecord[] = [];
  const untouched = new UntouchedSessions({
    store,
    runs: { hub, isActive: () => busy.running === true, isUndoing: () => busy.undoing === true },
    log: createLogger('daemon', (record) => records.push(record)),
    now: () => now,
  });
  return {
    hub,
    untouched,
    records,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const provisional = () =>
  store.sessions.create({ provider: 'demo', model: 'demo', workspace: null, provisional: true }).id;
const stored = (id: string) => store.sessions.get(id) !== undefined;

describe('untouched sessions', () => {
  it('removes a provisional session no stream showed for the grace period, not before, and never another session', () => {
    const { untouched, advance, records } = sweeper();
    const unshown = provisional();
    const plain = newSession(store).id;
    untouched.sweep();
    advance(UNTOUCHED_SESSION_GRACE_MS - 1);
    expect(untouched.sweep()).toBe(0);
    expect(stored(unshown)).toBe(true);
    advance(1);
    expect(untouched.sweep()).toBe(1);
    expect(stored(unshown)).toBe(false);
    expect(stored(plain)).toBe(true);
    expect(records.map((record) => [record.event, record.fields])).toContainEqual([
      'sessions.untouched-removed',
      { count: 1 },
    ]);
  });

  it('keeps one while a stream shows it, and for the grace period after its last stream closed (a page reconnecting)', () => {
    const { hub, untouched, advance } = sweeper();
    const shown = provisional();
    const close = hub.subscribe(shown, () => undefined, 'PageOfAnotherBrowser');
    untouched.sweep();
    advance(UNTOUCHED_SESSION_GRACE_MS * 3);
    expect(untouched.sweep()).toBe(0);
    close();
    advance(UNTOUCHED_SESSION_GRACE_MS - 1);
    expect(untouched.sweep()).toBe(0);
    expect(stored(shown)).toBe(true);
    advance(1);
    expect(untouched.sweep()).toBe(1);
  });

  it("a page's own stream, open or just closed, does not keep it from that page's removal; another page's does", () => {
    const { hub, untouched } = sweeper();
    const session = provisional();
    const closeOwn = hub.subscribe(session, () => undefined, 'TheLeavingPage01');
    const closeOther = hub.subscribe(session, () => undefined, 'PageOfAnotherBrowser');
    expect(untouched.removeIfUntouched(session, 'TheLeavingPage01')).toBe(false);
    closeOther();
    // Closed a moment ago: that page may be reconnecting.
    expect(untouched.removeIfUntouched(session, 'TheLeavingPage01')).toBe(false);
    expect(untouched.removeIfUntouched(session, 'PageOfAnotherBrowser')).toBe(false);
    closeOwn();
    expect(stored(session)).toBe(true);
    // Shown only by the leaving page, whose stream has not closed yet (or closed a moment ago).
    const alone = provisional();
    const closeAlone = hub.subscribe(alone, () => undefined, 'TheLeavingPage01');
    expect(untouched.removeIfUntouched(alone, 'TheLeavingPage01')).toBe(true);
    closeAlone();
    const left = provisional();
    hub.subscribe(left, () => undefined, 'TheLeavingPage01')();
    expect(untouched.removeIfUntouched(left, 'TheLeavingPage01')).toBe(true);
  });

  it('keeps one whose run is going or whose undo is being done, and one a patch or a run touched', () => {
    const running = sweeper({ running: true });
    const session = provisional();
    expect(running.untouched.removeIfUntouched(session, undefined)).toBe(false);
    expect(sweeper({ undoing: true }).untouched.removeIfUntouched(session, undefined)).toBe(false);
    const idle = sweeper();
    const patched = provisional();
    store.sessions.update(patched, {});
    const ran = provisional();
    store.runs.start(ran, { userContent: [{ role: 'user', content: 'hi' }], provider: 'demo', model: 'demo' });
    expect(idle.untouched.removeIfUntouched(patched, undefined)).toBe(false);
    expect(idle.untouched.removeIfUntouched(ran, undefined)).toBe(false);
    expect(idle.untouched.removeIfUntouched(session, undefined)).toBe(true);
  });
});
