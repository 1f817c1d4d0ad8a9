/**
 * SEC-004 watchdog, the secret-egress scan: finds, in a stream of bytes, any credential Bastion
 * holds (given as exact values) and high-confidence secret formats (private-key blocks, cloud
 * access keys, common token prefixes). Streaming with bounded memory: the stream's last bytes (one
 * fewer than the longest secret a match needs) are held back, so a secret split across chunks is
 * still found, read from them, before any byte of it leaves; nothing else of the stream is kept.
 * Bytes are compared as bytes, so an exact value matches whatever its encoding.
 *
 * How it stays cheap: every secret has an anchor, a run of bytes (each one byte or a small set)
 * that each of its matches holds at a known offset, and from it a window of three anchor bytes
 * chosen where the bytes are rarest in ordinary text. A SIMD pre-filter (window-filter.ts) finds,
 * sixteen bytes a step, the few places where a window may start; only there is anything looked up.
 * Any three consecutive bytes hold a byte pair starting at an even address, so only the pairs at
 * even addresses are looked up, in a 64 Ki-entry table of the windows' pairs, and only a pair
 * found there is checked further — the anchor byte by byte, then the whole held value, or the
 * format's regular expression on the few bytes from the match's start.
 *
 * What it does not catch: a secret encoded or transformed on the way (hex, JSON `\u` escapes,
 * split by other text, reversed, compressed) unless that form is itself one of the values it is
 * given (the egress guard gives each held value's base64 forms), a held credential shorter than
 * EGRESS_MIN_SECRET_CHARS, and secret formats not listed here (generic passwords, JWTs other than
 * Bastion's own).
 */
import { EGRESS_MIN_SECRET_CHARS } from '@bastion/protocol';
import { WindowFilter, type Window } from './window-filter.js';

/** A value the scan must find, named by a kind that is safe to log and show (never the value). */
export interface HeldSecret {
  kind: string;
  value: string;
}

interface SecretFormat {
  kind: string;
  /** What every match holds from its start, a position each: the bytes allowed there. */
  anchor: readonly string[];
  /** The pattern, tried at the match's start; `(?<![…])` / `(?![…])` keep it from matching inside a longer token. */
  pattern: string;
  /** The longest text a shortest match of the pattern can span, for the overlap between chunks. */
  span: number;
}

const each = (text: string): string[] => [...text];

