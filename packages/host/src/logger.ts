/**
 * Host logging: every record goes to `<userData>/logs/host.log` (0600). With `verbose` every
 * record is also copied to stderr as its JSON line; otherwise warnings and errors are told on
 * stderr as one readable line (`bastion: warning: <event> (<field>=<value> …)`), never as raw
 * JSON, and none with `stderr: 'none'` (as tests ask). Field names are the protocol's closed safe list.
 * A record the file cannot take (a full or read-only disk) is dropped, never thrown: the host keeps
 * running, says so once on stderr, and the next record that fits notes how many were dropped.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, formatLogRecord, type Logger, type LogRecord, type LogSink } from '@bastion/protocol';
import { terminalLine } from './terminal/terminal-text.js';

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
  let dropped = 0;
  const append = (line: string): boolean => {
    try {
      appendFileSync(file, line, { mode: 0o600 });
      return true;
    } catch (error) {
      if (dropped === 0) {
        const code = (error as { code?: unknown }).code;
        process.stderr.write(
          `bastion: cannot write ${file} (${typeof code === 'string' ? code : 'error'}); log records are dropped until it can\n`,
        );
      }
      dropped += 1;
      return false;
    }
  };
  return (record: LogRecord) => {
    const line = formatLogRecord(record);
    if (dropped > 0) {
      const count = dropped;
      const note = formatLogRecord({ ...record, level: 'warn', event: 'log.records-dropped', fields: { count } });
      if (append(note)) dropped -= count;
    }
    append(line);
    if (options.verbose) process.stderr.write(line);
    else if (options.stderr !== 'none' && (record.level === 'warn' || record.level === 'error')) {
      process.stderr.write(readableLogLine(record));
    }
    options.tap?.(record);
  };
}

/** A warning or error as a person reads it on the terminal; the details stay in host.log. */
export function readableLogLine(record: LogRecord): string {
  const fields = Object.entries(record.fields).map(([name, value]) => `${name}=${String(value)}`);
  const details = fields.length > 0 ? ` (${fields.join(' ')})` : '';
  const level = record.level === 'error' ? 'error' : 'warning';
  return `bastion: ${level}: ${terminalLine(`${record.event}${details}`)}\n`;
}

export function createHostLogger(sink: LogSink, source = 'host'): Logger {
  return createLogger(source, sink);
}
