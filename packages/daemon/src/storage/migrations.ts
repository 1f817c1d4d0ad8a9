/**
 * Versioned schema of sessions.db. Each migration runs once, in a transaction, and bumps
 * `PRAGMA user_version`; a database newer than this code is refused rather than guessed at.
 *
 * Tables:
 * - sessions       one row a conversation; mode and the informed consent to `auto` (who, when)
 * - runs           one row a model run; at most one `running` row a session (partial unique index)
 * - messages       the transcript as the model sees it (AI SDK model-message content, JSON)
 * - message_parts  every streamed event of every run, in order; its integer id is the SSE event id,
 *                  so `Last-Event-ID` resumes exactly
 * - approvals      tool calls waiting for a human: flipped from `pending` to an answer in one
 *                  UPDATE that must match session, approval and tool-call ids together
 * - tool_audit     the watchdog's decision for every tool call (verdict, rule, mode, approval,
 *                  outcome; the command's name only, no argument); append-only (a trigger refuses
 *                  UPDATE), gone only with its session
 *
 * Version 3: the `read-only` mode and `ask_before_writes` (the sessions table rebuilt for its
 * CHECK, with foreign keys off for the swap, as SQLite's generalized ALTER TABLE procedure says).
 *
 * Version 2: each run's token usage (summed over its steps, as the provider reported it), its
 * estimated cost (null when the model has no known price) and the context size of its last step.
 * Version 4: the tool_audit table.
 * Version 5: a stored event may point at the text it carries instead of holding it. After a run,
 * its text and reasoning deltas are folded into events whose `ref_*` columns name an assistant
 * message, the index of a part of its content and a UTF-8 byte range of that part's text, plus
 * where that range starts among all the run's deltas of its kind (the event's `data` then lacks
 * `text`), so a reply is stored once. Deleting that message deletes the
 * events that point into it. Events written before (all `ref_*` null) read as they always did.
 * New databases are created with incremental auto-vacuum, so the space a fold frees is returned.
 * Version 6: undo — `undo_files`, one row per file a run wrote with write_file/edit_file: what it
 * held before the run's first change (its bytes, `absent`, or why they were not kept) and what the
 * run left (size and SHA-256); and `runs.undone_at`.
 *
 * Version 7: context_summaries — each compaction of a session's older turns: the summary the
 * model sees instead of every message up to `through_seq`; the messages themselves stay whole.
 *
 * Version 8: `undo_files.created_dirs` — the directories (a JSON array of paths relative to the
 * root, outermost first) the run's first write of a file created on its way, for undo to remove.
 *
 * Version 9: context_rewinds — each rewind of a session (POST /agent/rewind): the messages from
 * `from_seq` to `through_seq` (a prompt and everything after it, when rewound) are not sent to the
 * model any more; they stay stored, as every message does.
 *
 * Version 10: `sessions.reasoning_effort` — the effort a session's runs ask a reasoning model for
 * (null: the model's default).
 *
 * Version 11: message_images — the images a user attached to a prompt, one row each, apart from
 * the message's JSON (which names each by id), so a transcript page never carries their bytes.
 *
 * Version 12: shown_writes — for each write_file/edit_file call a person was asked about with its
 * diff, the file that diff was worked out against (the sha256 of its bytes, null for no file), so
 * that the write, once allowed, is made only over that file.
 *
 * Version 13: `message_parts.ref_marks` — for a folded event, the ids and byte lengths of the
 * deltas it stands for, so a client whose Last-Event-ID points at one of them (a stream dropped
 * mid-reply, back after the fold) is sent only the text after it.
 *
 * Version 14: send_ids — a send's client-chosen id (POST /agent/run's `client_id`) with a hash of
 * what it sent and the run and message it made, written in the transaction that stores the
 * message; unique a session, the latest AGENT_SEND_IDS_KEPT_PER_SESSION kept.
 *
 * Version 15: `sessions.provisional` — 1 for a session New session made that nothing has touched
 * since (no run, no change of its settings, not kept by a page or `bastion chat`); such a session
 * shown nowhere is removed (untouched-sessions.ts).
 */
