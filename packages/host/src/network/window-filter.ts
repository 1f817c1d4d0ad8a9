/**
 * SEC-004 watchdog, the secret-egress scan's pre-filter: finds, sixteen bytes a step, the places
 * in a body where one of a set of three-byte windows (each position a set of bytes) may start, so
 * that only the bytes around them are looked at one by one (secret-scanner.ts). It never passes
 * over a place where a window starts; it may report places where none does (what a window means
 * is decided after it).
 *
 * How: a WebAssembly function using 128-bit SIMD, as Hyperscan's Teddy does. The windows are
 * split into eight buckets; for each window position, two 16-entry tables, indexed by the low and
 * by the high four bits of a byte, hold a bucket's bit where one of its windows has a byte with
 * that half there. A byte may be a bucket's at a position when both lookups keep its bit, and
 * `i8x16.swizzle` (relaxed SIMD's, where the engine has it) does sixteen lookups in one
 * instruction; three consecutive bytes may start one of its windows when the three positions'
 * bits, shifted into line, share the bucket's bit. In two stages, so most vectors cost four
 * lookups instead of six: every vector is tested on the windows' last two positions, and only the
 * few runs a bucket passes there on the first position as well. The module is assembled here from
 * its opcodes (a few hundred bytes, no build step) and compiled once per process.
 *
 * What it does not catch: nothing by itself; it only narrows where the scan looks.
 */
import { setFlagsFromString } from 'node:v8';

/** A window: the bytes allowed at each of its three positions, a 256-entry membership table each. */
export type Window = readonly [Uint8Array, Uint8Array, Uint8Array];

/** Bytes one call to the module looks at, at most (a copy of them lives in its memory). */
const SEGMENT_BYTES = 64 * 1024;
/** Vectors tested with one branch: found places are rare, and a branch per vector costs more. */
const VECTORS_PER_RUN = 2;
/** What the module reports on: the bytes of one branch's vectors. */
const RUN_BYTES = 16 * VECTORS_PER_RUN;
/** Where the six tables live in the module's memory (low and high halves for positions 0, 1, 2). */
const TABLES_AT = 0;
/** Where a segment's copy may start (a multiple of RUN_BYTES, past the tables and a vector). */
const DATA_AT = 128;
/** Bytes `join` places there at most: a 64 KiB body chunk behind a stream's tail of up to 64 KiB. */
const JOIN_BYTES = 2 * SEGMENT_BYTES;
const BUCKETS = 8;
const PAGE_BYTES = 64 * 1024;
const PAGES = Math.ceil((DATA_AT + JOIN_BYTES + 2 * RUN_BYTES) / PAGE_BYTES);

/** Unsigned LEB128, the binary format's integer encoding. */
function leb(value: number): number[] {
  const bytes: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (value !== 0);
  return bytes;
}

/** Signed LEB128, the encoding of `i32.const`'s operand. */
function sleb(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0);
    bytes.push(done ? byte : byte | 0x80);
    if (done) return bytes;
  }
}

/** Bytes behind their length, as sections, function bodies and names are stored. */
const sized = (bytes: number[]): number[] => [...leb(bytes.length), ...bytes];
const section = (id: number, bytes: number[]): number[] => [id, ...sized(bytes)];
const name = (text: string): number[] => sized([...Buffer.from(text, 'latin1')]);

const I32 = 0x7f;
const V128 = 0x7b;
const EMPTY_BLOCK = 0x40;
const simd = (code: number): number[] => [0xfd, ...leb(code)];
const op = {
  block: [0x02, EMPTY_BLOCK],
  loop: [0x03, EMPTY_BLOCK],
  if: [0x04, EMPTY_BLOCK],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  end: [0x0b],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  i32: (value: number) => [0x41, ...sleb(value)],
  i32GeU: [0x4f],
  i32Add: [0x6a],
  i32Sub: [0x6b],
  load: (offset: number) => [...simd(0x00), 4, ...leb(offset)],
  /** A load from an address that need not be a multiple of 16. */
  loadUnaligned: (offset: number) => [...simd(0x00), 0, ...leb(offset)],
  splat16: (byte: number) => [...simd(0x0c), ...Array<number>(16).fill(byte)],
  /** Lanes `from`…`from + 15` of the two vectors on the stack, the first's lanes numbered 0–15. */
  lanes: (from: number) => [...simd(0x0d), ...Array.from({ length: 16 }, (_, lane) => from + lane)],
  swizzle: simd(0x0e),
  relaxedSwizzle: simd(0x100),
  and: simd(0x4e),
  or: simd(0x50),
  anyTrue: simd(0x53),
  shrU16: simd(0x8d),
};

