import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SIDECAR_LOG_MAX_LINE_BYTES, type LogFields, type Logger } from '@bastion/protocol';
import { forwardSidecarLogs } from './sidecar-logs.js';

interface Seen {
  level: string;
  event: string;
  fields: LogFields | undefined;
}

function capture(): { log: Logger; seen: Seen[] } {
  const seen: Seen[] = [];
  const at =
    (level: string) =>
    (event: string, fields?: LogFields): void => {
      seen.push({ level, event, fields });
    };
  return { log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, seen };
}

async function feed(chunks: (string | Buffer)[]): Promise<Seen[]> {
  const stderr = new PassThrough();
  const { log, seen } = capture();
  forwardSidecarLogs(stderr, log);
  for (const chunk of chunks) stderr.write(chunk);
  stderr.end();
  await new Promise((resolve) => stderr.once('close', resolve));
  return seen;
}

const record = (event: string) => `${JSON.stringify({ level: 'info', event, fields: { count: 1 } })}\n`;

describe('forwardSidecarLogs', () => {
  it('forwards a record split across chunks, and one without a final newline', async () => {
    const line = record('sidecar.one');
    const seen = await feed([line.slice(0, 10), line.slice(10), record('sidecar.two').trimEnd()]);
    expect(seen).toEqual([
      { level: 'info', event: 'sidecar.one', fields: { count: 1 } },
      { level: 'info', event: 'sidecar.two', fields: { count: 1 } },
    ]);
  });

  it('counts, never forwards, lines that are not records: plain text, bad JSON, a wrong level, non-object fields', async () => {
    const seen = await feed([
      'a stray print with user content\n',
      '{"level":"info","event":\n',
      `${JSON.stringify({ level: 'fatal', event: 'x' })}\n`,
      `${JSON.stringify({ level: 'info', event: 'x', fields: 'secret text' })}\n`,
    ]);
    expect(seen).toEqual([{ level: 'warn', event: 'sidecar.unstructured-stderr', fields: { count: 4 } }]);
  });

  it('drops a line longer than SIDECAR_LOG_MAX_LINE_BYTES, even a valid record, and forwards the next line', async () => {
    const padded = JSON.stringify({
      level: 'info',
      event: 'sidecar.long',
      pad: 'x'.repeat(SIDECAR_LOG_MAX_LINE_BYTES),
    });
    const halves = [padded.slice(0, SIDECAR_LOG_MAX_LINE_BYTES / 2), padded.slice(SIDECAR_LOG_MAX_LINE_BYTES / 2)];
    const seen = await feed([...halves, `\n${record('sidecar.after')}`]);
    expect(seen).toEqual([
      { level: 'info', event: 'sidecar.after', fields: { count: 1 } },
      { level: 'warn', event: 'sidecar.unstructured-stderr', fields: { count: 1 } },
    ]);
  });

  it('retains under 32 MiB while a sidecar writes 64 MiB without a newline, then forwards the next line', async () => {
    const stderr = new PassThrough();
    const { log, seen } = capture();
    forwardSidecarLogs(stderr, log);
    const block = Buffer.alloc(1024 * 1024, 0x78);
    const before = process.memoryUsage();
    for (let i = 0; i < 64; i += 1) stderr.write(block);
    await new Promise((resolve) => setImmediate(resolve));
    const during = process.memoryUsage();
    const retained = during.heapUsed + during.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    expect(retained).toBeLessThan(32 * 1024 * 1024);
    stderr.end(`\n${record('sidecar.after')}`);
    await new Promise((resolve) => stderr.once('close', resolve));
    expect(seen.map((entry) => entry.event)).toEqual(['sidecar.after', 'sidecar.unstructured-stderr']);
  });
});
