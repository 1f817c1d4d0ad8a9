/**
 * The model transcript in sessions.db: each session's messages in order (what the model is sent
 * and what it answered, tool calls and results, approval answers) and the summaries a compaction
 * put in place of the messages before them.
 */
import type { UserContent, ModelMessage, TextPart } from 'ai';
import {
  IMAGE_CONTEXT_MAX_BYTES,
  PAGE_DEFAULT_LIMIT,
  imageFormatName,
  type ImageMediaType,
  type McpAttachedResource,
  type McpPromptOrigin,
  type McpPromptSent,
  type McpTextOrigin,
  type Message,
  type MessagePart,
} from '@bastion/protocol';
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

/**
 * An attached image as a stored prompt holds it: `image` is its `message_images` id, not its bytes
 * (modelContext puts the bytes in), with its size and the name it was attached under.
 */
export interface StoredImagePart {
  type: 'image';
  image: string;
  mediaType: ImageMediaType;
  bytes: number;
  name?: string;
}

/** An image to store with a prompt (`Transcript.saveImages`). */
export interface PromptImage {
  id: string;
  mediaType: ImageMediaType;
  data: Uint8Array;
  name?: string;
}

/** The stored part that names `image` in its prompt's content. */
export function storedImagePart(image: PromptImage): StoredImagePart {
  return {
    type: 'image',
    image: image.id,
    mediaType: image.mediaType,
    bytes: image.data.byteLength,
    ...(image.name === undefined ? {} : { name: image.name }),
  };
}

/**
 * A text part of a stored prompt that came from an MCP server, with where from: the prompt the
 * message's text came from, or a resource the user attached (its text). modelContext sends it as
 * plain text, a resource's said to be one; the wire shape keeps `mcp` for the transcript.
 */
interface StoredMcpTextPart {
  type: 'text';
  text: string;
  mcp: McpTextOrigin;
}

/**
 * The text parts of a new prompt: the message (marked with the MCP prompt it came from, if any,
 * and the ranges of it that prompt wrote), then each attached resource's text (marked with what it is).
 */
export function storedPromptTexts(
  message: string,
  prompt: McpPromptSent | undefined,
  resources: readonly McpAttachedResource[],
): (TextPart | StoredMcpTextPart)[] {
  return [
    prompt === undefined
      ? { type: 'text', text: message }
      : { type: 'text', text: message, mcp: { kind: 'prompt', ...prompt } },
    ...resources.map((resource): StoredMcpTextPart => ({
      type: 'text',
      text: resource.text,
      mcp: { kind: 'resource', server: resource.server, uri: resource.uri, name: resource.name },
    })),
  ];
}

/** What the model is sent of a stored text part: a resource's text under a line saying what it is and whose. */
function textForModel(part: TextPart | StoredMcpTextPart): TextPart {
  if (!('mcp' in part)) return part;
  if (part.mcp.kind === 'prompt') return { type: 'text', text: part.text };
  const name = part.mcp.name === '' ? '' : ` (${JSON.stringify(part.mcp.name)})`;
  return {
    type: 'text',
    text: `[The user attached the resource ${part.mcp.uri}${name} of the MCP server ${part.mcp.server}; its text follows.]\n${part.text}`,
  };
}

/** A stored resource's text: not the user's own words (a rewind puts back only those). */
const isResourceText = (part: { type: string }) => 'mcp' in part && (part as StoredMcpTextPart).mcp.kind === 'resource';
const isPromptText = (part: { type: string }): part is StoredMcpTextPart =>
  'mcp' in part && (part as StoredMcpTextPart).mcp.kind === 'prompt';

/** What stands in the model's context for an image it is not sent. */
function imageInWords(part: StoredImagePart, why: string): TextPart {
  const name = part.name === undefined ? '' : ` ${JSON.stringify(part.name)}`;
  return {
    type: 'text',
    text: `[An image${name} (${imageFormatName(part.mediaType)}, ${part.bytes} bytes) the user attached is not shown: ${why}.]`,
  };
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
  /** The MCP server's prompt its text came from, if it did. */
  mcpPrompt?: McpPromptOrigin;
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
        parts.push({
          type: 'text',
          text: part.text,
          ...('mcp' in part ? { mcp: (part as StoredMcpTextPart).mcp } : {}),
        });
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
      case 'image': {
        const image = part as unknown as StoredImagePart;
        parts.push({
          type: 'image',
          image_id: image.image,
          media_type: image.mediaType,
          bytes: image.bytes,
          ...(image.name === undefined ? {} : { name: image.name }),
        });
        break;
      }
      case 'file':
      case 'reasoning':
        // not part of the wire transcript
        break;
    }
  }
  return parts;
}

/** What the model is told of a stored call that never got a result. */
const NOT_RUN_REASON = 'not run: its run ended before it was run';

/**
 * Put a result in for each tool call that a later user or assistant message follows without one:
 * such a call can never get one (its run ended after the call was stored and before its result
 * was; a provider's reused call id once ended runs there, see agent/tool-call-ids.ts), and the AI
 * SDK refuses a prompt that holds it, which failed every later run of the session. The model is
 * told the call did not run. A call the last messages leave open is left as it is: an answer to
 * its approval continues it. Each result put in takes, in `ids`, the id of the message before it.
 */
