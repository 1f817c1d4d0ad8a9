/**
 * The one logger shape both processes use. Logs never carry tokens, passwords, message text,
 * tool arguments, command output or model output: the field names are a closed list of
 * safe kinds (ids, codes, sizes, durations, counts), so logging `password` or `message` does
 * not type-check, and string values are cut to LOG_MAX_FIELD_CHARS with control characters removed.
 */
import { LOG_MAX_FIELD_CHARS } from './limits.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Field names that may appear in a log line. Add a name only if no value of it can be a secret or user content. */
export const SAFE_LOG_FIELDS = [
  'pid',
  'port',
  'code',
  'status',
  'bytes',
  'count',
  'duration_ms',
  'delay_ms',
  'attempt',
  'revision',
  'platform',
  'sandbox',
  'shell',
  'signal',
  'exit_code',
  'session_id',
  'run_id',
  'request_id',
  'command_id',
  'write_id',
  'grant_id',
  'approval_id',
  'provider',
  'model',
  'mode',
  'route',
  'method',
  'channel',
  'origin',
  'reason',
  'missing',
  'version',
  /** A path relative to userData, named by Bastion (sessions.db, logs/host.log). */
  'entry',
  // The watchdog: a tool's name, a policy verdict, a rule's id, a decision's outcome, a secret's kind.
  'tool',
  'tool_call_id',
  'verdict',
  'rule_id',
  'outcome',
  'kind',
  /** A start-up stage's fixed name (`startup.stage` records), never a value from outside the code. */
  'stage',
  /** How a command's sandbox was wrapped: `cached` or `full` (wrap-cache.ts). */
  'wrap',
  /** Whether a command ran in a sandbox started before it (prestarted-sandbox.ts). */
  'prestarted',
  /** An MCP server's name, as the user gave it in mcp.json (lower-case letters, digits, `-`). */
  'server',
] as const;
export type SafeLogField = (typeof SAFE_LOG_FIELDS)[number];
const SAFE_FIELD_SET: ReadonlySet<string> = new Set(SAFE_LOG_FIELDS);

export type LogFields = Partial<Record<SafeLogField, string | number | boolean | null>>;

export interface LogRecord {
  time: string;
  level: LogLevel;
  source: string;
  event: string;
  fields: LogFields;
}

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export type LogSink = (record: LogRecord) => void;

const EVENT_NAME = /^[a-z][a-z0-9_.-]{0,63}$/;

function sanitizeValue(value: string | number | boolean | null): string | number | boolean | null {
  if (typeof value !== 'string') return value;
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '');
  return clean.length > LOG_MAX_FIELD_CHARS ? `${clean.slice(0, LOG_MAX_FIELD_CHARS)}…` : clean;
}

export function createLogger(source: string, sink: LogSink, now: () => Date = () => new Date()): Logger {
  const write = (level: LogLevel, event: string, fields: LogFields = {}): void => {
    const safeFields: LogFields = {};
    // Checked at run time too: records re-emitted from the sidecar's stderr are not typed.
    for (const [key, value] of Object.entries(fields) as [SafeLogField, unknown][]) {
      if (!SAFE_FIELD_SET.has(key)) continue;
      if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        safeFields[key] = sanitizeValue(value);
      }
    }
    sink({
      time: now().toISOString(),
      level,
      source,
      event: EVENT_NAME.test(event) ? event : 'log.invalid-event-name',
      fields: safeFields,
    });
  };
  return {
    debug: (event, fields) => write('debug', event, fields),
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
    error: (event, fields) => write('error', event, fields),
  };
}

/** One JSON line per record; the format both processes write to stderr and log files. */
export function formatLogRecord(record: LogRecord): string {
  return `${JSON.stringify(record)}\n`;
}

/** Milliseconds from `since` (a `performance.now()` reading; 0 is the process's start) to now, to a tenth. */
export function elapsedMs(since = 0): number {
  return Math.round((performance.now() - since) * 10) / 10;
}

/** One `startup.stage` record: where a process's start-up time goes (the start bench reads them). */
export function logStartupStage(log: Logger, stage: string, durationMs: number, attempt?: number): void {
  log.info('startup.stage', { stage, duration_ms: durationMs, ...(attempt === undefined ? {} : { attempt }) });
}
