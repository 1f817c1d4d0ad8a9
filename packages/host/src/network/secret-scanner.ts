/**
 * SEC-004 watchdog, the secret-egress scan: finds, in a stream of bytes, any credential Bastion
 * holds (given as exact values) and high-confidence secret formats (private-key blocks, cloud
 * access keys, common token prefixes). Streaming with bounded memory: each chunk is scanned with
 * the tail of the previous one (one byte shorter than the longest secret a match needs), so a
 * secret split across two chunks is still found, and nothing else of the stream is kept. Bytes
 * are read as latin1, so an exact value matches byte for byte whatever its encoding.
 *
 * What it does not catch: a secret encoded or transformed on the way (base64, JSON `\u` escapes,
 * split by other text, reversed, compressed), a held credential shorter than
 * EGRESS_MIN_SECRET_CHARS, and secret formats not listed here (generic passwords, JWTs other than
 * Bastion's own).
 */
import { EGRESS_MIN_SECRET_CHARS } from '@bastion/protocol';

/** A value the scan must find, named by a kind that is safe to log and show (never the value). */
export interface HeldSecret {
  kind: string;
  value: string;
}

interface SecretFormat {
  kind: string;
  /** The pattern; `(?<![…])` / `(?![…])` keep a format from matching inside a longer token. */
  pattern: string;
  /** The longest text a shortest match of the pattern can span, for the overlap between chunks. */
  span: number;
}

/** High-confidence formats: prefixes and shapes that ordinary source text does not produce. */
export const SECRET_FORMATS: readonly SecretFormat[] = [
  { kind: 'private-key-block', pattern: '-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----', span: 80 },
  {
    kind: 'aws-access-key-id',
    pattern: '(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])',
    span: 21,
  },
  { kind: 'github-token', pattern: '(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36}(?![A-Za-z0-9])', span: 41 },
  { kind: 'github-token', pattern: 'github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}', span: 93 },
  { kind: 'slack-token', pattern: 'xox[abposr]-[0-9]{6,}-[0-9A-Za-z-]{6,}', span: 20 },
  { kind: 'stripe-live-key', pattern: '(?<![A-Za-z0-9])[sr]k_live_[0-9A-Za-z]{20,}', span: 28 },
  { kind: 'openai-api-key', pattern: 'sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}', span: 52 },
  { kind: 'openai-api-key', pattern: 'sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}', span: 51 },
  { kind: 'anthropic-api-key', pattern: 'sk-ant-(?:api|admin|oat)[0-9]{2}-[A-Za-z0-9_-]{40,}', span: 55 },
  { kind: 'google-api-key', pattern: '(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])', span: 40 },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The latin1 spelling of a string's UTF-8 bytes: what the scan sees of it in a body. */
function asBytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** A compiled scan: one regular expression for every format and held secret, reused across requests. */
export class SecretPattern {
  readonly #regex: RegExp;
  readonly #kinds: string[];
  readonly #allowed: string[];
  /** How much of the previous chunk each chunk is scanned with. */
  readonly overlap: number;

  /**
   * `secrets`: every credential to find; `allowed`: the values this request may carry (its own
   * credential), which are left out, and a format match inside one of them is not a hit.
   */
  constructor(secrets: readonly HeldSecret[], allowed: readonly string[]) {
    const allowedBytes = new Set(allowed.map(asBytes));
    const wanted = secrets
      .map((secret) => ({ kind: secret.kind, bytes: asBytes(secret.value) }))
      .filter((secret) => secret.bytes.length >= EGRESS_MIN_SECRET_CHARS && !allowedBytes.has(secret.bytes));
    const alternatives = [
      ...SECRET_FORMATS.map((format) => ({ kind: format.kind, source: format.pattern, span: format.span })),
      ...wanted.map((secret) => ({ kind: secret.kind, source: escapeRegExp(secret.bytes), span: secret.bytes.length })),
    ];
    this.#kinds = alternatives.map((alternative) => alternative.kind);
    this.#regex = new RegExp(
      alternatives.map((alternative, index) => `(?<s${index}>${alternative.source})`).join('|'),
      'g',
    );
    this.#allowed = [...allowedBytes];
    this.overlap = Math.max(...alternatives.map((alternative) => alternative.span)) - 1;
  }

  /** The kind of the first secret in these bytes, or undefined. */
  findIn(bytes: Uint8Array): string | undefined {
    return this.find(latin1(bytes));
  }

  /** The kind of the first secret in `text` (latin1), or undefined. */
  find(text: string): string | undefined {
    this.#regex.lastIndex = 0;
    for (let match = this.#regex.exec(text); match !== null; match = this.#regex.exec(text)) {
      const found = match[0];
      if (!this.#allowed.some((value) => value.includes(found))) {
        const index = Object.entries(match.groups ?? {}).find(([, value]) => value !== undefined)?.[0];
        return this.#kinds[Number(index?.slice(1))] ?? 'secret';
      }
      this.#regex.lastIndex = match.index + 1;
    }
    return undefined;
  }

  /** A scanner for one stream. */
  stream(): SecretStream {
    return new SecretStream(this);
  }
}

/** What a stream's chunk scan says: the kind of the secret found, or the bytes now safe to send. */
export type StreamScan = { kind: string } | { kind: undefined; forward: Uint8Array[] };

const latin1 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/**
 * One stream's scan. The last `overlap` bytes of what was scanned are held back, not forwarded,
 * until the next chunk (or the end) has been scanned with them: a secret split across two chunks
 * is found before any byte of it leaves.
 */
export class SecretStream {
  readonly #pattern: SecretPattern;
  #held: Uint8Array = new Uint8Array(0);

  constructor(pattern: SecretPattern) {
    this.#pattern = pattern;
  }

  push(chunk: Uint8Array): StreamScan {
    const held = this.#held;
    const kind = this.#pattern.find(latin1(held) + latin1(chunk));
    if (kind !== undefined) return { kind };
    const total = held.byteLength + chunk.byteLength;
    const sendable = total - Math.min(this.#pattern.overlap, total);
    const forward: Uint8Array[] = [];
    if (sendable <= held.byteLength) {
      if (sendable > 0) forward.push(held.subarray(0, sendable));
      this.#held = Buffer.concat([held.subarray(sendable), chunk]);
    } else {
      if (held.byteLength > 0) forward.push(held);
      forward.push(chunk.subarray(0, sendable - held.byteLength));
      // A copy, so the held tail does not keep the whole chunk alive.
      this.#held = Uint8Array.from(chunk.subarray(sendable - held.byteLength));
    }
    return { kind: undefined, forward };
  }

  /** The end of the stream: the held tail, scanned already with everything before it. */
  end(): Uint8Array {
    const held = this.#held;
    this.#held = new Uint8Array(0);
    return held;
  }
}