// Locals: the parameters from (0) and to (1), then v128s: the tables of positions 1 and 2 (2–5),
// the low-half mask, the previous vector's position-1 bits, a vector, its halves and its
// position-1 bits, and each of a run's vectors' pair bits. Position 0's tables, used only in the
// second stage, are read from memory there, which leaves the registers to the first stage's values.
const [FROM, TO, MASK, PREV1, BYTES, LOW, HIGH, BITS1] = [0, 1, 6, 7, 8, 9, 10, 11];
const pairsOf = (vector: number) => 12 + vector;
const V128_LOCALS = 10 + VECTORS_PER_RUN;
/** The local holding a table of position 1 or 2. */
const tableLocal = (position: 1 | 2, half: 0 | 1) => 2 + 2 * (position - 1) + half;
/** A table on the stack: its local for positions 1 and 2, a load for position 0. */
const table = (position: 0 | 1 | 2, half: 0 | 1): number[] =>
  position === 0 ? [...op.i32(TABLES_AT), ...op.load(16 * half)] : op.get(tableLocal(position, half));

/**
 * How a table is looked up: `i8x16.swizzle`, or relaxed SIMD's `i8x16.relaxed_swizzle`, which
 * differs only for indices over 15 (left to the engine) — and an index here is a half-byte. On x64
 * the plain one costs V8 a saturating add before each `pshufb` to zero those lanes; the relaxed
 * one is the `pshufb` alone.
 */
export type Swizzle = 'plain' | 'relaxed';

/** With a vector on the stack: its halves into LOW and HIGH. */
const halves = (): number[] => [
  ...op.set(BYTES),
  ...op.get(BYTES), ...op.get(MASK), ...op.and, ...op.set(LOW),
  // Shifted as 16-bit lanes (one instruction on x64, where 8-bit lanes take several), then masked.
  ...op.get(BYTES), ...op.i32(4), ...op.shrU16, ...op.get(MASK), ...op.and, ...op.set(HIGH),
]; // prettier-ignore

/** With the halves in LOW and HIGH: the vector's bucket bits at `position`. */
const bitsAt = (position: 0 | 1 | 2, swizzle: Swizzle): number[] => {
  const lookUp = swizzle === 'relaxed' ? op.relaxedSwizzle : op.swizzle;
  return [
    ...table(position, 0), ...op.get(LOW), ...lookUp,
    ...table(position, 1), ...op.get(HIGH), ...lookUp,
    ...op.and,
  ]; // prettier-ignore
};

/**
 * The vector at FROM + `offset`: lanes non-zero where a bucket's window may end by its last two
 * positions (position 2 at that byte, position 1 the byte before, reaching into the previous
 * vector's bits in PREV1); then this vector's position-1 bits become PREV1.
 */
const pairEnds = (offset: number, swizzle: Swizzle): number[] => [
  ...op.get(FROM), ...op.load(offset), ...halves(),
  ...bitsAt(1, swizzle), ...op.set(BITS1),
  ...bitsAt(2, swizzle),
  ...op.get(PREV1), ...op.get(BITS1), ...op.lanes(15), ...op.and,
  ...op.get(BITS1), ...op.set(PREV1),
]; // prettier-ignore

/**
 * The vector at FROM + `offset`: its bucket bits at position 0 for windows ending in its lanes,
 * from the bytes two before (an unaligned load).
 */
const firstOfEnds = (offset: number, swizzle: Swizzle): number[] => [
  ...op.get(FROM), ...op.i32(2), ...op.i32Sub, ...op.loadUnaligned(offset), ...halves(), ...bitsAt(0, swizzle),
]; // prettier-ignore

/**
 * `find(from, to)`: the first address in [from, to) (steps of RUN_BYTES from `from`) whose RUN_BYTES
 * bytes hold the last byte of a place where a bucket's window may start, or `to`. The 16 bytes
 * before `from` are read for windows that start there. In two stages: every vector is tested on
 * the windows' last two positions; only a run where a bucket passes those is tested on the first
 * position too. A window's last two bytes are chosen among its rarest (secret-scanner.ts), so in
 * ordinary text the second stage seldom runs.
 */
