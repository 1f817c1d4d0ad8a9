/**
 * `bastion undo`'s request, answered through the daemon that owns the home: through the running
 * host's control socket, or a host the CLI starts itself. Without a session, the newest session of
 * the workspace is taken; without a run, that session's last run. The daemon decides everything
 * else (POST /agent/undo); its refusal comes back with its code and its words.
 */
import {
  agentUndoResponseSchema,
  sessionSchema,
  type WireError,
  type WireErrorCode,
  type AgentUndoResponse,
} from '@bastion/protocol';
import type { DaemonClient } from '../daemon-client.js';
import { newestSessionIn } from './workspace-sessions.js';

export interface UndoRunRequest {
  /** The workspace folder whose newest session is meant when no session is named. */
  workspace: string;
  session_id?: string | undefined;
  run_id?: string | undefined;
  dry_run?: boolean | undefined;
}

export type UndoRunAnswer =
  { ok: true; session_id: string; result: AgentUndoResponse } | ({ ok: false } & WireError<WireErrorCode>);

export async function undoRun(client: DaemonClient, request: UndoRunRequest): Promise<UndoRunAnswer> {
  let sessionId = request.session_id;
  let runId = request.run_id;
  if (sessionId === undefined) {
    const newest = await newestSessionIn(client, request.workspace);
    if (!newest) return { ok: false, code: 'UNDO_NO_SESSION', message: 'no session has worked in this workspace' };
    if (!newest.ok) return { ok: false, ...newest.error };
    sessionId = newest.session.id;
    runId ??= newest.session.last_run?.id;
  } else if (runId === undefined) {
    const session = await client.call('GET', `/sessions/${encodeURIComponent(sessionId)}`, undefined, sessionSchema);
    if (!session.ok) return { ok: false, ...session.error };
    runId = session.body.last_run?.id;
  }
  if (runId === undefined) return { ok: false, code: 'UNDO_NO_RUN', message: 'the session has no run yet' };
  const answer = await client.call(
    'POST',
    '/agent/undo',
    { session_id: sessionId, run_id: runId, ...(request.dry_run === true ? { dry_run: true } : {}) },
    agentUndoResponseSchema,
  );
  return answer.ok ? { ok: true, session_id: sessionId, result: answer.body } : { ok: false, ...answer.error };
}
