/**
 * `bastion changes`'s request against a loopback stand-in for the daemon, through the host's real
 * daemon client: an answer the client reads, however near its bound, fits the control answer's
 * bound once wrapped; one past it is refused in words; a named session of another folder is
 * refused before its changes are asked for.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONTROL_MAX_CHANGES_ANSWER_BYTES,
  DAEMON_RESPONSE_MAX_BYTES,
  type Session,
  type SessionChangesResponse,
} from '@bastion/protocol';
import { DaemonClient } from '../daemon-client.js';
import { changesAnswerSchema } from './control-protocol.js';
import { sessionChangesIn } from './session-changes.js';

const ID = 'ses_changes1';
const WORKSPACE = '/nowhere/bastion-changes-ws';

const SESSION: Session = {
  id: ID,
  title: '',
  mode: 'accept-edits',
  provider: 'demo',
  model: 'demo',
  workspace: WORKSPACE,
  created_at: '2026-12-06T00:00:00.000Z',
  updated_at: '2026-12-06T00:00:00.000Z',
  auto_consent: null,
  ask_before_writes: false,
  last_run: null,
  approval_pending: false,
};

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A daemon that answers the session, and its changes with `changes` (whose asking it counts). */
async function fakeDaemon(session: Session, changes: string): Promise<{ client: DaemonClient; asked: () => number }> {
  let asked = 0;
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url === `/sessions/${ID}/changes`) {
      asked += 1;
      res.end(changes);
    } else res.end(JSON.stringify(session));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new DaemonClient({
    uiOrigin: 'http://127.0.0.1:1',
    target: () => Promise.resolve({ port, password: 'p' }),
  });
  return { client, asked: () => asked };
}

/** Changes of 200 files whose diffs, all characters JSON writes as `\u0001`, bring the body to `bytes`. */
function changesOf(bytes: number): string {
  const files = (diff: string) =>
    Array.from({ length: 200 }, (_, index) => ({
      path: `f${index}.txt`,
      status: 'modified' as const,
      diff,
      additions: 1,
      deletions: 1,
    }));
  const empty = JSON.stringify({
    session_id: ID,
    files: files(''),
    more: 0,
    commands: 0,
  } satisfies SessionChangesResponse);
  const each = Math.floor((bytes - Buffer.byteLength(empty)) / 200 / 6);
  return JSON.stringify({ session_id: ID, files: files('\u0001'.repeat(each)), more: 0, commands: 0 });
}

describe('session changes through the host', () => {
  it('an answer just within what the host reads of the daemon fits a control answer of CONTROL_MAX_CHANGES_ANSWER_BYTES', async () => {
    const body = changesOf(DAEMON_RESPONSE_MAX_BYTES);
    expect(Buffer.byteLength(body)).toBeGreaterThan(DAEMON_RESPONSE_MAX_BYTES - 2_000);
    const { client } = await fakeDaemon(SESSION, body);
    const answer = await sessionChangesIn(client, { workspace: WORKSPACE, session_id: ID });
    expect(answer.ok).toBe(true);
    const line = `${JSON.stringify(answer)}\n`;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(CONTROL_MAX_CHANGES_ANSWER_BYTES);
    expect(changesAnswerSchema.safeParse(JSON.parse(line)).success).toBe(true);
  });

  it('an answer past what the host reads of the daemon is refused in words: DAEMON_RESPONSE_TOO_LARGE', async () => {
    const { client } = await fakeDaemon(SESSION, changesOf(DAEMON_RESPONSE_MAX_BYTES + 1_000_000));
    expect(await sessionChangesIn(client, { workspace: WORKSPACE, session_id: ID })).toEqual({
      ok: false,
      code: 'DAEMON_RESPONSE_TOO_LARGE',
      message: "the session's changes with their diffs are over the 16.0 MiB one answer may carry",
    });
  });

  it('a named session of another folder is refused (UNDO_NO_SESSION, its folder named) without asking its changes', async () => {
    const { client, asked } = await fakeDaemon({ ...SESSION, workspace: '/nowhere/other' }, changesOf(100_000));
    expect(await sessionChangesIn(client, { workspace: WORKSPACE, session_id: ID })).toEqual({
      ok: false,
      code: 'UNDO_NO_SESSION',
      message: `session ${ID} works in /nowhere/other, not in this one`,
    });
    expect(asked()).toBe(0);
  });
});