export interface Migration {
  version: number;
  sql: string;
  /** Run with foreign keys off (a table rebuild); the keys are checked before it commits. */
  rebuildsTables?: true;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE sessions (
        n               INTEGER PRIMARY KEY,
        id              TEXT NOT NULL UNIQUE,
        title           TEXT NOT NULL DEFAULT '',
        mode            TEXT NOT NULL CHECK (mode IN ('accept-edits', 'auto')),
        provider        TEXT NOT NULL,
        model           TEXT NOT NULL,
        workspace       TEXT,
        auto_consent_by TEXT,
        auto_consent_at TEXT,
        created_at      TEXT NOT NULL,
        updated_at      TEXT NOT NULL
      );

      CREATE TABLE runs (
        n             INTEGER PRIMARY KEY,
        id            TEXT NOT NULL UNIQUE,
        session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        status        TEXT NOT NULL CHECK (status IN ('running', 'finished', 'error', 'aborted', 'interrupted')),
        finish_reason TEXT,
        error_code    TEXT,
        provider      TEXT NOT NULL,
        model         TEXT NOT NULL,
        started_at    TEXT NOT NULL,
        ended_at      TEXT
      );
      CREATE UNIQUE INDEX runs_one_running_per_session ON runs(session_id) WHERE status = 'running';
      CREATE INDEX runs_by_session ON runs(session_id, n);

      CREATE TABLE messages (
        id         TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id     TEXT REFERENCES runs(id) ON DELETE SET NULL,
        seq        INTEGER NOT NULL,
        role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
        content    TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (session_id, seq)
      );

