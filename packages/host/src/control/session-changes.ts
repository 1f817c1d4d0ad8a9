/**
 * `bastion changes`'s request, answered through the daemon that owns the home (the running host's
 * control socket, or a host the CLI starts itself): what the session's file tools changed so far
 * (GET /sessions/:id/changes). Without a session, the newest session of the workspace is taken, as
 * undo takes it; a named session that works in another folder is refused as none here (sessionFor).
 */
import {
  DAEMON_RESPONSE_MAX_BYTES,
  sessionChangesResponseSchema,
  type SessionChangesResponse,
  type WireError,
  type WireErrorCode,
} from '@bastion/protocol';
import type { DaemonClient } from '../daemon-client.js';
import { HostError } from '../errors.js';
import { formatBytes } from '../format-bytes.js';
import { sessionFor } from './undo-run.js';

export interface SessionChangesRequest {
  /** The folder the session must work in; its newest session when none is named. */
  workspace: string;
  session_id?: string | undefined;
}

export type SessionChangesAnswer =
  { ok: true; session_id: string; changes: SessionChangesResponse } | ({ ok: false } & WireError<WireErrorCode>);

export async function sessionChangesIn(
  client: DaemonClient,
  request: SessionChangesRequest,
): Promise<SessionChangesAnswer> {
  const session = await sessionFor(client, request);
  if ('ok' in session) return session;
  try {
    const path = `/sessions/${session.id}/changes`;
    const answer = await client.call('GET', path, undefined, sessionChangesResponseSchema);
    return answer.ok ? { ok: true, session_id: session.id, changes: answer.body } : { ok: false, ...answer.error };
  } catch (error) {
    // Diffs full of characters JSON escapes can go past what the host reads of one daemon answer.
    if (!(error instanceof HostError) || error.code !== 'DAEMON_RESPONSE_TOO_LARGE') throw error;
    return {
      ok: false,
      code: 'DAEMON_RESPONSE_TOO_LARGE',
      message: `the session's changes with their diffs are over the ${formatBytes(DAEMON_RESPONSE_MAX_BYTES)} one answer may carry`,
    };
  }
}
