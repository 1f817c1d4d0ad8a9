/**
 * The sessions store over sessions.db, one part per concept, all sharing one writer (and so one
 * connection and one group commit): sessions, runs and their event log, the model transcript and
 * approvals. Every change that must not be seen half-done is one transaction; the store is the
 * only writer of the file (one sidecar at a time).
 */
import { Approvals } from './approvals.js';
import type { SqliteDatabase } from './database.js';
import { RunLog } from './run-log.js';
import { SendIds } from './send-ids.js';
import { Sessions } from './sessions.js';
import { StoreWriter } from './store-writer.js';
import { Transcript } from './transcript.js';

export class SessionStore {
  /** For other stores over the same file (undo): their writes commit the open group first too. */
  readonly writer: StoreWriter;
  readonly sessions: Sessions;
  readonly runs: RunLog;
  readonly transcript: Transcript;
  readonly approvals: Approvals;
  readonly sendIds: SendIds;

  constructor(db: SqliteDatabase, now: () => Date = () => new Date()) {
    this.writer = new StoreWriter(db, now);
    this.sessions = new Sessions(this.writer);
    this.transcript = new Transcript(this.writer);
    this.approvals = new Approvals(this.writer, this.transcript);
    this.runs = new RunLog(this.writer, this.transcript, this.approvals);
    this.sendIds = new SendIds(this.writer);
  }

  /** Commit the events appended so far and close the database. */
  close(): void {
    this.writer.commit();
    this.writer.db.close();
  }
}
