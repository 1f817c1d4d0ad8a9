/**
 * The client side of the host control socket: one request, one answer of at most `maxAnswerBytes`.
 * `undefined` means no host is listening on that userData (no socket file, or a dead host's).
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import type { z } from 'zod';
import { CONTROL_CONNECTION_TIMEOUT_MS, CONTROL_MAX_ANSWER_BYTES } from '@bastion/protocol';
import { HostError } from '../errors.js';
import { CONTROL_SOCKET_FILE, controlFailureSchema, type ControlRequest } from './control-protocol.js';

const NOBODY_LISTENING = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK']);

export async function askRunningHost<S extends z.ZodType>(
  userData: string,
  request: ControlRequest,
  answer: S,
  maxAnswerBytes = CONTROL_MAX_ANSWER_BYTES,
): Promise<z.infer<S> | undefined> {
  const line = await exchange(join(userData, CONTROL_SOCKET_FILE), `${JSON.stringify(request)}\n`, maxAnswerBytes);
  if (line === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (cause) {
    throw new HostError('CONTROL_BAD_ANSWER', 'the running host answered with invalid JSON', { cause });
  }
  const failure = controlFailureSchema.safeParse(value);
  if (failure.success) throw new HostError(failure.data.code, failure.data.message);
  const checked = answer.safeParse(value);
  if (!checked.success) throw new HostError('CONTROL_BAD_ANSWER', 'the running host gave an unexpected answer');
  return checked.data;
}

function exchange(path: string, request: string, maxAnswerBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const chunks: Buffer[] = [];
    let size = 0;
    socket.setTimeout(CONTROL_CONNECTION_TIMEOUT_MS, () =>
      socket.destroy(new HostError('CONTROL_TIMEOUT', 'the running host did not answer in time')),
    );
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxAnswerBytes) socket.destroy(new HostError('CONTROL_BAD_ANSWER', 'answer too large'));
      else chunks.push(chunk);
    });
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8').split('\n')[0] ?? ''));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== undefined && NOBODY_LISTENING.has(error.code)) resolve(undefined);
      else reject(error);
    });
  });
}
