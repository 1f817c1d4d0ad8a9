/**
 * A reply stored once. While a run streams, each text or reasoning delta is its own stored event
 * (a client resuming with `Last-Event-ID` needs every one); the run's assistant messages then hold
 * the same text again. When the run ends, `foldRunDeltas` replaces each stretch of consecutive
 * deltas that make up (part of) a text or reasoning part of those messages with one event that
 * points at the part (message id, part index, UTF-8 byte range) and keeps the id of the stretch's
 * last delta; `FoldedTextReader` puts the text back when events are read. A delta that does not
 * match its message's text exactly (a step cut short, text the model sent but the SDK did not
 * keep) ends the fold of its kind for that run: it and every later delta of that kind stay as
 * they were.
 *
 * A stream that already sent the first deltas of a stretch before the fold (a slow subscriber
 * reading the store as the run ends) must send only the rest: `SentDeltas` counts, per run and
 * kind, the bytes a stream has sent, and each folded event says where its text starts among the
 * run's deltas of its kind. A client that saw part of a stretch, lost its stream, and reconnects
 * only after the fold has a cursor that points at a delta no longer stored: each folded event
 * keeps the ids and byte lengths of its deltas (`ref_marks`), so what that client had is still
 * known (`bytesThroughMarks`). What it cannot cover: events folded before the marks were kept
 * (schema version 13) have none, and such a client gets that stretch's text again.
 */
import { Buffer } from 'node:buffer';
import { STORE_FOLDED_DELTA_MAX_BYTES } from '@bastion/protocol';
import type { AgentStreamEvent } from '@bastion/protocol';
import type { SqliteDatabase } from './database.js';

export type DeltaKind = 'text' | 'reasoning';

const DELTA_KINDS: Record<string, DeltaKind> = { 'text-delta': 'text', 'reasoning-delta': 'reasoning' };

/** A UTF-16 surrogate without its other half: such a delta has no exact UTF-8 byte range. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface PartText {
  messageId: string;
  index: number;
  text: string;
}

interface Stretch {
  kind: DeltaKind;
  part: PartText;
  firstId: number;
  lastId: number;
  startBytes: number;
  bytes: number;
  /** Bytes of the run's deltas of this kind before the stretch. */
  runOffset: number;
  /** Bytes of the deltas' stored JSON, which the fold frees. */
  storedBytes: number;
  /** The first delta's id and bytes, then each next one's id less the one before it, and its bytes. */
  marks: number[];
}

/** Where each kind's matching stands: the part being matched and how far into it. */
interface Cursor {
  parts: PartText[];
  part: number;
  chars: number;
  bytes: number;
  /** Bytes of all the run's deltas of this kind so far. */
  runBytes: number;
  failed: boolean;
}

/** The text and reasoning parts of the run's assistant messages, by kind, in transcript order. */
function partsOfRun(db: SqliteDatabase, runId: string): Record<DeltaKind, PartText[]> {
  const parts: Record<DeltaKind, PartText[]> = { text: [], reasoning: [] };
  const rows = db
    .prepare<[string], { id: string; content: string }>(
      `SELECT id, content FROM messages WHERE run_id = ? AND role = 'assistant' ORDER BY seq`,
    )
    .all(runId);
  for (const row of rows) {
    const content = JSON.parse(row.content) as unknown;
    if (!Array.isArray(content)) continue;
    content.forEach((part: { type?: unknown; text?: unknown }, index) => {
      const kind = part.type === 'text' || part.type === 'reasoning' ? part.type : undefined;
      if (kind && typeof part.text === 'string' && part.text.length > 0) {
        parts[kind].push({ messageId: row.id, index, text: part.text });
      }
    });
  }
  return parts;
}

