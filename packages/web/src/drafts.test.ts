import { beforeEach, describe, expect, it } from 'vitest';
import { readDraft, readQueuedMcp, saveQueued } from './drafts.js';

/** The tab's sessionStorage, refusing any value longer than `quota` characters (as a full one would). */
const stored = new Map<string, string>();
let quota = Infinity;
Object.assign(globalThis, {
  window: {
    sessionStorage: {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => {
        if (value.length > quota) throw new DOMException('full', 'QuotaExceededError');
        stored.set(key, value);
      },
      removeItem: (key: string) => void stored.delete(key),
    },
  },
});

beforeEach(() => {
  stored.clear();
  quota = Infinity;
});

const context = {
  prompt: { server: 'fixture', name: 'review' },
  resources: [{ server: 'fixture', uri: 'notes://readme', name: 'Fixture readme', text: 'x'.repeat(200) }],
};

describe('saveQueued', () => {
  it('keeps the queued text with what MCP servers gave it, read back as it was', () => {
    saveQueued('ses_a', 'Review this code: @other:notes://x', context);
    expect(readDraft('ses_a', 'queued')).toBe('Review this code: @other:notes://x');
    expect(readQueuedMcp('ses_a')).toEqual(context);
    saveQueued('ses_a', '', {});
    expect(stored.size).toBe(0);
  });

  it('stores no queued text whose MCP context storage refuses, so a reload cannot send it without that context', () => {
    saveQueued('ses_b', 'Earlier', {});
    quota = 100;
    saveQueued('ses_b', 'Review this code: @other:notes://x', context);
    expect(readDraft('ses_b', 'queued')).toBe('');
    expect(readQueuedMcp('ses_b')).toEqual({});
    expect(stored.size).toBe(0);
  });
});