/** High-confidence formats: prefixes and shapes that ordinary source text does not produce. */
export const SECRET_FORMATS: readonly SecretFormat[] = [
  {
    kind: 'private-key-block',
    anchor: each('-----BEGIN '),
    pattern: '-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----',
    span: 80,
  },
  {
    kind: 'aws-access-key-id',
    anchor: ['A', 'KSBC', 'IC', 'A'],
    pattern: '(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])',
    span: 21,
  },
  {
    kind: 'github-token',
    anchor: ['g', 'h', 'pousr', '_'],
    pattern: '(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36}(?![A-Za-z0-9])',
    span: 41,
  },
  {
    kind: 'github-token',
    anchor: each('github_pat_'),
    pattern: 'github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}',
    span: 93,
  },
  {
    kind: 'slack-token',
    anchor: ['x', 'o', 'x', 'abposr', '-'],
    pattern: 'xox[abposr]-[0-9]{6,}-[0-9A-Za-z-]{6,}',
    span: 20,
  },
  {
    kind: 'stripe-live-key',
    anchor: ['sr', ...each('k_live_')],
    pattern: '(?<![A-Za-z0-9])[sr]k_live_[0-9A-Za-z]{20,}',
    span: 28,
  },
  {
    kind: 'openai-api-key',
    anchor: [...each('sk-'), 'psa', 'rvd', 'ocm', 'jai'],
    pattern: 'sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}',
    span: 52,
  },
  {
    kind: 'openai-api-key',
    anchor: [
      ...each('sk-'),
      ...Array<string>(20).fill('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
      ...each('T3BlbkFJ'),
    ],
    pattern: 'sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}',
    span: 51,
  },
  {
    kind: 'anthropic-api-key',
    anchor: each('sk-ant-'),
    pattern: 'sk-ant-(?:api|admin|oat)[0-9]{2}-[A-Za-z0-9_-]{40,}',
    span: 55,
  },
  {
    kind: 'google-api-key',
    anchor: each('AIza'),
    // Not followed by `+` or `/` either: inside base64 (an attached image in a request) an
    // AIza-shaped run would otherwise end at one by chance about once in 5·10^10 positions.
    pattern: '(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_+/-])',
    span: 40,
  },
];

/** The bytes from a hit's start a format's pattern is first tried on: its longest span. */
const FORMAT_WINDOW = Math.max(...SECRET_FORMATS.map((format) => format.span));

/**
 * Printable ASCII, the most frequent first, as counted in this repository's tree (source and
 * prose); a window is placed where its bytes come latest here, and any byte not listed
 * (controls, non-ASCII) ranks rarer still.
 */
const BYTES_BY_FREQUENCY =
  ' etosrnaidclp.hu-\',m():f"g;y=w/{}bvkSEx_T0A`ROC*IP>1NDMLj2B[]HUFq4|G5?3<z86W$Y7KX9#V+\\J^Q&!Z@~%';
const RARITY = new Uint8Array(256).fill(BYTES_BY_FREQUENCY.length);
for (let rank = 0; rank < BYTES_BY_FREQUENCY.length; rank += 1) RARITY[BYTES_BY_FREQUENCY.charCodeAt(rank)] = rank;
/** How common a byte is, for the pre-filter's buckets: falling with its rank, as word counts do. */
const frequency = (byte: number): number => 1 / ((RARITY[byte] as number) + 1);

/** Anchor positions with more allowed bytes than this are never part of a window. */
const WINDOW_MAX_SET = 6;

/** The table key of a byte pair. */
const pairKey = (first: number, second: number): number => first | (second << 8);

/**
 * What a pair found in the table may be: a secret whose match holds that pair `pairAt` bytes from
 * its start — a held credential (`literal`, its bytes), or a format (`anchor`, the bytes allowed
 * at each anchor position, a 256-entry membership table each; its sticky pattern, and how many
 * bytes that is tried on). One shape for both, so the check of a hit stays monomorphic.
 */
interface Candidate {
  kind: string;
  pairAt: number;
  literal: Buffer | undefined;
  anchor: readonly Uint8Array[];
  regex: RegExp | undefined;
  reach: number;
}

function byteSet(bytes: string): Uint8Array {
  const set = new Uint8Array(256);
  for (const byte of Buffer.from(bytes, 'latin1')) set[byte] = 1;
  return set;
}

/** How rare the most common byte of a set is. */
const rarityOf = (set: Uint8Array): number => {
  let rarest = BYTES_BY_FREQUENCY.length;
  for (let byte = 0; byte < 256; byte += 1) if (set[byte] === 1) rarest = Math.min(rarest, RARITY[byte] as number);
  return rarest;
};
const sizeOf = (set: Uint8Array): number => set.reduce((sum, member) => sum + member, 0);
const formatRarity = (anchor: readonly Uint8Array[]) => (position: number) => {
  const set = anchor[position] as Uint8Array;
  return sizeOf(set) > WINDOW_MAX_SET ? undefined : rarityOf(set);
};

/**
 * The start of a window: three consecutive positions (of at most WINDOW_MAX_SET bytes each, for a
 * format) whose last two are rarest, then whose first is: the pre-filter tests every vector on a
 * window's last two positions and only what passes them on the first.
 */
function windowStart(positions: number, rarity: (position: number) => number | undefined): number {
  let best = -1;
  let bestScore = -1;
  for (let at = 0; at + 3 <= positions; at += 1) {
    const [first, second, third] = [rarity(at), rarity(at + 1), rarity(at + 2)];
    if (first === undefined || second === undefined || third === undefined) continue;
    const score = (second + third) * 256 + first;
    if (score > bestScore) {
      best = at;
      bestScore = score;
    }
  }
  if (best < 0) throw new Error('a secret anchor needs three consecutive positions of few bytes');
  return best;
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The text a format's sticky `regex` matches at `start` in at most `length` bytes of `bytes`
 * (read as latin1, with the byte before for a look-behind), or undefined.
 */
function formatMatch(regex: RegExp, bytes: Buffer, start: number, before: number, length: number): string | undefined {
  const end = Math.min(bytes.byteLength, start + length);
  let text = bytes.toString('latin1', Math.max(0, start - 1), end);
  let at = start > 0 ? 1 : 0;
  if (start === 0 && before >= 0) {
    text = String.fromCharCode(before) + text;
    at = 1;
  }
  regex.lastIndex = at;
  return regex.exec(text)?.[0];
}

/** A check's verdict on a match at one place. */
type Verdict = 0 | 1 | 2;
const NO_MATCH = 0;
const MATCH = 1;
/** Cut short by the end of the bytes there are: the next bytes decide. */
const UNDECIDED = 2;

/** A scan's view of a stream around the bytes it is given. */
export interface ScanContext {
  /** Up to `count` of the stream's bytes just before the scanned ones (fewer when not held), and the byte before those (-1 at the stream's start). */
  earlier(count: number): { bytes: Buffer; before: number };
  /** A match starting at `start` of the scanned bytes (before them when negative) that the bytes after them decide. */
  undecided(start: number): void;
}

/** A whole body: nothing before it, nothing after. */
const WHOLE_BODY: ScanContext = {
  earlier: () => ({ bytes: Buffer.alloc(0), before: -1 }),
  undecided: () => undefined,
};

/** A compiled scan: the pair table of every format and held secret, reused across requests. */
export class SecretPattern {
  /** By a pair's key: 1 if it is in some window (a byte each, so the table the scan reads stays small). */
  readonly #hits = new Uint8Array(65536);
  /** By a pair's key: the index in `#candidates` of what it may be part of. */
  readonly #pairs = new Uint16Array(65536);
  readonly #candidates: Candidate[][] = [[]];
  /** Every window, for the pre-filter. */
  readonly #windows: Window[] = [];
  readonly #filter: WindowFilter;
  readonly #allowed: string[];
  /** How many of a stream's last bytes a match that ends in the next chunk may start in: a stream holds them back. */
  readonly overlap: number;

  /**
   * `secrets`: every credential to find; `allowed`: the values this request may carry (its own
   * credential), which are left out with any value inside one of them, and a format match inside
   * one of them is not a hit.
   */
  constructor(secrets: readonly HeldSecret[], allowed: readonly string[]) {
    const allowedBytes = allowed.map((value) => Buffer.from(value, 'utf8'));
    this.#allowed = allowedBytes.map((value) => value.toString('latin1'));
    // A format is tried on enough bytes to tell a match longer than any allowed value from one inside it.
    const reach = Math.max(FORMAT_WINDOW, ...allowedBytes.map((value) => value.byteLength + 1));
    let longest = 1;
    // Held credentials first: when a value is also of a listed format, its kind names the credential.
    for (const secret of secrets) {
      const literal = Buffer.from(secret.value, 'utf8');
      if (literal.byteLength < EGRESS_MIN_SECRET_CHARS) continue;
      if (allowedBytes.some((value) => value.includes(literal))) continue;
      const at = windowStart(literal.byteLength, (position) => RARITY[literal[position] as number]);
      const [first, second, third] = [...literal.subarray(at, at + 3)].map((byte) =>
        byteSet(String.fromCharCode(byte)),
      );
      const window: Window = [first as Uint8Array, second as Uint8Array, third as Uint8Array];
      const candidate = { kind: secret.kind, pairAt: 0, literal, anchor: [], regex: undefined, reach: 0 };
      this.#add(candidate, at, window);
      longest = Math.max(longest, literal.byteLength);
    }
    for (const format of SECRET_FORMATS) {
      const anchor = format.anchor.map(byteSet);
      const at = windowStart(anchor.length, formatRarity(anchor));
      const regex = new RegExp(format.pattern, 'y');
      const candidate = { kind: format.kind, pairAt: 0, literal: undefined, anchor, regex, reach };
      this.#add(candidate, at, [anchor[at], anchor[at + 1], anchor[at + 2]] as Window);
      longest = Math.max(longest, format.span);
    }
    // An allowed value's length too: a match cut short inside one must be scanned again whole.
    this.overlap = Math.max(longest - 1, ...allowedBytes.map((value) => value.byteLength));
    this.#filter = new WindowFilter(this.#windows, frequency);
  }

  /**
   * Enter the candidate's window (`window`, the byte sets of its three positions from `at`) for
   * the pre-filter, and both of its pairs: in a body, the one at an even address is the one the
   * scan looks up.
   */
  #add(candidate: Candidate, at: number, window: Window): void {
    this.#windows.push(window);
    for (const offset of [0, 1]) {
      const pairAt = at + offset;
      const first = window[offset] as Uint8Array;
      const second = window[offset + 1] as Uint8Array;
      for (let a = 0; a < 256; a += 1) {
        if (first[a] !== 1) continue;
        for (let b = 0; b < 256; b += 1) {
          if (second[b] !== 1) continue;
          const key = pairKey(a, b);
          if (this.#pairs[key] === 0) {
            if (this.#candidates.length > 0xffff) throw new Error('too many byte pairs for the secret scan');
            this.#pairs[key] = this.#candidates.length;
            this.#hits[key] = 1;
            this.#candidates.push([]);
          }
          this.#candidates[this.#pairs[key] as number]?.push({ ...candidate, pairAt });
        }
      }
    }
  }

  /** The kind of the first secret in these bytes, or undefined. */
  findIn(bytes: Uint8Array): string | undefined {
    return this.scan(asBuffer(bytes), WHOLE_BODY, true);
  }

  /**
   * The kind of a secret whose match starts in `bytes` or, read through `context`, before them, and
   * that a window in `bytes` belongs to; or undefined. A held credential counts only when all its
   * bytes are there. A format is tried on the bytes there are; unless `final` (no bytes follow), a
   * match that runs to their end and is no longer than `overlap` is left undecided — the next byte
   * could end it otherwise (`AKIA…` then one more letter is no key) — and so is one whose bytes
   * so far are a match's start: each is handed to `context.undecided` for a later scan to decide.
   */
  scan(bytes: Buffer, context: ScanContext, final: boolean): string | undefined {
    return this.#filter.search(bytes, (from, to) => this.#scanRun(bytes, from, to, context, final));
  }

  /** `scan` for the pairs at even addresses in [from, to), a range the pre-filter passed. */
  #scanRun(bytes: Buffer, from: number, to: number, context: ScanContext, final: boolean): string | undefined {
    for (let at = from + ((bytes.byteOffset + from) & 1); at + 1 < to; at += 2) {
      const key = pairKey(bytes[at] as number, bytes[at + 1] as number);
      if (this.#hits[key] !== 0) {
        const kind = this.#check(key, at, bytes, context, final);
        if (kind !== undefined) return kind;
      }
    }
    return undefined;
  }

  /** The kind of a secret the pair `key` at `at` is part of, or undefined. */
  #check(key: number, at: number, bytes: Buffer, context: ScanContext, final: boolean): string | undefined {
    const candidates = this.#candidates[this.#pairs[key] as number] as Candidate[];
    for (let index = 0; index < candidates.length; index += 1) {
      const candidate = candidates[index] as Candidate;
      const start = at - candidate.pairAt;
      // A format reads the byte before its match too.
      const verdict =
        start > 0 || (start === 0 && candidate.literal !== undefined)
          ? this.#matches(candidate, bytes, start, -1, final)
          : this.#matchesBefore(candidate, bytes, start, context, final);
      if (verdict === MATCH) return candidate.kind;
      if (verdict === UNDECIDED) context.undecided(start);
    }
    return undefined;
  }

  /**
   * `#matches` for a match that starts at or before the first of `bytes` (`start` ≤ 0): on the
   * bytes before them that `context` still has, followed by as many of `bytes` as the match can read.
   */
  #matchesBefore(candidate: Candidate, bytes: Buffer, start: number, context: ScanContext, final: boolean): Verdict {
    const literal = candidate.literal;
    if (literal !== undefined && start < 0) {
      // The value's part in these bytes first, in place: a near miss mostly fails there, nothing copied.
      const here = Math.min(bytes.byteLength, start + literal.byteLength);
      if (literal.compare(bytes, 0, here, -start, here - start) !== 0) return NO_MATCH;
    }
    const earlier = context.earlier(1 - start);
    // A match starting before the held bytes was decided when its window was first looked at: an
    // undecided one starts at most `overlap` bytes back, and a stream holds at least that many.
    if (earlier.bytes.byteLength < -start) return NO_MATCH;
    // One byte past what a check reads, so a cut here is never taken for the end of the bytes.
    const reads = Math.max(candidate.literal?.byteLength ?? 0, candidate.reach, FORMAT_WINDOW) + 1;
    const joined = Buffer.concat([earlier.bytes, bytes.subarray(0, Math.min(bytes.byteLength, start + reads))]);
    return this.#matches(candidate, joined, start + earlier.bytes.byteLength, earlier.before, final);
  }

  /**
   * Whether `candidate` matches at `start` of `bytes` (`before`: the byte before them, -1 if
   * none), does not, or cannot be told until more bytes follow (never when `final`).
   */
  #matches(candidate: Candidate, bytes: Buffer, start: number, before: number, final: boolean): Verdict {
    const available = bytes.byteLength;
    const literal = candidate.literal;
    if (literal !== undefined) {
      const end = start + literal.byteLength;
      if (end <= available) return literal.compare(bytes, start, end) === 0 ? MATCH : NO_MATCH;
      // Cut short: undecided while the bytes there are the value's start.
      return !final && literal.compare(bytes, start, available, 0, available - start) === 0 ? UNDECIDED : NO_MATCH;
    }
    const anchor = candidate.anchor;
    for (let index = 0; index < anchor.length; index += 1) {
      if (start + index >= available) return final ? NO_MATCH : UNDECIDED;
      if ((anchor[index] as Uint8Array)[bytes[start + index] as number] !== 1) return NO_MATCH;
    }
    // Whatever the pattern makes of the bytes here may change when more follow if it could read past them.
    const cutShort = !final && start + (this.#allowed.length > 0 ? candidate.reach : FORMAT_WINDOW) > available;
    const regex = candidate.regex as RegExp;
    // First on the shortest match's bytes, then, when an allowed value could hold the match, on
    // enough bytes to see the whole of it.
    let found = formatMatch(regex, bytes, start, before, FORMAT_WINDOW);
    if (found === undefined) return cutShort ? UNDECIDED : NO_MATCH;
    if (this.#allowed.length > 0) found = formatMatch(regex, bytes, start, before, candidate.reach) ?? '';
    if (!final && start + found.length === available && found.length <= this.overlap) return UNDECIDED;
    if (!this.#allowed.some((value) => value.includes(found))) return MATCH;
    return cutShort ? UNDECIDED : NO_MATCH;
  }

  /** `head` then `bytes` as one buffer to `scan` at once and keep none of (WindowFilter.join); undefined when too long. */
  join(head: Uint8Array, bytes: Uint8Array): Buffer | undefined {
    return this.#filter.join(head, bytes);
  }

  /** A scanner for one stream. */
  stream(): SecretStream {
    return new SecretStream(this);
  }
}

/** What a stream's chunk scan says: the kind of the secret found, or the bytes now safe to send. */
export type StreamScan = { kind: string } | { kind: undefined; forward: Uint8Array[] };

/**
 * Bytes before a chunk a window may start in and still end in it: a window's length less one. A
 * chunk is looked at joined to at least these of the stream before it.
 */
const SEAM_BYTES = 2;

/**
 * One stream's scan. A chunk is forwarded only once the chunks after it hold at least `overlap`
 * bytes and have been scanned: a secret split across chunks is found before any byte of it
 * leaves. Chunks are forwarded whole, as they came, and never copied; what is kept is at most
 * `overlap` bytes plus one chunk. The pre-filter looks at each chunk joined to the last two bytes
 * before it, where a window ending in the chunk may start; a match that starts further back is
 * read from the chunks still held. Only a match left undecided at a chunk's end (cut short) has
 * its bytes looked at again, the next chunk joined to the stream from that match's start.
 */
export class SecretStream {
  readonly #pattern: SecretPattern;
  /** Scanned chunks not yet forwarded, oldest first, and their total length. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The byte before the oldest held one (-1 if none), for a look-behind there. */
  #beforeHeld = -1;
  /** How many bytes the stream has had. */
  #length = 0;
  /** The stream's last bytes that the next chunk is scanned joined to (SEAM_BYTES, or from an undecided match's start). */
  #seam: Buffer = Buffer.alloc(0);
  /** During a scan: where the earliest undecided match starts, in the bytes scanned. */
  #undecided = Infinity;
  readonly #context: ScanContext = {
    earlier: (count) => this.#earlier(count),
    undecided: (start) => {
      this.#undecided = Math.min(this.#undecided, start);
    },
  };

  constructor(pattern: SecretPattern) {
    this.#pattern = pattern;
  }

  push(chunk: Uint8Array): StreamScan {
    const bytes = asBuffer(chunk);
    const seam = this.#seam;
    // The chunk and its seam in one pass: in the pre-filter's memory, where the chunk's bytes are
    // copied to be looked at anyway, or in a buffer of their own when too long to fit there.
    const joined = this.#pattern.join(seam, bytes) ?? Buffer.concat([seam, bytes]);
    this.#undecided = Infinity;
    const kind = this.#pattern.scan(joined, this.#context, false);
    if (kind !== undefined) return { kind };
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.byteLength;
    this.#length += bytes.byteLength;
    const from = Math.min(this.#undecided, joined.byteLength - SEAM_BYTES);
    this.#seam = this.#last(Math.min(this.#length, joined.byteLength - from));
    const forward: Uint8Array[] = [];
    for (
      let first = this.#pending[0];
      first && this.#pendingBytes - first.byteLength >= this.#pattern.overlap;
      first = this.#pending[0]
    ) {
      forward.push(first);
      this.#pending.shift();
      this.#pendingBytes -= first.byteLength;
      if (first.byteLength > 0) this.#beforeHeld = first[first.byteLength - 1] as number;
    }
    return { kind: undefined, forward };
  }

  /**
   * The end of the stream: the seam scanned once more as the end (for a match left undecided
   * there), then the chunks still held.
   */
  end(): StreamScan {
    const kind = this.#pattern.scan(this.#seam, this.#context, true);
    const forward = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#beforeHeld = -1;
    this.#length = 0;
    this.#seam = Buffer.alloc(0);
    return kind === undefined ? { kind: undefined, forward } : { kind };
  }

  /**
   * The stream's last `count` bytes, all held: a view of the newest chunk when it has them (never
   * of the pre-filter's memory, which the next scan overwrites), else a copy.
   */
  #last(count: number): Buffer {
    const newest = this.#pending[this.#pending.length - 1] as Buffer;
    if (newest.byteLength >= count) return newest.subarray(newest.byteLength - count);
    return this.#copyHeld(this.#length - count, this.#length);
  }

  /** For a scan of the seam and what follows it: the up to `count` held bytes before the seam, and the byte before those. */
  #earlier(count: number): { bytes: Buffer; before: number } {
    const to = this.#length - this.#seam.byteLength;
    const heldFrom = this.#length - this.#pendingBytes;
    const from = Math.max(heldFrom, to - count);
    const before = from === heldFrom ? this.#beforeHeld : (this.#copyHeld(from - 1, from)[0] as number);
    return { bytes: this.#copyHeld(from, to), before };
  }

  /** A copy of the held bytes from `from` to `to`, counted from the stream's start. */
  #copyHeld(from: number, to: number): Buffer {
    const copy = Buffer.allocUnsafe(to - from);
    let at = this.#length - this.#pendingBytes;
    for (const held of this.#pending) {
      const end = at + held.byteLength;
      if (end > from && at < to)
        held.copy(copy, Math.max(0, at - from), Math.max(0, from - at), Math.min(held.byteLength, to - at));
      at = end;
    }
    return copy;
  }
}