/** Fold the run's deltas into references to its messages; returns the bytes of event JSON freed. */
export function foldRunDeltas(db: SqliteDatabase, runId: string): number {
  const parts = partsOfRun(db, runId);
  if (parts.text.length === 0 && parts.reasoning.length === 0) return 0;
  const cursors: Record<DeltaKind, Cursor> = {
    text: { parts: parts.text, part: 0, chars: 0, bytes: 0, runBytes: 0, failed: false },
    reasoning: { parts: parts.reasoning, part: 0, chars: 0, bytes: 0, runBytes: 0, failed: false },
  };
  const stretches: Stretch[] = [];
  let open: Stretch | undefined;
  const close = () => {
    if (open) stretches.push(open);
    open = undefined;
  };
  const rows = db
    .prepare<[string], { id: number; type: string; data: string }>(
      'SELECT id, type, data FROM message_parts WHERE run_id = ? AND ref_message IS NULL ORDER BY id',
    )
    .iterate(runId);
  for (const row of rows) {
    const kind = DELTA_KINDS[row.type];
    const cursor = kind ? cursors[kind] : undefined;
    if (!kind || !cursor || cursor.failed) {
      close();
      continue;
    }
    const delta = (JSON.parse(row.data) as { text?: unknown }).text;
    const part = cursor.parts[cursor.part];
    if (
      typeof delta !== 'string' ||
      !part ||
      LONE_SURROGATE.test(delta) ||
      delta.length === 0 ||
      !part.text.startsWith(delta, cursor.chars)
    ) {
      cursor.failed = true;
      close();
      continue;
    }
    const bytes = Buffer.byteLength(delta, 'utf8');
    if (open && (open.part !== part || open.bytes + bytes > STORE_FOLDED_DELTA_MAX_BYTES)) close();
    open ??= {
      kind,
      part,
      firstId: row.id,
      lastId: row.id,
      startBytes: cursor.bytes,
      bytes: 0,
      runOffset: cursor.runBytes,
      storedBytes: 0,
      marks: [],
    };
    open.marks.push(open.marks.length === 0 ? row.id : row.id - open.lastId, bytes);
    open.lastId = row.id;
    open.bytes += bytes;
    open.storedBytes += row.data.length;
    cursor.chars += delta.length;
    cursor.bytes += bytes;
    cursor.runBytes += bytes;
    if (cursor.chars === part.text.length) {
      cursor.part += 1;
      cursor.chars = 0;
      cursor.bytes = 0;
      close();
    }
  }
  close();

  const removeRest = db.prepare<[string, number, number]>(
    'DELETE FROM message_parts WHERE run_id = ? AND id >= ? AND id < ?',
  );
  const point = db.prepare<[string, string, number, number, number, number, string, number]>(
    `UPDATE message_parts SET data = ?, ref_message = ?, ref_part = ?, ref_start = ?, ref_bytes = ?, ref_run_offset = ?,
     ref_marks = ? WHERE id = ?`,
  );
  let freed = 0;
  for (const stretch of stretches) {
    removeRest.run(runId, stretch.firstId, stretch.lastId);
    const data = JSON.stringify({ type: `${stretch.kind}-delta`, run_id: runId });
    const marks = JSON.stringify(stretch.marks);
    point.run(
      data,
      stretch.part.messageId,
      stretch.part.index,
      stretch.startBytes,
      stretch.bytes,
      stretch.runOffset,
      marks,
      stretch.lastId,
    );
    freed += stretch.storedBytes - data.length - marks.length;
  }
  return freed;
}

/**
 * Bytes of a folded event's deltas with ids up to `id`, from its `ref_marks`; undefined when `id`
 * comes before its first delta or the marks are not a list of whole numbers.
 */
export function bytesThroughMarks(marks: string, id: number): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(marks);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every((mark) => Number.isSafeInteger(mark))) return undefined;
  const numbers = parsed as number[];
  let deltaId = 0;
  let bytes: number | undefined;
  for (let index = 0; index + 1 < numbers.length; index += 2) {
    deltaId += numbers[index] as number;
    if (deltaId > id) break;
    bytes = (bytes ?? 0) + (numbers[index + 1] as number);
  }
  return bytes;
}

/** A stored event row as read, with the reference columns of a folded one. */
export interface StoredEventRow {
  id: number;
  data: string;
  ref_message: string | null;
  ref_part: number | null;
  ref_start: number | null;
  ref_bytes: number | null;
  ref_run_offset: number | null;
}

