import { addAbortSignal } from 'node:stream';
import { UsageError } from './usage.js';

/**
 * All of piped standard input as UTF-8, at most `maxBytes`; longer input is a UsageError saying
 * `tooLong`, read no further.
 */
export async function readPipedStdin(maxBytes: number, tooLong: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new UsageError(tooLong);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The lines of piped standard input as UTF-8, without their line ends (`\n` or `\r\n`), the last
 * one whether or not it has one. A line longer than `maxBytes` is a UsageError saying `tooLong`,
 * read no further: no line is held whole in memory past that. Ends at the end of input, or quietly
 * at `stop` (standard input is then closed).
 */
export async function* pipedLines(maxBytes: number, tooLong: string, stop: AbortSignal): AsyncGenerator<string> {
  const input = addAbortSignal(stop, process.stdin);
  let partial: Buffer[] = [];
  let partialBytes = 0;
  const line = (last: Buffer): string => {
    const text = Buffer.concat([...partial, last]).toString('utf8');
    partial = [];
    partialBytes = 0;
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let from = 0;
      // 0x0a is never part of a longer UTF-8 sequence, so the bytes split there as the text does.
      for (let end = chunk.indexOf(0x0a); end !== -1; from = end + 1, end = chunk.indexOf(0x0a, from)) {
        if (partialBytes + end - from > maxBytes) throw new UsageError(tooLong);
        yield line(chunk.subarray(from, end));
      }
      partialBytes += chunk.byteLength - from;
      if (partialBytes > maxBytes) throw new UsageError(tooLong);
      if (from < chunk.byteLength) partial.push(chunk.subarray(from));
    }
  } catch (error) {
    if (stop.aborted) return;
    throw error;
  }
  if (partialBytes > 0) yield line(Buffer.alloc(0));
}
