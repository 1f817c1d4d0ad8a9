import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import { WindowFilter, type Window } from './window-filter.js';

const setOf = (bytes: number[]): Uint8Array => {
  const set = new Uint8Array(256);
  for (const byte of bytes) set[byte] = 1;
  return set;
};

/** Every place in `bytes` where one of `windows` starts, by looking at each. */
function windowStarts(bytes: Buffer, windows: readonly Window[]): number[] {
  const starts: number[] = [];
  for (let at = 0; at + 3 <= bytes.byteLength; at += 1) {
    const [a, b, c] = [bytes[at] as number, bytes[at + 1] as number, bytes[at + 2] as number];
    if (windows.some(([first, second, third]) => first[a] === 1 && second[b] === 1 && third[c] === 1)) starts.push(at);
  }
  return starts;
}

function visitedRanges(filter: WindowFilter, bytes: Buffer): [number, number][] {
  const ranges: [number, number][] = [];
  filter.search(bytes, (from, to) => {
    ranges.push([from, to]);
    return undefined;
  });
  return ranges;
}

/**
 * Windows whose bytes share half-bytes with each other (an alphabet of few highs and lows), and a
 * body of those bytes, their neighbours and a few others: where a nibble filter's cross products
 * would pass over a real window if it were wrong.
 */
function adversarialCase(seed: number) {
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const highs = Array.from({ length: 1 + Math.floor(next() * 3) }, () => Math.floor(next() * 16));
  const lows = Array.from({ length: 2 + Math.floor(next() * 4) }, () => Math.floor(next() * 16));
  const alphabet = highs.flatMap((high) => lows.map((low) => (high << 4) | low));
  const windows: Window[] = Array.from({ length: 1 + Math.floor(next() * 14) }, () => {
    const position = () => setOf(Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(alphabet)));
    return [position(), position(), position()];
  });
  const length = next() < 0.1 ? 64 * 1024 + Math.floor(next() * 80 * 1024) : Math.floor(next() * 3000);
  const offset = Math.floor(next() * 64);
  const memory = Buffer.alloc(offset + length + 64);
  const bytes = memory.subarray(offset, offset + length);
  for (let at = 0; at < length; at += 1) {
    bytes[at] = next() < 0.7 ? pick(alphabet) : Math.floor(next() * 256);
  }
  return { windows, bytes };
}

describe('window pre-filter: never passes over a window (differential against looking at every byte)', () => {
  it('finds every start of 1–15 windows of shared half-bytes in 300 random bodies, at every alignment and across segments', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const { windows, bytes } = adversarialCase(seed);
      const filter = new WindowFilter(windows, () => 1);
      const ranges = visitedRanges(filter, bytes);
      for (const [from, to] of ranges) {
        expect(from >= 0 && from < to && to <= bytes.byteLength, `seed ${seed}: range ${from}–${to}`).toBe(true);
      }
      for (let index = 1; index < ranges.length; index += 1) {
        const [previous, current] = [ranges[index - 1] as [number, number], ranges[index] as [number, number]];
        expect(current[0], `seed ${seed}: ranges in order`).toBeGreaterThanOrEqual(previous[0]);
      }
      const covered = new Uint8Array(bytes.byteLength);
      for (const [from, to] of ranges) covered.fill(1, from, Math.max(from, to - 2));
      const missed = windowStarts(bytes, windows).filter((start) => covered[start] !== 1);
      expect(missed, `seed ${seed}: window starts outside every visited range`).toEqual([]);
    }
  });

  it('finds a window at each of the 128 places around a segment boundary, the body at each of 32 alignments', () => {
    const windows: Window[] = [[setOf([0x4b]), setOf([0x51]), setOf([0x5a])]];
    const filter = new WindowFilter(windows, () => 1);
    for (let offset = 0; offset < 32; offset += 1) {
      for (let start = 64 * 1024 - 64 - 2; start < 64 * 1024 + 64; start += 1) {
        const memory = Buffer.alloc(offset + 160 * 1024, 0x20);
        const bytes = memory.subarray(offset, offset + 140 * 1024);
        bytes.set([0x4b, 0x51, 0x5a], start);
        const ranges = visitedRanges(filter, bytes);
        expect(
          ranges.some(([from, to]) => from <= start && start + 3 <= to),
          `offset ${offset}, start ${start}`,
        ).toBe(true);
      }
    }
  });

  it('stops at the first range whose visit returns a value, and returns that value', () => {
    const filter = new WindowFilter([[setOf([0x7e]), setOf([0x7e]), setOf([0x7e])]], () => 1);
    const bytes = Buffer.alloc(4096, 0x7e);
    let visits = 0;
    expect(filter.search(bytes, () => ((visits += 1) === 3 ? 'third' : undefined))).toBe('third');
    expect(visits).toBe(3);
  });

  it('visits under 2% of ordinary prose (README.md and SECURITY.md) for windows of rare bytes', () => {
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const text = Buffer.concat([readFileSync(`${root}README.md`), readFileSync(`${root}SECURITY.md`)]);
    const windows: Window[] = [
      [setOf([0x4b]), setOf([0x53, 0x42, 0x43, 0x49]), setOf([0x49, 0x43])],
      [setOf([0x2d]), setOf([0x42]), setOf([0x45])],
      [setOf([0x33]), setOf([0x42]), setOf([0x6c])],
    ];
    const filter = new WindowFilter(windows, () => 1);
    const visited = visitedRanges(filter, text).reduce((sum, [from, to]) => sum + (to - from), 0);
    expect(visited / text.byteLength).toBeLessThan(0.02);
  });
});