function closeUnansweredCalls(messages: ModelMessage[], ids: string[]): void {
  /** The calls of the latest assistant message still without a result: id → tool name. */
  let open = new Map<string, string>();
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as ModelMessage;
    if (message.role === 'tool') {
      for (const part of message.content) if (part.type === 'tool-result') open.delete(part.toolCallId);
      continue;
    }
    if (open.size > 0 && (message.role === 'user' || message.role === 'assistant')) {
      messages.splice(index, 0, {
        role: 'tool',
        content: [...open].map(([toolCallId, toolName]) => ({
          type: 'tool-result' as const,
          toolCallId,
          toolName,
          output: { type: 'execution-denied' as const, reason: NOT_RUN_REASON },
        })),
      });
      ids.splice(index, 0, ids[index - 1] as string);
      open = new Map();
      continue;
    }
    if (message.role === 'assistant' && typeof message.content !== 'string') {
      for (const part of message.content)
        if (part.type === 'tool-call' && part.providerExecuted !== true) open.set(part.toolCallId, part.toolName);
    }
  }
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

  /** Store the images a prompt (`messageId`) names; call inside the transaction that stores it. */
  saveImages(sessionId: string, messageId: string, images: readonly PromptImage[]): void {
    const insert = this.#writer.db.prepare<[string, string, string, string, Uint8Array, string]>(
      'INSERT INTO message_images (id, session_id, message_id, media_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const now = this.#writer.now();
    for (const image of images) insert.run(image.id, sessionId, messageId, image.mediaType, image.data, now);
  }

  /** An image a prompt of this session carries, or undefined. */
  image(sessionId: string, imageId: string): { mediaType: ImageMediaType; data: Buffer } | undefined {
    return this.#writer.read(() => {
      const row = this.#writer.db
        .prepare<[string, string], { media_type: ImageMediaType; data: Buffer }>(
          'SELECT media_type, data FROM message_images WHERE session_id = ? AND id = ?',
        )
        .get(sessionId, imageId);
      return row ? { mediaType: row.media_type, data: row.data } : undefined;
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
   * Attached images get their bytes, newest first up to IMAGE_CONTEXT_MAX_BYTES; an older one, or
   * every one when the model takes none (`images: false`), is named in words instead. A tool call
   * a later message follows without its result is answered as not run (closeUnansweredCalls).
   */
  modelContext(sessionId: string, limit: number, options: { images: boolean } = { images: true }): ModelContextRead {
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
      closeUnansweredCalls(messages, ids);
      for (const message of messages) {
        if (message.role === 'user' && typeof message.content !== 'string') {
          message.content = message.content.map((part) => (part.type === 'text' ? textForModel(part) : part));
        }
      }
      this.#putImagesIn(sessionId, messages, options.images);
      return { summary: summary?.summary, messages, ids, cut };
    });
  }

  #putImagesIn(sessionId: string, messages: ModelMessage[], modelTakesImages: boolean): void {
    const select = this.#writer.db.prepare<[string, string], { data: Buffer }>(
      'SELECT data FROM message_images WHERE session_id = ? AND id = ?',
    );
    let room = IMAGE_CONTEXT_MAX_BYTES;
    for (let index = messages.length - 1; index >= 0; index--) {
      const message = messages[index] as ModelMessage;
      if (message.role !== 'user' || typeof message.content === 'string') continue;
      if (!message.content.some((part) => part.type === 'image')) continue;
      const content: Exclude<UserContent, string> = [];
      // Newest first within a prompt too: the last attached is the last to be put in words.
      for (const part of [...message.content].reverse()) {
        if (part.type !== 'image') {
          content.unshift(part);
          continue;
        }
        const stored = part as unknown as StoredImagePart;
        if (!modelTakesImages) {
          content.unshift(imageInWords(stored, 'this model does not take images'));
          continue;
        }
        const row = stored.bytes <= room ? select.get(sessionId, stored.image) : undefined;
        if (!row) {
          room = -1;
          content.unshift(imageInWords(stored, 'the conversation holds more images than one request carries'));
          continue;
        }
        room -= row.data.byteLength;
        content.unshift({
          type: 'image',
          image: new Uint8Array(row.data.buffer, row.data.byteOffset, row.data.byteLength),
          mediaType: stored.mediaType,
        });
      }
      messages[index] = { role: 'user', content };
    }
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
          : content.flatMap((part) => (part.type === 'text' && !isResourceText(part) ? [part.text] : [])).join('\n');
      const origin = typeof content === 'string' ? undefined : content.find(isPromptText)?.mcp;
      return {
        seq: row.seq,
        text,
        rewound: row.rewound === 1,
        summarised: row.summarised === 1,
        ...(origin?.kind === 'prompt' ? { mcpPrompt: { server: origin.server, name: origin.name } } : {}),
      };
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
