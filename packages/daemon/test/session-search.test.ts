/**
 * `GET /sessions?search=` through the real daemon app and real SQLite: the sessions whose title,
 * prompts or replies hold the text (ASCII letters in either case; `%`, `_`, `\` and quotes as
 * themselves), newest first and paged; never a match only a tool's output holds.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_SEARCH_MAX_CHARS, type Session, type SessionListResponse } from '@bastion/protocol';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

async function sessionWith(d: InProcessDaemon, title: string, message: string | undefined): Promise<string> {
  const id = (await d.request<Session>('POST', '/sessions', { title, provider: 'demo', model: 'demo' })).body.id;
  if (message === undefined) return id;
  const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: id, message });
  await d.collect(id, (event) => event.type === 'run-finished' && event.run_id === started.body.run_id);
  return id;
}

const found = async (d: InProcessDaemon, search: string, limit?: number, cursor?: string) => {
  const query = new URLSearchParams({
    search,
    ...(limit ? { limit: String(limit) } : {}),
    ...(cursor ? { cursor } : {}),
  });
  return (await d.request<SessionListResponse>('GET', `/sessions?${query}`)).body;
};

describe('GET /sessions?search=', () => {
  it('finds a session by its title and the text of its prompts and replies — not a tool call, a tool output or a JSON key — with %, _, \\ and quotes as themselves', async () => {
    daemon = await startInProcessDaemon();
    writeFileSync(join(daemon.workspace, 'notes.md'), '# Project notes\nonly-in-the-file-canary\n');
    const login = await sessionWith(daemon, 'Fix the login page', undefined);
    const notes = await sessionWith(daemon, '', 'read notes.md');
    const odd = await sessionWith(daemon, 'odd', 'is 100% "quoted" an under_score or a back\\slash?');
    const ids = async (search: string) => (await found(daemon as InProcessDaemon, search)).sessions.map((s) => s.id);

    expect(await ids('LOGIN')).toEqual([login]);
    // The prompt, and the demo's reply, which quotes the file's first line.
    expect(await ids('NOTES.md')).toEqual([notes]);
    expect(await ids('Project notes')).toEqual([notes]);
    expect(await ids('only-in-the-file-canary')).toEqual([]);
    expect(await ids('100%')).toEqual([odd]);
    expect(await ids('0% "q')).toEqual([odd]);
    expect(await ids('under_')).toEqual([odd]);
    expect(await ids('k\\s')).toEqual([odd]);
    expect(await ids('%')).toEqual([odd]);
    expect(await ids('_')).toEqual([odd]);
    expect(await ids('nowhere at all')).toEqual([]);
    // What the stored JSON holds besides the text: its keys, a tool's name and its input.
    expect(await ids('toolName')).toEqual([]);
    expect(await ids('"type"')).toEqual([]);
    expect(await ids('read_file')).toEqual([]);
  });

  it('pages the matches newest first, and refuses an empty or overlong search', async () => {
    daemon = await startInProcessDaemon();
    const first = await sessionWith(daemon, 'alpha one', undefined);
    await sessionWith(daemon, 'beta', undefined);
    const second = await sessionWith(daemon, 'alpha two', undefined);
    const page = await found(daemon, 'alpha', 1);
    expect(page.sessions.map((s) => s.id)).toEqual([second]);
    expect(page.next).not.toBeNull();
    const rest = await found(daemon, 'alpha', 1, page.next ?? undefined);
    expect(rest.sessions.map((s) => s.id)).toEqual([first]);
    expect(rest.next).toBeNull();
    for (const search of ['', 'x'.repeat(SESSION_SEARCH_MAX_CHARS + 1)]) {
      const refused = await daemon.request<{ code: string }>('GET', `/sessions?search=${search}`);
      expect([refused.status, refused.body.code]).toEqual([400, 'BAD_REQUEST']);
    }
  });
});
