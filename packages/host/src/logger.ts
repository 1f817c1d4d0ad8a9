/**
 * Host logging: every record goes to `<userData>/logs/host.log` (0600); warnings and errors, or
 * everything with `verbose`, also go to stderr (none with `stderr: 'none'`, as tests ask). Field names are the protocol's closed safe list.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, formatLogRecord, type Logger, type LogRecord, type LogSink } from '@bastion/protocol';

export interface HostLogOptions {
  userData: string;
  verbose?: boolean;
  stderr?: 'warnings' | 'none';
  /** Extra sink (tests capture records here). */
  tap?: LogSink;
}

export function createHostLogSink(options: HostLogOptions): LogSink {
  const dir = join(options.userData, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'host.log');
  return (record: LogRecord) => {
    const line = formatLogRecord(record);
    appendFileSync(file, line, { mode: 0o600 });
    const echo =
      options.verbose || (options.stderr !== 'none' && (record.level === 'warn' || record.level === 'error'));
    if (echo) process.stderr.write(line);
    options.tap?.(record);
  };
}

export function createHostLogger(sink: LogSink, source = 'host'): Logger {
  return createLogger(source, sink);
}
