import { describe, expect, it } from 'vitest';
import type { Session } from '@bastion/protocol';
import {
  nextSessionSearch,
  NO_SESSION_SEARCH,
  searchTextOf,
  sessionSearchStatus,
  sessionSearchView,
  type SessionSearch,
} from './session-search.js';

const session = (id: string): Session =>
  ({ id, title: `title ${id}`, provider: 'demo', model: 'demo' }) as unknown as Session;
const page = (ids: string[], next: string | null = null) => ({ sessions: ids.map(session), next });
const ids = (search: SessionSearch) => search.sessions?.map((found) => found.id);
const run = (...events: Parameters<typeof nextSessionSearch>[1][]) =>
  events.reduce(nextSessionSearch, NO_SESSION_SEARCH);

describe('searchTextOf', () => {
  it('searches for the trimmed text from two characters on', () => {
    expect(searchTextOf('  Zebra ')).toBe('Zebra');
    expect(searchTextOf('ab')).toBe('ab');
    expect(searchTextOf('%_')).toBe('%_');
  });

  it('does not search for nothing, blanks, or one character (one emoji is one character)', () => {
    expect(searchTextOf('')).toBeUndefined();
    expect(searchTextOf('    ')).toBeUndefined();
    expect(searchTextOf(' a ')).toBeUndefined();
    expect(searchTextOf('🦓')).toBeUndefined();
    expect(searchTextOf('🦓🦓')).toBe('🦓🦓');
  });

  it('keeps text longer than the daemon takes whole, for the daemon to refuse in words', () => {
    expect(searchTextOf('x'.repeat(201))).toHaveLength(201);
  });
});

describe('nextSessionSearch', () => {
  it('shows the answer to the latest asking, and drops a slower answer to an earlier one', () => {
    const asked = run({ type: 'ask', text: 'alpha', asking: 1 }, { type: 'ask', text: 'beta', asking: 2 });
    const answered = nextSessionSearch(asked, { type: 'answer', asking: 2, page: page(['b1']), append: false });
    expect(ids(answered)).toEqual(['b1']);
    const late = nextSessionSearch(answered, { type: 'answer', asking: 1, page: page(['a1', 'a2']), append: false });
    expect(late).toBe(answered);
    expect(nextSessionSearch(answered, { type: 'fail', asking: 1, error: 'refused' })).toBe(answered);
  });

  it('drops whatever was on its way once the box is cleared', () => {
    const cleared = run({ type: 'ask', text: 'alpha', asking: 1 }, { type: 'clear', asking: 2 });
    expect(cleared).toEqual({ ...NO_SESSION_SEARCH, asking: 2 });
    expect(nextSessionSearch(cleared, { type: 'answer', asking: 1, page: page(['a1']), append: false })).toBe(cleared);
  });

  it('a new text shows nothing of the old one’s matches as its own; asking the same text again keeps them until it answers', () => {
    const found = run(
      { type: 'ask', text: 'alpha', asking: 1 },
      { type: 'answer', asking: 1, page: page(['a1'], 'c1'), append: false },
    );
    const other = nextSessionSearch(found, { type: 'ask', text: 'beta', asking: 2 });
    expect([other.sessions, other.next]).toEqual([undefined, null]);
    const again = nextSessionSearch(found, { type: 'ask', text: 'alpha', asking: 2 });
    expect([ids(again), again.next, again.asking]).toEqual([['a1'], 'c1', 2]);
  });

  it('appends a further page once each, and a failure keeps what is shown', () => {
    const first = run(
      { type: 'ask', text: 'alpha', asking: 1 },
      { type: 'answer', asking: 1, page: page(['a3', 'a2'], 'c2'), append: false },
      { type: 'more' },
    );
    expect(first.loadingMore).toBe(true);
    const both = nextSessionSearch(first, { type: 'answer', asking: 1, page: page(['a2', 'a1']), append: true });
    expect([ids(both), both.next, both.loadingMore]).toEqual([['a3', 'a2', 'a1'], null, false]);
    // No further page: nothing to read.
    expect(nextSessionSearch(both, { type: 'more' })).toBe(both);
    const failed = nextSessionSearch(first, { type: 'fail', asking: 1, error: 'the agent could not be reached' });
    expect([ids(failed), failed.loadingMore, failed.error]).toEqual([
      ['a3', 'a2'],
      false,
      'the agent could not be reached',
    ]);
  });
});

describe('sessionSearchView and its words', () => {
  const found = (text: string, found: string[], next: string | null = null) =>
    run({ type: 'ask', text, asking: 1 }, { type: 'answer', asking: 1, page: page(found, next), append: false });

  it('lists every session for an empty or too short box, and asks for more characters when it holds one', () => {
    expect(sessionSearchView('', found('alpha', ['a1']))).toEqual({ kind: 'all', short: false });
    const short = sessionSearchView('a', NO_SESSION_SEARCH);
    expect(short).toEqual({ kind: 'all', short: true });
    expect(sessionSearchStatus(short)).toBe('Type 2 characters or more to search.');
    expect(sessionSearchStatus(sessionSearchView('', NO_SESSION_SEARCH))).toBe('');
  });

  it('says it is searching while the box holds text not yet answered, showing the previous matches meanwhile', () => {
    const view = sessionSearchView('alphabet', found('alpha', ['a1']));
    expect(view).toMatchObject({ kind: 'searching', text: 'alphabet' });
    expect(view.kind === 'searching' && view.stale?.map((stale) => stale.id)).toEqual(['a1']);
    expect(sessionSearchStatus(view)).toBe('Searching for “alphabet”…');
    const first = sessionSearchView('alpha', run({ type: 'ask', text: 'alpha', asking: 1 }));
    expect(first).toEqual({ kind: 'searching', text: 'alpha', stale: undefined });
  });

  it('says in words how many sessions mention the text, that none does, and when older ones are left', () => {
    expect(sessionSearchStatus(sessionSearchView(' alpha ', found('alpha', ['a1'])))).toBe(
      '1 session mentions “alpha”.',
    );
    expect(sessionSearchStatus(sessionSearchView('alpha', found('alpha', ['a2', 'a1'])))).toBe(
      '2 sessions mention “alpha”.',
    );
    expect(sessionSearchStatus(sessionSearchView('zebra', found('zebra', [])))).toBe('No session mentions “zebra”.');
    const more = sessionSearchView('alpha', found('alpha', ['a2', 'a1'], 'c1'));
    expect(more).toMatchObject({ kind: 'found', more: true, loadingMore: false });
    expect(sessionSearchStatus(more)).toBe('The 2 newest sessions that mention “alpha”.');
  });

  it('shows a failure for the text asked for, not for text typed after it', () => {
    const failed = run({ type: 'ask', text: 'alpha', asking: 1 }, { type: 'fail', asking: 1, error: 'refused (X)' });
    expect(sessionSearchView('alpha', failed)).toEqual({
      kind: 'failed',
      text: 'alpha',
      error: 'refused (X)',
      sessions: undefined,
    });
    expect(sessionSearchView('alphas', failed).kind).toBe('searching');
  });
});