const vectors = Array.from({ length: VECTORS_PER_RUN }, (_, vector) => vector);
const findBody = (swizzle: Swizzle): number[] => [
  ...[1, V128_LOCALS, V128],
  ...([1, 2] as const).flatMap((position) => [
    ...op.i32(TABLES_AT), ...op.load(32 * position), ...op.set(tableLocal(position, 0)),
    ...op.i32(TABLES_AT), ...op.load(32 * position + 16), ...op.set(tableLocal(position, 1)),
  ]),
  ...op.splat16(0x0f), ...op.set(MASK),
  ...op.get(FROM), ...op.i32(16), ...op.i32Sub, ...op.load(0), ...halves(), ...bitsAt(1, swizzle), ...op.set(PREV1),
  ...op.block,
  ...op.loop,
  ...op.get(FROM), ...op.get(TO), ...op.i32GeU, ...op.brIf(1),
  ...vectors.flatMap((vector) => [...pairEnds(16 * vector, swizzle), ...op.set(pairsOf(vector))]),
  ...op.get(pairsOf(0)), ...vectors.slice(1).flatMap((vector) => [...op.get(pairsOf(vector)), ...op.or]), ...op.anyTrue,
  ...op.if,
  ...vectors.flatMap((vector) => [
    ...firstOfEnds(16 * vector, swizzle), ...op.get(pairsOf(vector)), ...op.and, ...(vector > 0 ? op.or : []),
  ]),
  ...op.anyTrue, ...op.brIf(2),
  ...op.end,
  ...op.get(FROM), ...op.i32(RUN_BYTES), ...op.i32Add, ...op.set(FROM),
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...op.get(FROM),
  ...op.end,
]; // prettier-ignore

/** The module's bytes: one function type, one function, one memory, both exported. */
export function windowFilterModuleBytes(swizzle: Swizzle): Uint8Array {
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 2, I32, I32, 1, I32]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, ...leb(PAGES)]),
    ...section(7, [2, ...name('find'), 0x00, 0, ...name('memory'), 0x02, 0]),
    ...section(10, [1, ...sized(findBody(swizzle))]),
  ]);
}

/** The part of the WebAssembly API used here (@types/node 20 does not declare it). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
  validate: (bytes: Uint8Array) => boolean;
};

interface Module {
  find: (from: number, to: number) => number;
  memory: Uint8Array;
}

let preferred: Swizzle | undefined;
/**
 * The relaxed look-up where the engine takes it, else the plain one. Node 20's V8 (11.3) has
 * relaxed SIMD behind a flag, and the host is started as plain `node`, so the flag is set here,
 * before the module is compiled. It is process-wide but only adds instructions a module may use
 * (relaxed SIMD is on by default from V8 11.4): the host's other WebAssembly, undici's HTTP parser,
 * validates and runs as before. An engine that rejects the flag or the relaxed module gets the
 * plain one: the places found are the same either way.
 */
export function preferredSwizzle(): Swizzle {
  if (preferred === undefined) {
    const relaxed = windowFilterModuleBytes('relaxed');
    try {
      if (!WebAssembly.validate(relaxed)) setFlagsFromString('--experimental-wasm-relaxed-simd');
    } catch {
      // An engine without the flag keeps its defaults; validation below decides.
    }
    preferred = WebAssembly.validate(relaxed) ? 'relaxed' : 'plain';
  }
  return preferred;
}

/** One instance per process and look-up: a search is synchronous, so each writes its tables before it runs. */
const instances = new Map<Swizzle, Module>();
function instance(swizzle: Swizzle): Module {
  let module = instances.get(swizzle);
  if (module === undefined) {
    // The engine's flag first: a relaxed module compiles only once it is set.
    if (swizzle === 'relaxed' && preferredSwizzle() !== 'relaxed') throw new Error('relaxed SIMD is not available');
    const compiled = new WebAssembly.Instance(new WebAssembly.Module(windowFilterModuleBytes(swizzle)));
    const exports = compiled.exports as { find: Module['find']; memory: { buffer: ArrayBuffer } };
    module = { find: exports.find, memory: new Uint8Array(exports.memory.buffer) };
    instances.set(swizzle, module);
  }
  return module;
}

/** A bucket: per position, bit masks of the low and of the high halves its windows' bytes have. */
type Bucket = readonly number[];
const EMPTY_BUCKET: Bucket = [0, 0, 0, 0, 0, 0];

/** The weight, by `weight`, of the bytes a position's two masks let through. */
function passed(low: number, high: number, weight: (byte: number) => number): number {
  let sum = 0;
  for (let byte = 0; byte < 256; byte += 1) {
    if (((low >>> (byte & 15)) & 1) === 1 && ((high >>> (byte >>> 4)) & 1) === 1) sum += weight(byte);
  }
  return sum;
}

/**
 * How often, by `weight`, a bucket passes the first stage (a window's last two positions): the
 * product over those positions. The second stage's position 0 only narrows what passed that.
 */
const cost = (bucket: Bucket, weight: (byte: number) => number): number =>
  [1, 2].reduce((product, at) => product * passed(bucket[2 * at] ?? 0, bucket[2 * at + 1] ?? 0, weight), 1);

function widened(bucket: Bucket, window: Window): Bucket {
  const masks = [...bucket];
  window.forEach((set, at) => {
    for (let byte = 0; byte < 256; byte += 1) {
      if (set[byte] !== 1) continue;
      masks[2 * at] = (masks[2 * at] as number) | (1 << (byte & 15));
      masks[2 * at + 1] = (masks[2 * at + 1] as number) | (1 << (byte >>> 4));
    }
  });
  return masks;
}

