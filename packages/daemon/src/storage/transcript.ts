/**
 * The model transcript in sessions.db: each session's messages in order (what the model is sent
 * and what it answered, tool calls and results, approval answers) and the summaries a compaction
 * put in place of the messages before them.
 */
import type { ModelMessage } from 'ai';
import { PAGE_DEFAULT_LIMIT, type Message, type MessagePart } from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import { newId } from './ids.js';
import { cursorPosition, type Page } from './page.js';
import type { StoreWriter } from './store-writer.js';

/** What `modelContext` read: see there. */
export interface ModelContextRead {
  summary: string | undefined;
  messages: ModelMessage[];
  ids: string[];
  cut: boolean;
}

interface MessageRow {
  id: string;
  seq: number;
  role: Message['role'];
  run_id: string | null;
  content: string;
  created_at: string;
  rewound: number;
}

/** A condition on a `messages` row: no rewind took it out of what the model is sent. */
const NOT_REWOUND = `NOT EXISTS (
  SELECT 1 FROM context_rewinds r
  WHERE r.session_id = messages.session_id AND messages.seq BETWEEN r.from_seq AND r.through_seq)`;

const MESSAGE_COLUMNS = `id, seq, role, run_id, content, created_at, NOT ${NOT_REWOUND} AS rewound`;

/** Where a session can be taken back to: the prompt that started a run. */
export interface RewindPoint {
  seq: number;
  /** The prompt's text. */
  text: string;
  /** An earlier rewind already took it out of the conversation. */
  rewound: boolean;
  /** A compaction's summary stands for it. */
  summarised: boolean;
}

function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    role: row.role,
    run_id: row.run_id,
    created_at: row.created_at,
    parts: toMessageParts(JSON.parse(row.content) as ModelMessage['content']),
    ...(row.rewound === 1 ? { rewound: true as const } : {}),
  };
}

/** Stored model content → the wire shape of a message's parts (reasoning and files are not shown). */
export function toMessageParts(content: ModelMessage['content']): MessagePart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: MessagePart[] = [];
  for (const part of content) {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', text: part.text });
        break;
      case 'tool-call':
        parts.push({ type: 'tool-call', tool_call_id: part.toolCallId, tool_name: part.toolName, input: part.input });
        break;
      case 'tool-result':
        parts.push({
          type: 'tool-result',
          tool_call_id: part.toolCallId,
          tool_name: part.toolName,
          output: part.output,
        });
        break;
      case 'tool-approval-request':
        parts.push({ type: 'tool-approval-request', approval_id: part.approvalId, tool_call_id: part.toolCallId });
        break;
      case 'tool-approval-response':
        parts.push({
          type: 'tool-approval-response',
          approval_id: part.approvalId,
          approved: part.approved,
          ...(part.reason === undefined ? {} : { reason: part.reason }),
        });
        break;
      case 'file':
      case 'image':
      case 'reasoning':
        // not part of the wire transcript
        break;
    }
  }
  return parts;
}

export class Transcript {
  readonly #writer: StoreWriter;
  readonly #insertMessage;
  readonly #nextSeq;

