/**
 * The sidecar's stderr carries structured log records only. Each line is re-checked here: a
 * record is re-emitted through the host logger (which bounds and sanitises fields again); any
 * other output (a stray print, a crash trace that might quote user content) is counted, never copied.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { LogFields, Logger, LogLevel } from '@bastion/protocol';

const LEVELS: ReadonlySet<string> = new Set<LogLevel>(['debug', 'info', 'warn', 'error']);
const MAX_LINE_CHARS = 8 * 1024;

export function forwardSidecarLogs(stderr: Readable, log: Logger): void {
  let dropped = 0;
  const lines = createInterface({ input: stderr, crlfDelay: Infinity });
  lines.on('line', (line) => {
    const record = line.length <= MAX_LINE_CHARS ? parseRecord(line) : undefined;
    if (!record) {
      dropped += 1;
      return;
    }
    log[record.level](record.event, record.fields);
  });
  lines.on('close', () => {
    if (dropped > 0) log.warn('sidecar.unstructured-stderr', { count: dropped });
  });
}

function parseRecord(line: string): { level: LogLevel; event: string; fields: LogFields } | undefined {
  try {
    const value = JSON.parse(line) as { level?: unknown; event?: unknown; fields?: unknown };
    if (typeof value.level !== 'string' || !LEVELS.has(value.level) || typeof value.event !== 'string')
      return undefined;
    const fields = typeof value.fields === 'object' && value.fields !== null ? (value.fields as LogFields) : {};
    return { level: value.level as LogLevel, event: value.event, fields };
  } catch {
    return undefined;
  }
}
