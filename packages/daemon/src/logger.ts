import { createLogger, formatLogRecord, type Logger } from '@bastion/protocol';

/** The sidecar logs to stderr only (stdout is the channel); the host collects and files the lines. */
export function createDaemonLogger(): Logger {
  return createLogger('daemon', (record) => {
    process.stderr.write(formatLogRecord(record));
  });
}