  constructor(writer: StoreWriter) {
    this.#writer = writer;
    this.#insertMessage = writer.db.prepare<[string, string, string | null, number, string, string, string]>(
      'INSERT INTO messages (id, session_id, run_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.#nextSeq = writer.db.prepare<[string], { seq: number }>(
      'SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM messages WHERE session_id = ?',
    );
  }

  /** Store messages after the session's last, in order (system messages are not stored); their ids. */
  append(sessionId: string, runId: string | null, messages: readonly ModelMessage[]): string[] {
    return this.#writer.write(() => {
      let seq = (this.#nextSeq.get(sessionId) as { seq: number }).seq;
      const now = this.#writer.now();
      const ids: string[] = [];
      for (const message of messages) {
        if (message.role === 'system') continue;
        const id = newId('msg');
        this.#insertMessage.run(id, sessionId, runId, seq, message.role, JSON.stringify(message.content), now);
        ids.push(id);
        seq += 1;
      }
      return ids;
    });
  }

  /** Oldest first; `cursor` is the previous page's `next`. */
  list(sessionId: string, options: { limit?: number; cursor?: string } = {}): Page<Message> {
    const limit = options.limit ?? PAGE_DEFAULT_LIMIT;
    const after = cursorPosition(options.cursor, 0);
    const rows = this.#writer.db
      .prepare<[string, number, number], MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(sessionId, after, limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(toMessage), next: rows.length > limit && last ? String(last.seq) : null };
  }

  /** The session's stored messages with these ids (unknown ids are skipped), in the ids' order. */
  byIds(sessionId: string, ids: readonly string[]): Message[] {
    const select = this.#writer.db.prepare<[string, string], MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND id = ?`,
    );
    return ids.flatMap((id) => {
      const row = select.get(sessionId, id);
      return row ? [toMessage(row)] : [];
    });
  }

  /**
   * What the next model call starts from, read with a bound that does not grow with the session:
   * the latest summary (if a compaction made one) and at most `limit` messages after it, newest
   * first in the query. Consecutive tool messages (answers to several approvals of one step,
   * stored one by one) are merged into one, which is where the AI SDK looks for approval
   * responses. `ids` holds, for each model message, the id of its last stored row. When more
   * messages follow the summary than `limit`, the oldest read ones up to the first user or
   * assistant message are left out too (a view never starts with a tool result), and `cut` says so.
   */
  modelContext(sessionId: string, limit: number): ModelContextRead {
    return this.#writer.read(() => {
      const summary = this.#writer.db
        .prepare<[string], { through_seq: number; summary: string }>(
          'SELECT through_seq, summary FROM context_summaries WHERE session_id = ? ORDER BY n DESC LIMIT 1',
        )
        .get(sessionId);
      const rows = this.#writer.db
        .prepare<[string, number, number], { id: string; role: 'user' | 'assistant' | 'tool'; content: string }>(
          `SELECT id, role, content FROM messages WHERE session_id = ? AND seq > ? AND ${NOT_REWOUND}
           ORDER BY seq DESC LIMIT ?`,
        )
        .all(sessionId, summary?.through_seq ?? 0, limit + 1)
        .reverse();
      const cut = rows.length > limit;
      let first = cut ? 1 : 0;
      if (cut) while (first < rows.length && rows[first]?.role === 'tool') first += 1;
      const messages: ModelMessage[] = [];
      const ids: string[] = [];
      for (const row of rows.slice(first)) {
        const content = JSON.parse(row.content) as unknown;
        const last = messages.at(-1);
        if (row.role === 'tool' && last?.role === 'tool') {
          last.content.push(...(content as typeof last.content));
          ids[ids.length - 1] = row.id;
          continue;
        }
        messages.push({ role: row.role, content } as ModelMessage);
        ids.push(row.id);
      }
      return { summary: summary?.summary, messages, ids, cut };
    });
  }

  /** The prompt that started `runId` in this session, or undefined (no such run, or one without a prompt). */
  rewindPoint(sessionId: string, runId: string): RewindPoint | undefined {
    return this.#writer.read(() => {
      const row = this.#writer.db
        .prepare<[string, string], { seq: number; content: string; rewound: number; summarised: number }>(
          `SELECT seq, content, NOT ${NOT_REWOUND} AS rewound,
             EXISTS (SELECT 1 FROM context_summaries s WHERE s.session_id = messages.session_id AND s.through_seq >= messages.seq) AS summarised
           FROM messages WHERE session_id = ? AND run_id = ? AND role = 'user' ORDER BY seq LIMIT 1`,
        )
        .get(sessionId, runId);
      if (!row) return undefined;
      const content = JSON.parse(row.content) as Extract<ModelMessage, { role: 'user' }>['content'];
      const text =
        typeof content === 'string'
          ? content
          : content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      return { seq: row.seq, text, rewound: row.rewound === 1, summarised: row.summarised === 1 };
    });
  }

  /** The run of the session's latest prompt that the model is still sent, or undefined. */
  latestPromptRun(sessionId: string): string | undefined {
    return this.#writer.read(
      () =>
        this.#writer.db
          .prepare<[string], { run_id: string }>(
            `SELECT run_id FROM messages
             WHERE session_id = ? AND role = 'user' AND run_id IS NOT NULL AND ${NOT_REWOUND}
             ORDER BY seq DESC LIMIT 1`,
          )
          .get(sessionId)?.run_id,
    );
  }

  /** The prompts from `fromSeq` on that the model is still sent. */
  promptsFrom(sessionId: string, fromSeq: number): number {
    return this.#writer.read(
      () =>
        this.#writer.db
          .prepare<[string, number], { count: number }>(
            `SELECT COUNT(*) AS count FROM messages
             WHERE session_id = ? AND seq >= ? AND role = 'user' AND run_id IS NOT NULL AND ${NOT_REWOUND}`,
          )
          .get(sessionId, fromSeq)?.count ?? 0,
    );
  }

  /**
   * Take every message of the session from `fromSeq` on out of what later model calls see (a
   * rewind to before the prompt at `fromSeq`); call inside the transaction that records it.
   */
  rewind(sessionId: string, runId: string, fromSeq: number): void {
    this.#writer.db
      .prepare(
        `INSERT INTO context_rewinds (session_id, run_id, from_seq, through_seq, created_at)
         SELECT ?, ?, ?, MAX(seq), ? FROM messages WHERE session_id = ?`,
      )
      .run(sessionId, runId, fromSeq, this.#writer.now(), sessionId);
  }

  /**
   * Store a compaction: `summary` stands for every message of the session up to and including
   * `throughMessageId` in what later model calls see. Refused with CONTEXT_SUMMARY_UNKNOWN_MESSAGE
   * when that message is not this session's.
   */
  saveSummary(input: {
    sessionId: string;
    runId: string;
    throughMessageId: string;
    summary: string;
    messagesSummarized: number;
  }): void {
    this.#writer.write(() => {
      const saved = this.#writer.db
        .prepare(
          `INSERT INTO context_summaries (session_id, run_id, through_seq, summary, messages_summarized, created_at)
           SELECT session_id, ?, seq, ?, ?, ? FROM messages WHERE id = ? AND session_id = ?`,
        )
        .run(
          input.runId,
          input.summary,
          input.messagesSummarized,
          this.#writer.now(),
          input.throughMessageId,
          input.sessionId,
        );
      if (saved.changes !== 1)
        throw new DaemonError('CONTEXT_SUMMARY_UNKNOWN_MESSAGE', 'the summarised messages are not in this session');
    });
  }
}
