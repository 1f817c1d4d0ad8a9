/**
 * Test and bench support: hostile HTTP/1.1 connections against a loopback listener. A slow-loris
 * connection trickles one header line at a time and never ends its headers; a header-flood
 * connection sends more header bytes than any listener accepts (one huge header, or thousands of
 * small ones) and then waits. Each reports the first response line it got and whether the server
 * closed it; a connection the server never closes is destroyed at `giveUpMs` and reported open.
 */
import { connect } from 'node:net';

export type ListenerAttack = 'slow-loris' | 'huge-header' | 'many-headers';

export interface AttackOutcome {
  closedByServer: boolean;
  firstLine: string;
}

export interface AttackConnection {
  readonly outcome: Promise<AttackOutcome>;
  destroy(): void;
}

const FLOOD_BYTES = 64 * 1024;

function floodHeaders(kind: 'huge-header' | 'many-headers'): string {
  if (kind === 'huge-header') return `X-Flood: ${'a'.repeat(FLOOD_BYTES)}\r\n`;
  return Array.from({ length: FLOOD_BYTES / 16 }, (_, index) => `X-F${index}: ${'b'.repeat(8)}\r\n`).join('');
}

export function openAttack(
  kind: ListenerAttack,
  port: number,
  options: { giveUpMs: number; trickleMs?: number },
): AttackConnection {
  const socket = connect(port, '127.0.0.1');
  let trickle: NodeJS.Timeout | undefined;
  const outcome = new Promise<AttackOutcome>((resolve) => {
    let firstLine = '';
    let givenUp = false;
    const giveUp = setTimeout(() => {
      givenUp = true;
      socket.destroy();
    }, options.giveUpMs);
    socket.on('connect', () => {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      if (kind === 'slow-loris') {
        let line = 0;
        trickle = setInterval(() => socket.write(`X-Slow-${line++}: 1\r\n`), options.trickleMs ?? 500);
      } else {
        socket.write(floodHeaders(kind));
      }
    });
    socket.on('data', (data: Buffer) => {
      firstLine ||= data.toString('latin1').split('\r\n')[0] ?? '';
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      resolve({ closedByServer: !givenUp, firstLine });
    });
  });
  return { outcome, destroy: () => socket.destroy() };
}

/** The response line each attack should end with before the server closes it. */
export const EXPECTED_CUT: Record<ListenerAttack, string> = {
  'slow-loris': 'HTTP/1.1 408 Request Timeout',
  'huge-header': 'HTTP/1.1 431 Request Header Fields Too Large',
  'many-headers': 'HTTP/1.1 431 Request Header Fields Too Large',
};
