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
