/**
 * Test support: resources that live for one test. `closedAfterEachTest(open, close)` registers one
 * vitest afterEach; everything the returned function opened during a test is closed after it,
 * newest first, and awaited.
 */
import { afterEach } from 'vitest';
import { startCliUntilFirstLine } from '@bastion/test-support';

export function closedAfterEachTest<A extends unknown[], T>(
  open: (...args: A) => Promise<T>,
  close: (opened: T) => unknown,
): (...args: A) => Promise<T> {
  const opened: T[] = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await close(item);
  });
  return async (...args) => {
    const item = await open(...args);
    opened.push(item);
    return item;
  };
}

/**
 * startCliUntilFirstLine, each CLI it started SIGKILLed after the test if it still runs, and
 * reaped: until then its pid still answers, and the setup's sweep would take it for a live host.
 */
export function clisKilledAfterEachTest(): typeof startCliUntilFirstLine {
  return closedAfterEachTest(startCliUntilFirstLine, async ({ child }) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  });
}