describe('window pre-filter: the relaxed look-up (relaxed SIMD) against the plain one', () => {
  it('reports the same ranges with either look-up on the 300 adversarial bodies', () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const { windows, bytes } = adversarialCase(seed);
      const plain = visitedRanges(new WindowFilter(windows, () => 1, 'plain'), bytes);
      const relaxed = visitedRanges(new WindowFilter(windows, () => 1, 'relaxed'), bytes);
      expect(relaxed, `seed ${seed}`).toEqual(plain);
    }
  });

  /** What a fresh `node` process (no flags, as the host is started) prints after `prelude` and `script`. */
  function inPlainNode(prelude: string, script: string): string {
    const module = JSON.stringify(fileURLToPath(new URL('../../dist/network/window-filter.js', import.meta.url)));
    const program = `${prelude}\nconst filter = await import(${module});\n${script}`;
    return execFileSync(process.execPath, ['--input-type=module', '-e', program], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
  }

  it('a process started as plain `node` (no flags, as the host is) runs the relaxed look-up', () => {
    expect(inPlainNode('', 'process.stdout.write(filter.preferredSwizzle());')).toBe('relaxed');
  });

  it('an engine that refuses the flag gets the plain look-up, which still finds a window', () => {
    // The flag setter made a no-op before the module loads: relaxed SIMD then fails validation.
    const prelude = [
      "import { createRequire, syncBuiltinESMExports } from 'node:module';",
      "createRequire(import.meta.url)('node:v8').setFlagsFromString = () => undefined;",
      'syncBuiltinESMExports();',
    ].join('\n');
    const script = [
      'const set = (byte) => { const s = new Uint8Array(256); s[byte] = 1; return s; };',
      'const windows = [[set(0x4b), set(0x51), set(0x5a)]];',
      "const bytes = Buffer.concat([Buffer.alloc(5000, 0x20), Buffer.from('KQZ'), Buffer.alloc(100, 0x20)]);",
      'const found = new filter.WindowFilter(windows, () => 1).search(bytes, (from, to) =>',
      "  bytes.subarray(from, to).includes('KQZ') ? 'found' : undefined);",
      "process.stdout.write(`${filter.preferredSwizzle()} ${found ?? 'missed'}`);",
    ].join('\n');
    expect(inPlainNode(prelude, script)).toBe('plain found');
  });
});

describe('window pre-filter: bytes joined in its memory, looked at in place', () => {
  it('visits every window start of the 300 adversarial bodies joined from two parts cut at a random place', () => {
    let joinedBodies = 0;
    for (let seed = 1; seed <= 300; seed += 1) {
      const { windows, bytes } = adversarialCase(seed);
      const filter = new WindowFilter(windows, () => 1);
      const cut = Math.floor(seededRandom(seed * 31)() * (bytes.byteLength + 1));
      const joined = filter.join(bytes.subarray(0, cut), bytes.subarray(cut));
      if (bytes.byteLength > 128 * 1024) {
        expect(joined, `seed ${seed}: longer than the join holds`).toBeUndefined();
        continue;
      }
      if (joined === undefined) throw new Error(`seed ${seed}: ${bytes.byteLength} bytes not joined`);
      joinedBodies += 1;
      expect(joined.equals(bytes), `seed ${seed}: the joined bytes`).toBe(true);
      const covered = new Uint8Array(bytes.byteLength);
      for (const [from, to] of visitedRanges(filter, joined)) {
        expect(from >= 0 && from < to && to <= bytes.byteLength, `seed ${seed}: range ${from}–${to}`).toBe(true);
        covered.fill(1, from, Math.max(from, to - 2));
      }
      const missed = windowStarts(bytes, windows).filter((start) => covered[start] !== 1);
      expect(missed, `seed ${seed}: window starts outside every visited range`).toEqual([]);
    }
    expect(joinedBodies).toBeGreaterThan(250);
  });

  it('refuses to join more than 128 KiB', () => {
    const filter = new WindowFilter([[setOf([0x4b]), setOf([0x51]), setOf([0x5a])]], () => 1);
    expect(filter.join(Buffer.alloc(64 * 1024), Buffer.alloc(64 * 1024))?.byteLength).toBe(128 * 1024);
    expect(filter.join(Buffer.alloc(64 * 1024), Buffer.alloc(64 * 1024 + 1))).toBeUndefined();
  });
});
