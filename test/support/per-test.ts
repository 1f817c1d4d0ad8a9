/**
 * Test support: resources that live for one test. `closedAfterEachTest(open, close)` registers one
 * vitest afterEach; everything the returned function opened during a test is closed after it,
 * newest first, and awaited.
 */
import { afterEach } from 'vitest';

export function closedAfterEachTest<A extends unknown[], T>(
  open: (...args: A) => Promise<T>,
  close: (opened: T) => Promise<unknown>,
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
