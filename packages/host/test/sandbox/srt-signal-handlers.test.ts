/**
 * srt's initialize adds SIGINT/SIGTERM once-handlers that reset it without exiting; the session
 * removes them (srt-session.ts). The CLI begins srt's initialize before it loads the host
 * (host-start-prelude.ts), so its own stop listeners are added while an initialize is under way:
 * only srt's may be removed. Real srt, in this test file's own process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { acquireSrtSession } from '../../src/sandbox/srt-session.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const added: Array<() => void> = [];
afterEach(() => {
  for (const listener of added.splice(0)) for (const signal of SIGNALS) process.off(signal, listener);
});

describe("srt's signal handlers", () => {
  it("after srt's initialize, SIGINT and SIGTERM hold exactly the listeners the process had plus one it added meanwhile (none of srt's)", async () => {
    const before = Object.fromEntries(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
    const watching = process.listenerCount('newListener');
    const initializing = acquireSrtSession();
    // Added once the session watches for srt's handlers, i.e. while the initialize is under way.
    while (process.listenerCount('newListener') === watching) await new Promise((resolve) => setImmediate(resolve));
    const mine = () => undefined;
    added.push(mine);
    for (const signal of SIGNALS) process.on(signal, mine);
    const session = await initializing;
    try {
      await new Promise((resolve) => setImmediate(resolve));
      for (const signal of SIGNALS) expect(process.listeners(signal)).toEqual([...(before[signal] ?? []), mine]);
    } finally {
      await session.release();
    }
  });
});
