/**
 * Approvals in sessions.db: each tool call the model asked to run with the user's consent, its
 * answer (approved, denied, or cancelled by an abort) and when. An answer is checked against the
 * stored request and recorded with the transcript's tool-approval-response in one transaction.
 * Also, for a write whose question showed its diff (the approval, or the host's own question),
 * the file that diff was worked out against: the write is made only over that file.
 */
import type { StoreWriter } from './store-writer.js';
import type { Transcript } from './transcript.js';

interface ApprovalRow {
  id: string;
  session_id: string;
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  status: ApprovalStatus;
}

export type ApprovalStatus = 'pending' | 'approved' | 'denied' | 'cancelled';

/** Why an approval answer was refused; each maps to its own wire code. */
export type ApprovalAnswerRefusal =
  'unknown-approval' | 'other-session' | 'tool-call-mismatch' | 'already-answered' | 'cancelled';

export interface ApprovalAnswerInput {
  sessionId: string;
  approvalId: string;
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

/** Why an answer to the approval `row` is refused, if it is: each check of Approvals.answer before it writes. */
function refusalOf(
  row: ApprovalRow | undefined,
  answer: Pick<ApprovalAnswerInput, 'sessionId' | 'toolCallId'>,
): ApprovalAnswerRefusal | undefined {
  if (!row) return 'unknown-approval';
  if (row.session_id !== answer.sessionId) return 'other-session';
  if (row.tool_call_id !== answer.toolCallId) return 'tool-call-mismatch';
  if (row.status === 'cancelled') return 'cancelled';
  return row.status === 'pending' ? undefined : 'already-answered';
}

export class Approvals {
  readonly #writer: StoreWriter;
  readonly #transcript: Transcript;

  constructor(writer: StoreWriter, transcript: Transcript) {
    this.#writer = writer;
    this.#transcript = transcript;
  }

  recordRequest(input: {
    sessionId: string;
    runId: string;
    approvalId: string;
    toolCallId: string;
    toolName: string;
    input: unknown;
  }): void {
    this.#writer.write(() =>
      this.#writer.db
        .prepare(
          `INSERT INTO approvals (id, session_id, run_id, tool_call_id, tool_name, input, status, requested_at)
           VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
        )
        .run(
          input.approvalId,
          input.sessionId,
          input.runId,
          input.toolCallId,
          input.toolName,
          JSON.stringify(input.input ?? null),
          this.#writer.now(),
        ),
    );
  }

  hasPending(sessionId: string): boolean {
    return (
      this.#writer.db
        .prepare<[string], { one: number }>(
          `SELECT 1 AS one FROM approvals WHERE session_id = ? AND status = 'pending' LIMIT 1`,
        )
        .get(sessionId) !== undefined
    );
  }

  /**
   * Cancel the session's pending approvals (abort), closing each tool call in the transcript with
   * an `execution-denied` result, so the next model call carries no call without a result.
   */
  cancelPending(sessionId: string): number {
    return this.#writer.write(() => {
      const pending = this.#writer.db
        .prepare<[string], ApprovalRow>(`SELECT * FROM approvals WHERE session_id = ? AND status = 'pending'`)
        .all(sessionId);
      if (pending.length === 0) return 0;
      this.#writer.db
        .prepare(
          `UPDATE approvals SET status = 'cancelled', answered_at = ? WHERE session_id = ? AND status = 'pending'`,
        )
        .run(this.#writer.now(), sessionId);
      this.#transcript.append(
        sessionId,
        null,
        pending.map((approval) => ({
          role: 'tool' as const,
          content: [
            {
              type: 'tool-result' as const,
              toolCallId: approval.tool_call_id,
              toolName: approval.tool_name,
              output: { type: 'execution-denied' as const, reason: 'the run was aborted before an answer' },
            },
          ],
        })),
      );
      return pending.length;
    });
  }

  /**
   * Flip a pending approval to answered — only if it is pending, belongs to this session and its
   * tool call matches — and append the answer to the transcript as the model's
   * tool-approval-response, all in one transaction. Any refusal changes nothing.
   */
  answer(
    answer: ApprovalAnswerInput,
  ): { ok: true; toolName: string; runId: string } | { ok: false; refusal: ApprovalAnswerRefusal } {
    return this.#writer.write(() => {
      const row = this.#row(answer.approvalId);
      const refusal = refusalOf(row, answer);
      if (refusal !== undefined || !row) return { ok: false as const, refusal: refusal ?? 'unknown-approval' };
      const changed = this.#writer.db
        .prepare(
          `UPDATE approvals SET status = ?, reason = ?, answered_at = ?
           WHERE id = ? AND session_id = ? AND tool_call_id = ? AND status = 'pending'`,
        )
        .run(
          answer.approved ? 'approved' : 'denied',
          answer.reason ?? null,
          this.#writer.now(),
          answer.approvalId,
          answer.sessionId,
          answer.toolCallId,
        );
      if (changed.changes !== 1) return { ok: false as const, refusal: 'already-answered' as const };
      this.#transcript.append(answer.sessionId, row.run_id, [
        {
          role: 'tool',
          content: [
            {
              type: 'tool-approval-response',
              approvalId: answer.approvalId,
              approved: answer.approved,
              ...(answer.reason === undefined ? {} : { reason: answer.reason }),
            },
          ],
        },
      ]);
      return { ok: true as const, toolName: row.tool_name, runId: row.run_id };
    });
  }

  /**
   * Why `answer` would be refused now, if it would (answer's own checks, nothing changed): an
   * approval answered in another tab or terminal meanwhile says so before anything else does.
   */
  refusal(
    answer: Pick<ApprovalAnswerInput, 'sessionId' | 'approvalId' | 'toolCallId'>,
  ): ApprovalAnswerRefusal | undefined {
    return this.#writer.read(() => refusalOf(this.#row(answer.approvalId), answer));
  }

  #row(approvalId: string): ApprovalRow | undefined {
    return this.#writer.db.prepare<[string], ApprovalRow>('SELECT * FROM approvals WHERE id = ?').get(approvalId);
  }

  /**
   * Keep the file a write call's question showed its diff against: the sha256 of its bytes, or
   * null when there was no file (a later question about the same call replaces it).
   */
  recordShown(sessionId: string, toolCallId: string, sha256: string | null): void {
    this.#writer.write(() =>
      this.#writer.db
        .prepare(
          `INSERT INTO shown_writes (session_id, tool_call_id, shown_sha256) VALUES (?, ?, ?)
           ON CONFLICT (session_id, tool_call_id) DO UPDATE SET shown_sha256 = excluded.shown_sha256`,
        )
        .run(sessionId, toolCallId, sha256),
    );
  }

  /** The file the question about this write call showed its diff against; undefined when none was shown. */
  shown(sessionId: string, toolCallId: string): string | null | undefined {
    return this.#writer.read(
      () =>
        this.#writer.db
          .prepare<[string, string], { shown_sha256: string | null }>(
            'SELECT shown_sha256 FROM shown_writes WHERE session_id = ? AND tool_call_id = ?',
          )
          .get(sessionId, toolCallId)?.shown_sha256,
    );
  }

  /** The status of the approval asked for this tool call, if one was asked. */
  status(sessionId: string, toolCallId: string): ApprovalStatus | undefined {
    return this.#writer.read(
      () =>
        this.#writer.db
          .prepare<[string, string], Pick<ApprovalRow, 'status'>>(
            'SELECT status FROM approvals WHERE session_id = ? AND tool_call_id = ?',
          )
          .get(sessionId, toolCallId)?.status,
    );
  }
}