/** The pre-filter for one set of windows. */
export class WindowFilter {
  /** For positions 0, 1, 2: the low-half table then the high-half table, 16 entries each. */
  readonly #tables = new Uint8Array(96);
  readonly #module: Module;

  /**
   * `weight`: how common a byte is in ordinary bodies; windows go, the commonest first, to the
   * bucket where they add the least to what it lets through by that measure. `swizzle`: the
   * look-up to run, the engine's best unless a test compares the two.
   */
  constructor(windows: readonly Window[], weight: (byte: number) => number, swizzle = preferredSwizzle()) {
    this.#module = instance(swizzle);
    const buckets: Bucket[] = Array.from({ length: BUCKETS }, () => EMPTY_BUCKET);
    const ranked = windows.map((window) => ({ window, weight: cost(widened(EMPTY_BUCKET, window), weight) }));
    ranked.sort((a, b) => b.weight - a.weight);
    for (const { window } of ranked) {
      let best = 0;
      let bestGrowth = Infinity;
      for (const [index, bucket] of buckets.entries()) {
        const growth = cost(widened(bucket, window), weight) - cost(bucket, weight);
        if (growth < bestGrowth) {
          best = index;
          bestGrowth = growth;
        }
      }
      buckets[best] = widened(buckets[best] as Bucket, window);
    }
    for (const [index, bucket] of buckets.entries()) {
      for (let mask = 0; mask < 6; mask += 1) {
        for (let half = 0; half < 16; half += 1) {
          if ((((bucket[mask] as number) >>> half) & 1) === 0) continue;
          this.#tables[16 * mask + half] = (this.#tables[16 * mask + half] as number) | (1 << index);
        }
      }
    }
  }

  /**
   * Calls `visit(from, to)`, in order of `from`, for each range of `bytes` that holds every
   * place a window may start in some RUN_BYTES bytes, and the two bytes after each (so every byte
   * pair of such a window is in a range whole), and returns the first result that is not
   * undefined. Ranges are cut to `bytes` and may overlap.
   */
  search<T>(bytes: Buffer, visit: (from: number, to: number) => T | undefined): T | undefined {
    const { find, memory } = this.#module;
    memory.set(this.#tables, TABLES_AT);
    const length = bytes.byteLength;
    if (bytes.buffer === memory.buffer) {
      // Bytes `join` placed in the module's memory: looked at where they are, in one pass.
      const first = bytes.byteOffset;
      const limit = (first + length + RUN_BYTES - 1) & ~(RUN_BYTES - 1);
      for (let run = find(first & ~(RUN_BYTES - 1), limit); run < limit; run = find(run + RUN_BYTES, limit)) {
        const at = run - first;
        const found = visit(Math.max(0, at - 2), Math.min(length, at + RUN_BYTES));
        if (found !== undefined) return found;
      }
      return undefined;
    }
    for (let start = 0; start < length;) {
      // Each segment after the first repeats the two bytes before it, for windows that start there.
      const copyFrom = Math.max(0, start - 2);
      const shift = (bytes.byteOffset + copyFrom) & (RUN_BYTES - 1);
      const end = Math.min(length, copyFrom + SEGMENT_BYTES - shift);
      // Whatever is left around the copy (another segment's bytes, the tables) can only add places
      // to look at, each cut to the copy's bytes: a window in the body is all in it.
      bytes.copy(memory, DATA_AT + shift, copyFrom, end);
      const limit = (DATA_AT + shift + (end - copyFrom) + RUN_BYTES - 1) & ~(RUN_BYTES - 1);
      for (let run = find(DATA_AT, limit); run < limit; run = find(run + RUN_BYTES, limit)) {
        // Windows ending in [run, run + RUN_BYTES) start at run - 2 or later and end before run + RUN_BYTES.
        const at = copyFrom + run - DATA_AT - shift;
        const found = visit(Math.max(copyFrom, at - 2), Math.min(end, at + RUN_BYTES));
        if (found !== undefined) return found;
      }
      start = end;
    }
    return undefined;
  }

  /**
   * `head` then `bytes`, one after the other in the module's memory, as one buffer there that
   * `search` looks at in place (the copy `search` would make anyway, without a second for the
   * join); undefined when they are longer than JOIN_BYTES. The buffer holds them only until the next
   * `join` or `search` of any filter in the process: search it at once, and keep none of it.
   */
  join(head: Uint8Array, bytes: Uint8Array): Buffer | undefined {
    const length = head.byteLength + bytes.byteLength;
    if (length > JOIN_BYTES) return undefined;
    const { memory } = this.#module;
    memory.set(head, DATA_AT);
    memory.set(bytes, DATA_AT + head.byteLength);
    return Buffer.from(memory.buffer, DATA_AT, length);
  }
}
