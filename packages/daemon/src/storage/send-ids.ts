/**
 * The ids clients give their sends (POST /agent/run's `client_id`), each kept with a hash of what
 * was sent and the run and message it made, so that a send repeated because its answer was lost
 * (the sidecar restarted under it) is answered with what the first one made instead of storing the
 * message and starting a run a second time. Recorded inside the transaction that stores the
 * message (`record` is called within the run's start), unique a session; the latest
 * AGENT_SEND_IDS_KEPT_PER_SESSION a session are kept, and they go with their session.
 *
 * The id is the client's choice: it can only name the client's own earlier send in the same
 * session, which the client could read anyway; another session's ids are never looked at.
 */
import { createHash } from 'node:crypto';
import { AGENT_SEND_IDS_KEPT_PER_SESSION } from '@bastion/protocol';
import type { StoreWriter } from './store-writer.js';

/** What a send made, as its first answer said. */
export interface SendOutcome {
  runId: string;
  messageId: string;
}

/** The first send with an id: what it made, and whether `sent` is what it sent. */
export type SendSeen = (SendOutcome & { same: boolean }) | undefined;

/**
 * SHA-256 of what a send carries apart from its session and id: its JSON parts in a fixed order,
 * then its images' bytes (their lengths are in the JSON, so no two sends hash alike by moving bytes).
 */
export function sentHash(parts: readonly unknown[], blobs: readonly Uint8Array[]): string {
  const hash = createHash('sha256').update(JSON.stringify([parts, blobs.map((blob) => blob.byteLength)]));
  for (const blob of blobs) hash.update(blob);
  return hash.digest('hex');
}

export class SendIds {
  readonly #writer: StoreWriter;

  constructor(writer: StoreWriter) {
    this.#writer = writer;
  }

  /** The send `clientId` named in `sessionId` before, if it is still kept; `hash` is sentHash of this one. */
  seen(sessionId: string, clientId: string, hash: string): SendSeen {
    const row = this.#writer.db
      .prepare<[string, string], { sent_sha256: string; run_id: string; message_id: string }>(
        'SELECT sent_sha256, run_id, message_id FROM send_ids WHERE session_id = ? AND client_id = ?',
      )
      .get(sessionId, clientId);
    return row === undefined
      ? undefined
      : { runId: row.run_id, messageId: row.message_id, same: row.sent_sha256 === hash };
  }

  /**
   * Keeps `clientId` with what its send made, and drops the session's ids older than the latest
   * AGENT_SEND_IDS_KEPT_PER_SESSION. Call it inside the write that stores the message.
   */
  record(sessionId: string, clientId: string, hash: string, outcome: SendOutcome): void {
    const { db } = this.#writer;
    db.prepare<[string, string, string, string, string]>(
      'INSERT INTO send_ids (session_id, client_id, sent_sha256, run_id, message_id) VALUES (?, ?, ?, ?, ?)',
    ).run(sessionId, clientId, hash, outcome.runId, outcome.messageId);
    db.prepare<[string, string, number]>(
      `DELETE FROM send_ids WHERE session_id = ? AND n <= (
         SELECT n FROM send_ids WHERE session_id = ? ORDER BY n DESC LIMIT 1 OFFSET ?
       )`,
    ).run(sessionId, sessionId, AGENT_SEND_IDS_KEPT_PER_SESSION);
  }
}