      CREATE TABLE message_parts (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id     TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        type       TEXT NOT NULL,
        data       TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX message_parts_by_session ON message_parts(session_id, id);
      CREATE INDEX message_parts_by_run ON message_parts(run_id);

      CREATE TABLE approvals (
        id           TEXT PRIMARY KEY,
        session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL,
        tool_name    TEXT NOT NULL,
        input        TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'cancelled')),
        reason       TEXT,
        requested_at TEXT NOT NULL,
        answered_at  TEXT,
        UNIQUE (session_id, tool_call_id)
      );
      CREATE INDEX approvals_pending_by_session ON approvals(session_id) WHERE status = 'pending';
    `,
  },
  {
    version: 2,
    sql: `
      ALTER TABLE runs ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN cached_input_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN cost_usd REAL;
      ALTER TABLE runs ADD COLUMN context_tokens INTEGER;
    `,
  },
  {
    version: 3,
    rebuildsTables: true,
    sql: `
      CREATE TABLE sessions_v3 (
        n                 INTEGER PRIMARY KEY,
        id                TEXT NOT NULL UNIQUE,
        title             TEXT NOT NULL DEFAULT '',
        mode              TEXT NOT NULL CHECK (mode IN ('read-only', 'accept-edits', 'auto')),
        provider          TEXT NOT NULL,
        model             TEXT NOT NULL,
        workspace         TEXT,
        auto_consent_by   TEXT,
        auto_consent_at   TEXT,
        ask_before_writes INTEGER NOT NULL DEFAULT 0 CHECK (ask_before_writes IN (0, 1)),
        created_at        TEXT NOT NULL,
        updated_at        TEXT NOT NULL
      );
      INSERT INTO sessions_v3 (n, id, title, mode, provider, model, workspace, auto_consent_by, auto_consent_at, created_at, updated_at)
        SELECT n, id, title, mode, provider, model, workspace, auto_consent_by, auto_consent_at, created_at, updated_at FROM sessions;
      DROP TABLE sessions;
      ALTER TABLE sessions_v3 RENAME TO sessions;
    `,
  },
  {
    version: 4,
    sql: `
      CREATE TABLE tool_audit (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id       TEXT,
        tool_call_id TEXT NOT NULL,
        tool_name    TEXT NOT NULL,
        command_name TEXT,
        mode         TEXT,
        verdict      TEXT,
        rule_id      TEXT,
        rule_layer   TEXT,
        approval     TEXT NOT NULL,
        outcome      TEXT NOT NULL,
        code         TEXT,
        created_at   TEXT NOT NULL
      );
      CREATE INDEX tool_audit_by_session ON tool_audit(session_id, id);
      CREATE TRIGGER tool_audit_append_only BEFORE UPDATE ON tool_audit
      BEGIN
        SELECT RAISE(ABORT, 'tool_audit is append-only');
      END;
    `,
  },
  {
    version: 5,
    sql: `
      ALTER TABLE message_parts ADD COLUMN ref_message TEXT REFERENCES messages(id) ON DELETE CASCADE;
      ALTER TABLE message_parts ADD COLUMN ref_part INTEGER;
      ALTER TABLE message_parts ADD COLUMN ref_start INTEGER;
      ALTER TABLE message_parts ADD COLUMN ref_bytes INTEGER;
      ALTER TABLE message_parts ADD COLUMN ref_run_offset INTEGER;
      CREATE INDEX message_parts_by_ref ON message_parts(ref_message) WHERE ref_message IS NOT NULL;
    `,
  },
  {
    version: 6,
    sql: `
      ALTER TABLE runs ADD COLUMN undone_at TEXT;
      CREATE TABLE undo_files (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        root         TEXT NOT NULL,
        path         TEXT NOT NULL,
        prior        TEXT NOT NULL CHECK (prior IN ('file', 'absent', 'too-large', 'pruned')),
        prior_bytes  BLOB,
        prior_sha256 TEXT,
        after_size   INTEGER,
        after_sha256 TEXT,
        created_at   TEXT NOT NULL,
        UNIQUE (run_id, root, path),
        CHECK ((prior = 'file') = (prior_bytes IS NOT NULL))
      );
      CREATE INDEX undo_files_by_session ON undo_files(session_id, run_id);
    `,
  },
  {
    version: 7,
    sql: `
      CREATE TABLE context_summaries (
        n                   INTEGER PRIMARY KEY,
        session_id          TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id              TEXT REFERENCES runs(id) ON DELETE SET NULL,
        through_seq         INTEGER NOT NULL,
        summary             TEXT NOT NULL,
        messages_summarized INTEGER NOT NULL,
        created_at          TEXT NOT NULL
      );
      CREATE INDEX context_summaries_by_session ON context_summaries(session_id, n);
    `,
  },
  {
    version: 8,
    sql: `ALTER TABLE undo_files ADD COLUMN created_dirs TEXT;`,
  },
  {
    version: 9,
    sql: `
      CREATE TABLE context_rewinds (
        n           INTEGER PRIMARY KEY,
        session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        run_id      TEXT REFERENCES runs(id) ON DELETE SET NULL,
        from_seq    INTEGER NOT NULL,
        through_seq INTEGER NOT NULL,
        created_at  TEXT NOT NULL,
        CHECK (from_seq <= through_seq)
      );
      CREATE INDEX context_rewinds_by_session ON context_rewinds(session_id, from_seq);
    `,
  },
  {
    version: 10,
    sql: `ALTER TABLE sessions ADD COLUMN reasoning_effort TEXT
            CHECK (reasoning_effort IS NULL OR reasoning_effort IN ('low', 'medium', 'high'));`,
  },
  {
    version: 11,
    sql: `
      CREATE TABLE message_images (
        id          TEXT PRIMARY KEY,
        session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        message_id  TEXT NOT NULL,
        media_type  TEXT NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg', 'image/gif', 'image/webp')),
        data        BLOB NOT NULL,
        created_at  TEXT NOT NULL
      );
      CREATE INDEX message_images_by_session ON message_images(session_id);
    `,
  },
  {
    version: 12,
    sql: `
      CREATE TABLE shown_writes (
        session_id   TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        tool_call_id TEXT NOT NULL,
        shown_sha256 TEXT CHECK (shown_sha256 IS NULL OR length(shown_sha256) = 64),
        PRIMARY KEY (session_id, tool_call_id)
      );
    `,
  },
  {
    version: 13,
    sql: `ALTER TABLE message_parts ADD COLUMN ref_marks TEXT;`,
  },
  {
    version: 14,
    sql: `
      CREATE TABLE send_ids (
        n           INTEGER PRIMARY KEY,
        session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        client_id   TEXT NOT NULL,
        sent_sha256 TEXT NOT NULL CHECK (length(sent_sha256) = 64),
        run_id      TEXT NOT NULL,
        message_id  TEXT NOT NULL,
        UNIQUE (session_id, client_id)
      );
    `,
  },
  {
    version: 15,
    sql: `
      ALTER TABLE sessions ADD COLUMN provisional INTEGER NOT NULL DEFAULT 0 CHECK (provisional IN (0, 1));
      CREATE INDEX sessions_provisional ON sessions(id) WHERE provisional = 1;
    `,
  },
];
