import { beforeEach, describe, expect, it } from 'vitest';
import { AGENT_MAX_MCP_RESOURCES } from '@bastion/protocol';
import {
  carryDraftMcp,
  forgetDrafts,
  readDraft,
  readDraftMcp,
  readDraftTemplates,
  readQueuedMcp,
  saveDraft,
  saveDraftMcp,
  saveDraftTemplates,
  saveQueued,
} from './drafts.js';

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
  const serverText = { origin: context.prompt, spans: [[0, 17] as const] };

  it('keeps the queued text with what MCP servers gave it and the characters a prompt wrote, read back as they were', () => {
    saveQueued('ses_a', 'Review this code: @other:notes://x', { mcp: context, serverText });
    expect(readDraft('ses_a', 'queued')).toBe('Review this code: @other:notes://x');
    expect(readQueuedMcp('ses_a')).toEqual({ mcp: context, serverText });
    saveQueued('ses_a', '', { mcp: {}, serverText: undefined });
    expect(stored.size).toBe(0);
  });

  it('stores no queued text whose MCP context storage refuses, so a reload cannot send it without that context', () => {
    saveQueued('ses_b', 'Earlier', { mcp: {}, serverText: undefined });
    quota = 100;
    saveQueued('ses_b', 'Review this code: @other:notes://x', { mcp: context, serverText });
    expect(readDraft('ses_b', 'queued')).toBe('');
    expect(readQueuedMcp('ses_b')).toEqual({ mcp: {}, serverText: undefined });
    expect(stored.size).toBe(0);
  });
});

describe('saveDraftMcp', () => {
  const origin = { server: 'lure', name: 'lure' };
  const text = 'Summarise @other:notes://readme for me.';

  it('reads back the spans of the draft they were saved with, and holds a draft changed since wholly the server’s', () => {
    saveDraft('ses_c', text);
    saveDraftMcp('ses_c', text, { origin, spans: [[0, 31]] });
    expect(readDraftMcp('ses_c', text)).toEqual({ origin, spans: [[0, 31]] });
    expect(readDraftMcp('ses_c', `${text} more`)).toEqual({ origin, spans: [[0, text.length + 5]] });
    saveDraftMcp('ses_c', text, undefined);
    expect(readDraftMcp('ses_c', text)).toBeUndefined();
  });

  it('takes the draft’s text out of storage when its origin cannot be stored, so no reload shows it without one', () => {
    saveDraft('ses_d', text);
    quota = 60;
    expect(saveDraftMcp('ses_d', text, { origin, spans: [[0, text.length]] })).toBe(false);
    expect(readDraft('ses_d')).toBe('');
    expect(stored.size).toBe(0);
  });

  it('carries the home page’s draft origin to a new session’s box, moved onto the trimmed text', () => {
    saveDraftMcp('home', `  ${text}`, { origin, spans: [[2, text.length + 2]] });
    expect(carryDraftMcp('home', `  ${text}`, 'ses_e', text)).toBe(true);
    expect(readDraftMcp('ses_e', text)).toEqual({ origin, spans: [[0, text.length]] });
  });
});

describe('saveDraftTemplates', () => {
  const note = (path: string) => ({
    server: 'templates',
    template: 'notes:///{path}',
    values: { path },
    uri: `notes:///${encodeURIComponent(path)}`,
  });
  const text = 'Read @templates:notes:///a%20b and @templates:notes:///c';

  it('reads back the templates filled in for the draft whose word it still holds, in order', () => {
    saveDraftTemplates('ses_t', text, [note('a b'), note('gone'), note('c')]);
    expect(readDraftTemplates('ses_t', text)).toEqual([note('a b'), note('c')]);
    expect(readDraftTemplates('ses_t', 'Read @templates:notes:///c')).toEqual([note('c')]);
  });

  it('keeps at most a message’s resources, the newest, and nothing once none is named', () => {
    const many = Array.from({ length: AGENT_MAX_MCP_RESOURCES + 2 }, (_, index) => note(`n${index}`));
    const named = many.map((template) => `@templates:${template.uri}`).join(' ');
    saveDraftTemplates('ses_u', named, many);
    expect(readDraftTemplates('ses_u', named)).toEqual(many.slice(-AGENT_MAX_MCP_RESOURCES));
    saveDraftTemplates('ses_u', 'nothing named', many);
    expect(stored.has('bastion.draft-templates.ses_u')).toBe(false);
  });

  it('carries them to a new session’s box with the draft, and forgets them with the session', () => {
    saveDraftTemplates('home', `  ${text}`, [note('a b')]);
    expect(carryDraftMcp('home', `  ${text}`, 'ses_v', text)).toBe(true);
    expect(readDraftTemplates('ses_v', text)).toEqual([note('a b')]);
    forgetDrafts('ses_v');
    expect(readDraftTemplates('ses_v', text)).toEqual([]);
  });
});
