import type { IncomingMessage } from 'node:http';

/** A request body, or undefined once it passes `limit` bytes (reading stops there). */
export async function readBoundedRequest(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