/** Where a folded event's text lies among its run's deltas of its kind. */
export interface FoldedSlice {
  kind: DeltaKind;
  runOffset: number;
  bytes: number;
}

/** An event as the store replays it: a folded one says so, for `SentDeltas`. */
export type ReplayedEvent = AgentStreamEvent & { folded?: FoldedSlice };

/**
 * Puts folded text back into events as they are read. Each referenced message is read and
 * parsed once per reader (one replay page), however many folded events point into it.
 */
export class FoldedTextReader {
  readonly #content;
  readonly #messages = new Map<string, { text?: unknown }[]>();
  readonly #parts = new Map<string, Buffer>();

  constructor(db: SqliteDatabase) {
    this.#content = db.prepare<[string], { content: string }>('SELECT content FROM messages WHERE id = ?');
  }

  /** The event with its text restored if it was folded, and where that text lies in its run. */
  entryOf(row: StoredEventRow): ReplayedEvent {
    const event = JSON.parse(row.data) as AgentStreamEvent['event'];
    const kind = DELTA_KINDS[event.type];
    if (
      !kind ||
      row.ref_message === null ||
      row.ref_part === null ||
      row.ref_start === null ||
      row.ref_bytes === null ||
      row.ref_run_offset === null
    ) {
      return { id: row.id, event };
    }
    const text = this.#partText(row.ref_message, row.ref_part);
    return {
      id: row.id,
      event: { ...event, text: text.toString('utf8', row.ref_start, row.ref_start + row.ref_bytes) },
      folded: { kind, runOffset: row.ref_run_offset, bytes: row.ref_bytes },
    } as ReplayedEvent;
  }

  #partText(messageId: string, index: number): Buffer {
    const key = `${messageId}#${index}`;
    const cached = this.#parts.get(key);
    if (cached) return cached;
    let content = this.#messages.get(messageId);
    if (!content) {
      // The foreign key deletes a folded event with its message, so the row is there.
      content = JSON.parse(this.#content.get(messageId)?.content ?? '[]') as { text?: unknown }[];
      this.#messages.set(messageId, content);
    }
    const part = content[index]?.text;
    const text = Buffer.from(typeof part === 'string' ? part : '', 'utf8');
    this.#parts.set(key, text);
    return text;
  }
}

/** Bytes of each kind of delta a client has of one run. */
export interface DeltaBytes {
  runId: string;
  text: number;
  reasoning: number;
}

/**
 * What one stream has sent of the current run's deltas, so a folded event that covers deltas it
 * already sent is cut to the rest (or skipped). Starts from what the client had at connect time,
 * when the store could tell (`RunLog.deltaBytesThrough`); without that, a folded event of
 * the run is sent whole.
 */
export class SentDeltas {
  #sent: DeltaBytes | undefined;

  constructor(start: DeltaBytes | undefined) {
    this.#sent = start;
  }

  /** The entry as it should go out, or undefined when the client already has all its text. */
  take(entry: ReplayedEvent): AgentStreamEvent | undefined {
    const { event } = entry;
    if (event.type === 'run-started') {
      this.#sent = { runId: event.run_id, text: 0, reasoning: 0 };
      return entry;
    }
    const kind = DELTA_KINDS[event.type];
    if (!kind || (event.type !== 'text-delta' && event.type !== 'reasoning-delta')) return entry;
    const sent = this.#sent?.runId === event.run_id ? this.#sent : undefined;
    if (!entry.folded) {
      if (sent) sent[kind] += Buffer.byteLength(event.text, 'utf8');
      return entry;
    }
    if (!sent) return entry;
    const seen = sent[kind] - entry.folded.runOffset;
    sent[kind] = Math.max(sent[kind], entry.folded.runOffset + entry.folded.bytes);
    if (seen <= 0) return entry;
    if (seen >= entry.folded.bytes) return undefined;
    // `seen` is a sum of whole deltas, so it falls on a character boundary.
    const rest = Buffer.from(event.text, 'utf8').toString('utf8', seen);
    return { id: entry.id, event: { ...event, text: rest } };
  }
}
