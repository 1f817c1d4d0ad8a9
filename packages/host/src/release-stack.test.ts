import { describe, expect, it } from 'vitest';
import { ReleaseStack } from './release-stack.js';

describe('ReleaseStack', () => {
  it('releases newest first, runs every release when one fails, then rejects with the first failure', async () => {
    const stack = new ReleaseStack();
    const order: string[] = [];
    stack.defer(() => order.push('temp dir'));
    stack.defer(() => {
      order.push('srt session');
      throw new Error('srt reset failed');
    });
    stack.defer(async () => {
      await Promise.resolve();
      order.push('listener');
      throw new Error('close failed');
    });
    await expect(stack.releaseAll()).rejects.toThrow('close failed');
    expect(order).toEqual(['listener', 'srt session', 'temp dir']);
  });

  it('releases each resource once: a second releaseAll does nothing', async () => {
    const stack = new ReleaseStack();
    let released = 0;
    stack.defer(() => (released += 1));
    await stack.releaseAll();
    await stack.releaseAll();
    expect(released).toBe(1);
  });
});
