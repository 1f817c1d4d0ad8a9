/**
 * Finding a session by what was said in it: the sidebar's search box asks the daemon
 * (`GET /sessions?search=`) for the sessions whose title, prompts or replies hold the text. This is
 * the pure part: which text a box asks for, the results as answers come in (an answer to an earlier
 * asking never replaces a later one's), and the words the list shows about them.
 */
import { SESSION_SEARCH_MIN_CHARS, type Session, type SessionListResponse } from '@bastion/protocol';

/**
 * The text a box holding `box` searches for: trimmed, or undefined while it is shorter than
 * SESSION_SEARCH_MIN_CHARS characters (the list then shows every session). It is not cut to the
 * daemon's SESSION_SEARCH_MAX_CHARS: the box stops there, and text longer than that, put there by
 * other means, is refused by the daemon in words rather than searched for in part.
 */
export function searchTextOf(box: string): string | undefined {
  const text = box.trim();
  return [...text].length >= SESSION_SEARCH_MIN_CHARS ? text : undefined;
}

export interface SessionSearch {
  /** The text last asked for; '' when there is no search. */
  text: string;
  /** Which asking the shown results answer: answers carrying another number are dropped. */
  asking: number;
  /** The matches, newest first; undefined until the first answer for `text` comes. */
  sessions: readonly Session[] | undefined;
  /** The cursor of the next page of matches, null when there is none. */
  next: string | null;
  /** A further page is being read. */
  loadingMore: boolean;
  /** Why the last asking failed, in words. */
  error: string | undefined;
}

export const NO_SESSION_SEARCH: SessionSearch = {
  text: '',
  asking: 0,
  sessions: undefined,
  next: null,
  loadingMore: false,
  error: undefined,
};

export type SessionSearchEvent =
  /** The daemon was asked for `text`'s first page; asking the same text again (a refresh) keeps what is shown meanwhile. */
  | { type: 'ask'; text: string; asking: number }
  /** The daemon was asked for the page after `next`, for the current asking. */
  | { type: 'more' }
  /** An answer: the first page (`append` false) or a further one. */
  | { type: 'answer'; asking: number; page: SessionListResponse; append: boolean }
  | { type: 'fail'; asking: number; error: string }
  /** The box no longer searches: whatever is still on its way is dropped. */
  | { type: 'clear'; asking: number };

/** The search after `event`. An answer or failure for an asking other than the latest is ignored. */
export function nextSessionSearch(search: SessionSearch, event: SessionSearchEvent): SessionSearch {
  switch (event.type) {
    case 'ask':
      return {
        text: event.text,
        asking: event.asking,
        sessions: event.text === search.text ? search.sessions : undefined,
        next: event.text === search.text ? search.next : null,
        loadingMore: false,
        error: undefined,
      };
    case 'more':
      return search.next === null ? search : { ...search, loadingMore: true, error: undefined };
    case 'answer': {
      if (event.asking !== search.asking) return search;
      const earlier = event.append ? (search.sessions ?? []) : [];
      const known = new Set(earlier.map((session) => session.id));
      return {
        ...search,
        // A session that moved between two pages is listed once, where it was first shown.
        sessions: [...earlier, ...event.page.sessions.filter((session) => !known.has(session.id))],
        next: event.page.next,
        loadingMore: false,
        error: undefined,
      };
    }
    case 'fail':
      return event.asking !== search.asking ? search : { ...search, loadingMore: false, error: event.error };
    case 'clear':
      return { ...NO_SESSION_SEARCH, asking: event.asking };
  }
}

/** What the list shows for the box's text and the search so far. */
export type SessionSearchView =
  /** Every session (the box is empty, or too short to search: `short` then). */
  | { kind: 'all'; short: boolean }
  /** Waiting for the answer for `text`; `stale` are the previous search's matches, shown meanwhile. */
  | { kind: 'searching'; text: string; stale: readonly Session[] | undefined }
  | { kind: 'found'; text: string; sessions: readonly Session[]; more: boolean; loadingMore: boolean }
  | { kind: 'failed'; text: string; error: string; sessions: readonly Session[] | undefined };

export function sessionSearchView(box: string, search: SessionSearch): SessionSearchView {
  const text = searchTextOf(box);
  if (text === undefined) return { kind: 'all', short: box.trim() !== '' };
  // The box has moved on from what was asked (the delay has not run out yet): the answer shown would be another text's.
  if (text !== search.text) return { kind: 'searching', text, stale: search.sessions };
  if (search.error !== undefined) return { kind: 'failed', text, error: search.error, sessions: search.sessions };
  if (search.sessions === undefined) return { kind: 'searching', text, stale: undefined };
  return {
    kind: 'found',
    text,
    sessions: search.sessions,
    more: search.next !== null,
    loadingMore: search.loadingMore,
  };
}

/** The line above the matches, for a screen reader's live region as much as for the eye. */
export function sessionSearchStatus(view: SessionSearchView): string {
  switch (view.kind) {
    case 'all':
      return view.short ? `Type ${SESSION_SEARCH_MIN_CHARS} characters or more to search.` : '';
    case 'searching':
      return `Searching for “${view.text}”…`;
    case 'failed':
      return '';
    case 'found': {
      const count = view.sessions.length;
      if (count === 0) return `No session mentions “${view.text}”.`;
      if (view.more) return `The ${count} newest sessions that mention “${view.text}”.`;
      return `${count === 1 ? '1 session mentions' : `${count} sessions mention`} “${view.text}”.`;
    }
  }
}
