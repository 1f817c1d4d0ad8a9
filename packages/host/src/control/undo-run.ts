/**
 * `bastion undo`'s and `bastion rewind`'s requests, answered through the daemon that owns the
 * home: through the running host's control socket, or a host the CLI starts itself. Without a
 * session, the newest session of the workspace is taken; without a run, undo takes that session's
 * last run and rewind its latest prompt still in the conversation. The daemon decides everything
 * else (POST /agent/undo, POST /agent/rewind); its refusal comes back with its code and its words.
 */
import {
  agentRewindResponseSchema,
  agentUndoResponseSchema,
  sessionSchema,
  type AgentRewindResponse,
  type AgentUndoResponse,
  type Session,
  type WireError,
  type WireErrorCode,
} from '@bastion/protocol';
import type { DaemonClient } from '../daemon-client.js';
import { newestSessionIn, workspaceRootOf } from './workspace-sessions.js';

export interface UndoRunRequest {
  /** The workspace folder whose newest session is meant when no session is named. */
  workspace: string;
  session_id?: string | undefined;
  run_id?: string | undefined;
  dry_run?: boolean | undefined;
}

export interface RewindRunRequest extends UndoRunRequest {
  /** Also put back the files the rewound turns wrote. */
  files: boolean;
}

type Refusal = { ok: false } & WireError<WireErrorCode>;
export type UndoRunAnswer = { ok: true; session_id: string; result: AgentUndoResponse } | Refusal;
export type RewindRunAnswer = { ok: true; session_id: string; result: AgentRewindResponse } | Refusal;

/**
 * The named session, or the workspace's newest; a refusal when there is none, the named one works
 * in another folder (undo, rewind and changes act on this workspace's sessions only), or the
 * daemon refused.
 */
export async function sessionFor(
  client: DaemonClient,
  request: Pick<UndoRunRequest, 'workspace' | 'session_id'>,
): Promise<Session | Refusal> {
  if (request.session_id === undefined) {
    const newest = await newestSessionIn(client, request.workspace);
    if (!newest) return { ok: false, code: 'UNDO_NO_SESSION', message: 'no session has worked in this workspace' };
    return newest.ok ? newest.session : { ok: false, ...newest.error };
  }
  const path = `/sessions/${encodeURIComponent(request.session_id)}`;
  const session = await client.call('GET', path, undefined, sessionSchema);
  if (!session.ok) return { ok: false, ...session.error };
  if (session.body.workspace !== workspaceRootOf(request.workspace)) {
    const where = session.body.workspace ?? 'no folder';
    return {
      ok: false,
      code: 'UNDO_NO_SESSION',
      message: `session ${session.body.id} works in ${where}, not in this one`,
    };
  }
  return session.body;
}

export async function undoRun(client: DaemonClient, request: UndoRunRequest): Promise<UndoRunAnswer> {
  const session = await sessionFor(client, request);
  if ('ok' in session) return session;
  const runId = request.run_id ?? session.last_run?.id;
  if (runId === undefined) return { ok: false, code: 'UNDO_NO_RUN', message: 'the session has no run yet' };
  const answer = await client.call(
    'POST',
    '/agent/undo',
    { session_id: session.id, run_id: runId, ...(request.dry_run === true ? { dry_run: true } : {}) },
    agentUndoResponseSchema,
  );
  return answer.ok ? { ok: true, session_id: session.id, result: answer.body } : { ok: false, ...answer.error };
}

export async function rewindRun(client: DaemonClient, request: RewindRunRequest): Promise<RewindRunAnswer> {
  const session = await sessionFor(client, request);
  if ('ok' in session) return session;
  const answer = await client.call(
    'POST',
    '/agent/rewind',
    {
      session_id: session.id,
      files: request.files,
      ...(request.run_id === undefined ? {} : { run_id: request.run_id }),
      ...(request.dry_run === true ? { dry_run: true } : {}),
    },
    agentRewindResponseSchema,
  );
  return answer.ok ? { ok: true, session_id: session.id, result: answer.body } : { ok: false, ...answer.error };
}
