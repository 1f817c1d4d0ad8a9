/**
 * The sidecar's stderr carries structured log records only. Each line is re-checked here: a
 * record is re-emitted through the host logger (which bounds and sanitises fields again); any
 * other output (a stray print, a crash trace that might quote user content) is counted, never copied.
 * Lines are split here rather than by readline so that a line without an end is never held whole:
 * past SIDECAR_LOG_MAX_LINE_BYTES its bytes are dropped as they arrive.
 */
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { SIDECAR_LOG_MAX_LINE_BYTES, type Logger } from '@bastion/protocol';

const NEWLINE = 0x0a;

const sidecarLogRecordSchema = z.object({
  level: z.enum(['debug', 'info', 'warn', 'error']),
  event: z.string(),
  fields: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
});

export function forwardSidecarLogs(stderr: Readable, log: Logger): void {
  let dropped = 0;
  let parts: Buffer[] = [];
  let size = 0;
  let overlong = false;

  const endLine = () => {
    const record = overlong ? undefined : parseRecord(Buffer.concat(parts, size).toString('utf8'));
    parts = [];
    size = 0;
    overlong = false;
    if (!record) {
      dropped += 1;
      return;
    }
    log[record.level](record.event, record.fields ?? {});
  };
  /** `copy`: the piece is a view of a chunk that would otherwise be kept alive by it. */
  const take = (piece: Buffer, copy: boolean) => {
    if (overlong || piece.length === 0) return;
    if (size + piece.length > SIDECAR_LOG_MAX_LINE_BYTES) {
      overlong = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(copy ? Buffer.from(piece) : piece);
    size += piece.length;
  };

  stderr.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      take(chunk.subarray(start, end), false);
      endLine();
      start = end + 1;
    }
    if (start < chunk.length) take(chunk.subarray(start), true);
  });
  stderr.on('close', () => {
    if (size > 0 || overlong) endLine();
    if (dropped > 0) log.warn('sidecar.unstructured-stderr', { count: dropped });
  });
}

function parseRecord(line: string): z.infer<typeof sidecarLogRecordSchema> | undefined {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  try {
    const checked = sidecarLogRecordSchema.safeParse(JSON.parse(text));
    return checked.success ? checked.data : undefined;
  } catch {
    return undefined;
  }
}
