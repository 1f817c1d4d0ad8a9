import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeRoutePosture } from '../network/route-posture.js';
import { createHostConfirmer } from './host-confirmer.js';

const endpoint = (origin: string) => ({ kind: 'endpoint' as const, origin, posture: describeRoutePosture(origin, {}) });

function terminal(isTTY: boolean) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString('utf8')));
  return { input, output, shown: () => shown };
}

describe('host confirmer', () => {
  it('consents to an --allow-endpoint origin (any spelling of it) and to nothing else without a terminal', async () => {
    const confirmer = createHostConfirmer({ allowedEndpoints: ['http://0x7f.1:11434/v1'] });
    expect(await confirmer.confirm(endpoint('http://127.0.0.1:11434'))).toBe(true);
    expect(await confirmer.confirm(endpoint('http://127.0.0.1:11435'))).toBe(false);
    expect(await confirmer.confirm({ kind: 'workspace', path: '/tmp/x' })).toBe(false);
  });

  it('asks on the TTY, showing the canonical origin and route posture; only y/yes consents', async () => {
    for (const [answer, expected] of [
      ['y', true],
      ['yes', true],
      ['n', false],
      ['', false],
      ['sure', false],
    ] as const) {
      const tty = terminal(true);
      const confirmer = createHostConfirmer({ terminal: tty });
      const asked = confirmer.confirm(endpoint('http://127.0.0.1:8080'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(tty.shown()).toContain('origin: http://127.0.0.1:8080');
      expect(tty.shown()).toContain('route:  a loopback address, reached directly');
      tty.input.write(`${answer}\n`);
      expect(await asked).toBe(expected);
    }
  });

  it('a stdin that is not a TTY is nobody to ask', async () => {
    const piped = terminal(false);
    piped.input.write('y\n');
    expect(await createHostConfirmer({ terminal: piped }).confirm(endpoint('http://127.0.0.1:8080'))).toBe(false);
  });
});
