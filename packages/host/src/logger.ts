/**
 * Host logging: every record goes to `<userData>/logs/host.log` (0600). With `verbose` every
 * record is also copied to stderr as its JSON line; otherwise warnings and errors are told on
 * stderr as one readable line (`bastion: warning: <event> (<field>=<value> …)`), never as raw
 * JSON, and none with `stderr: 'none'` (as tests ask). Field names are the protocol's closed safe list.
 * A record the file cannot take (a full or read-only disk) is dropped, never thrown: the host keeps
 * running, says so once on stderr, and the next record that fits notes how many were dropped.
 *
 * SEC-004: the sidecar can write userData, so it could swap `logs` or `host.log` for a symlink (to
 * a shell rc file, to a directory whose files a shell sources) or a hard link, and the host,
 * unsandboxed, would append there lines that hold text the sidecar chose (its forwarded log
 * fields: `$(…)` survives the sanitising). Each append therefore opens `host.log` without
 * following a final symlink, in a `logs` that is a real directory, and on Linux checks where the
 * descriptor really is (`/proc/self/fd`) and that the file has one link; anything else is renamed
 * aside (`host.log.suspect-<hex>`, left for the user) and a fresh file made.
 *
 * Bounded: past HOST_LOG_MAX_BYTES the file moves to `host.log.1` (replacing the one before) and
 * a fresh one is made, under the same checks.
 *
 * What it does not catch: elsewhere than Linux, a `logs` swapped for a symlink between the check
 * and the open (the open then creates an empty `host.log` there and the write goes to it).
 */
import {
  openSync,
  writeSync,
  closeSync,
  fstatSync,
  readlinkSync,
  realpathSync,
  lstatSync,
  mkdirSync,
  renameSync,
  constants,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  createLogger,
  formatLogRecord,
  HOST_LOG_MAX_BYTES,
  type Logger,
  type LogRecord,
  type LogSink,
} from '@bastion/protocol';
import { terminalLine } from './terminal/terminal-text.js';

export interface HostLogOptions {
  userData: string;
  verbose?: boolean;
  stderr?: 'warnings' | 'none';
  /** Extra sink (tests capture records here). */
  tap?: LogSink;
}

const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Is `fd` the one-link regular file at `realFile` (by the kernel's own path where there is /proc)? */
function isOurLogFile(fd: number, realFile: string): boolean {
  const stats = fstatSync(fd);
  if (!stats.isFile() || stats.nlink !== 1) return false;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === realFile;
  } catch {
    return process.platform !== 'linux';
  }
}

/** Put what is in the way at `path` aside, for the user to look at. */
function setAside(path: string): void {
  renameSync(path, `${path}.suspect-${randomBytes(4).toString('hex')}`);
}

/** Move `path` to `<path>.1`, over the one before; whatever else is in the way there is set aside. */
function rotate(path: string): void {
  const older = `${path}.1`;
  const kind = lstatSync(older, { throwIfNoEntry: false });
  if (kind !== undefined && !kind.isFile() && !kind.isSymbolicLink()) setAside(older);
  renameSync(path, older);
}

/**
 * Append `line` to `file` (`<dir>/host.log`) through nothing but a real directory and a one-link
 * regular file; `realFile` is where it really is (userData's real path: above `logs`, nothing the
 * sidecar can write).
 */
function appendToLog(dir: string, file: string, realFile: string, line: string): void {
  const kind = lstatSync(dir, { throwIfNoEntry: false });
  if (kind !== undefined && !kind.isDirectory()) setAside(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(file, APPEND_FLAGS, 0o600);
  } catch (error) {
    // ELOOP: a symlink; anything else (a full disk) is the caller's to report.
    if ((error as NodeJS.ErrnoException).code !== 'ELOOP') throw error;
    setAside(file);
    fd = openSync(file, APPEND_FLAGS | constants.O_EXCL, 0o600);
  }
  /** `file` moved away by `move`, then a fresh one opened in its place and checked. */
  const reopen = (move: (path: string) => void) => {
    closeSync(fd);
    fd = -1;
    move(file);
    fd = openSync(file, APPEND_FLAGS | constants.O_EXCL, 0o600);
    if (!isOurLogFile(fd, realFile)) throw new Error('host.log is not a plain file of its own');
  };
  try {
    if (!isOurLogFile(fd, realFile)) reopen(setAside);
    if (fstatSync(fd).size >= HOST_LOG_MAX_BYTES) reopen(rotate);
    writeSync(fd, line);
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

export function createHostLogSink(options: HostLogOptions): LogSink {
  const dir = join(options.userData, 'logs');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'host.log');
  const realFile = join(realpathSync(options.userData), 'logs', 'host.log');
  let dropped = 0;
  const append = (line: string): boolean => {
    try {
      appendToLog(dir, file, realFile, line);
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
