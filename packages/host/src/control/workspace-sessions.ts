/**
 * The sessions of a workspace, newest first, read from the daemon that owns the home: for
 * `bastion sessions`, `bastion run --continue` and `bastion undo`'s default session. A workspace
 * is compared by its real path, as sessions record it. Also a session as markdown, for `bastion
 * sessions export`.
 */
import { realpathSync } from 'node:fs';
import {
  messageListResponseSchema,
  PAGE_MAX_LIMIT,
  sessionListResponseSchema,
  sessionMarkdown,
  sessionSchema,
  type Message,
  type Session,
  type WireError,
  type WireErrorCode,
} from '@bastion/protocol';
import type { DaemonClient } from '../daemon-client.js';
import { formatBytes } from '../format-bytes.js';

/** A workspace folder as sessions record it: its real path (as given when it cannot be resolved). */
export function workspaceRootOf(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return workspace;
  }
}

type DaemonRead<T> = ({ ok: true } & T) | { ok: false; error: WireError<WireErrorCode> };

/** The query of one page of a daemon list: as many as a page holds, from `cursor` on, with `search` when given. */
function pageQuery(cursor: string | null, search?: string): string {
  const query = new URLSearchParams({ limit: String(PAGE_MAX_LIMIT) });
  if (cursor !== null) query.set('cursor', cursor);
  if (search !== undefined) query.set('search', search);
  return `?${query.toString()}`;
}

/**
 * Up to `limit` sessions, newest first: those that work in `workspace`, or every session when it
 * is undefined, and with `search` only those whose title, prompts or replies hold it; a daemon
 * error as `{ ok: false }`.
 */
export async function sessionsIn(
  client: DaemonClient,
  workspace: string | undefined,
  limit: number,
  search?: string,
): Promise<DaemonRead<{ sessions: Session[] }>> {
  const root = workspace === undefined ? undefined : workspaceRootOf(workspace);
  const sessions: Session[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/sessions${pageQuery(cursor, search)}`;
    const page = await client.call('GET', path, undefined, sessionListResponseSchema);
    if (!page.ok) return { ok: false, error: page.error };
    for (const session of page.body.sessions) {
      if (root !== undefined && session.workspace !== root) continue;
      sessions.push(session);
      if (sessions.length === limit) return { ok: true, sessions };
    }
    cursor = page.body.next;
  } while (cursor !== null);
  return { ok: true, sessions };
}

/** The newest session that works in `workspace`, if any; a daemon error as `{ ok: false }`. */
export async function newestSessionIn(client: DaemonClient, workspace: string) {
  const found = await sessionsIn(client, workspace, 1);
  if (!found.ok) return found;
  const [session] = found.sessions;
  return session === undefined ? undefined : { ok: true as const, session };
}

/** Every stored message of a session, oldest first; a daemon error (SESSION_NOT_FOUND too) as `{ ok: false }`. */
async function sessionMessagesIn(
  client: DaemonClient,
  sessionId: string,
): Promise<DaemonRead<{ messages: Message[] }>> {
  const messages: Message[] = [];
  let cursor: string | null = null;
  do {
    const path: string = `/sessions/${sessionId}/messages${pageQuery(cursor)}`;
    const page = await client.call('GET', path, undefined, messageListResponseSchema);
    if (!page.ok) return { ok: false, error: page.error };
    messages.push(...page.body.messages);
    cursor = page.body.next;
  } while (cursor !== null);
  return { ok: true, messages };
}

/**
 * A session as the UI's Export writes it (markdown, not yet made inert for a terminal); a daemon
 * error (SESSION_NOT_FOUND too) as `{ ok: false }`, and EXPORT_TOO_LARGE when the markdown, as a
 * JSON string, is longer than `maxJsonBytes` (what a control answer may carry of it).
 */
export async function sessionMarkdownIn(
  client: DaemonClient,
  sessionId: string,
  maxJsonBytes: number,
): Promise<DaemonRead<{ markdown: string }>> {
  const session = await client.call('GET', `/sessions/${sessionId}`, undefined, sessionSchema);
  if (!session.ok) return { ok: false, error: session.error };
  const read = await sessionMessagesIn(client, sessionId);
  if (!read.ok) return read;
  const markdown = sessionMarkdown(session.body, read.messages);
  const bytes = Buffer.byteLength(JSON.stringify(markdown));
  if (bytes > maxJsonBytes) {
    return {
      ok: false,
      error: {
        code: 'EXPORT_TOO_LARGE',
        message: `the session's markdown is ${formatBytes(bytes)}, over the ${formatBytes(maxJsonBytes)} a terminal export carries; Export in the UI saves it`,
      },
    };
  }
  return { ok: true, markdown };
}
