import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/seeded-random.js';
import { FORMAT_SAMPLES, HELD_SAMPLES as held, join2, letters } from '../../test/support/secret-samples.js';
import { SECRET_FORMATS, SecretPattern, type HeldSecret, type SecretStream } from './secret-scanner.js';

/** The body streamed in `parts` through one scan: the kind found, and every byte forwarded before that. */
function scanParts(pattern: SecretPattern, parts: Buffer[]) {
  const stream = pattern.stream();
  const forwarded: Uint8Array[] = [];
  for (const part of parts) {
    const scanned = stream.push(part);
    if (scanned.kind !== undefined) return { kind: scanned.kind, forwarded: Buffer.concat(forwarded) };
    forwarded.push(...scanned.forward);
  }
  const last = stream.end();
  if (last.kind !== undefined) return { kind: last.kind, forwarded: Buffer.concat(forwarded) };
  forwarded.push(...last.forward);
  return { kind: undefined, forwarded: Buffer.concat(forwarded) };
}

const scanInChunks = (pattern: SecretPattern, body: Buffer, cut: number) =>
  scanParts(pattern, [body.subarray(0, cut), body.subarray(cut)]);

/** `body` in pieces of `size` bytes. */
function pieces(body: Buffer, size: number): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < body.byteLength; at += size) parts.push(body.subarray(at, at + size));
  return parts;
}

/** `text`'s bytes `shift` bytes past a 4-byte boundary of their own memory (the scan reads 32-bit words). */
function shifted(text: string, shift: number): Buffer {
  const bytes = Buffer.from(text, 'latin1');
  const memory = Buffer.from(new ArrayBuffer(bytes.byteLength + 8));
  bytes.copy(memory, shift);
  return memory.subarray(shift, shift + bytes.byteLength);
}

describe('secret scan: formats and held credentials', () => {
  const pattern = new SecretPattern(held, []);

  it.each(FORMAT_SAMPLES)('finds a %s and names only its kind', (kind, sample) => {
    expect(pattern.findIn(Buffer.from(`{"content":"see ${sample} here"}`))).toBe(kind);
  });

  it('finds a Google key ending a JSON string, a query parameter, a line, or the body', () => {
    const key = join2('AI', 'za', letters(35, 'Sy0_-'));
    for (const text of [`{"key":"${key}"}`, `?key=${key}&alt=json`, `key: ${key}\n`, `key=${key}`]) {
      expect(pattern.findIn(Buffer.from(text)), text).toBe('google-api-key');
    }
  });

  it.each(held.map((secret) => [secret.kind, secret.value]))('finds the held %s', (kind, value) => {
    expect(pattern.findIn(Buffer.from(`{"text":"${value}"}`))).toBe(kind);
  });

  it('leaves out the credential the request is authorized to carry, and still finds the others', () => {
    const [own, other] = held as [HeldSecret, HeldSecret];
    const scoped = new SecretPattern(held, [own.value]);
    expect(scoped.findIn(Buffer.from(`Bearer ${own.value}`))).toBeUndefined();
    expect(scoped.findIn(Buffer.from(`${own.value} ${other.value}`))).toBe(other.kind);
  });

  it('a format match inside the authorized credential is not a hit (an OpenAI key sent to OpenAI)', () => {
    const key = join2('sk-', 'proj-', letters(60, 'Mn5_'));
    const scoped = new SecretPattern([{ kind: 'credential:openai', value: key }], [key]);
    expect(scoped.findIn(Buffer.from(`authorization: Bearer ${key}`))).toBeUndefined();
    expect(new SecretPattern([], []).findIn(Buffer.from(key))).toBe('openai-api-key');
  });

  it('does not match look-alikes: a longer token around an AWS-shaped run, short prefixes, a PEM public key', () => {
    for (const text of [
      join2('xAKIA', 'Q3XJ7R2VN4TB8KLM'),
      join2('AKIA', 'Q3XJ7R2VN4TB8KLMX'),
      'ghp_short',
      'sk-proj-tooshort',
      join2('-----BEGIN', ' PUBLIC KEY-----'),
      'the AKIA prefix and the ghp_ prefix, named in prose',
      // A Google-key-shaped run inside base64, between a `/` and a `+`.
      join2('iVBORw0KGgo/AI', 'za', letters(35, 'Sy0Q'), '+Wq9='),
    ]) {
      expect(pattern.findIn(Buffer.from(text)), text).toBeUndefined();
    }
  });
});

describe('secret scan: streaming across chunk boundaries', () => {
  const pattern = new SecretPattern(held, []);
  const secrets: [string, string][] = [...FORMAT_SAMPLES, ...held.map((s): [string, string] => [s.kind, s.value])];

  it.each(secrets)(
    'a %s split at every byte across two chunks is found before any byte of it is forwarded',
    (kind, secret) => {
      const before = ' '.repeat(300);
      const body = Buffer.from(`${before}${secret}${' '.repeat(300)}`);
      for (let cut = before.length; cut <= before.length + secret.length; cut += 1) {
        const scanned = scanInChunks(pattern, body, cut);
        expect(scanned.kind, `cut at ${cut}`).toBe(kind);
        expect(scanned.forwarded.byteLength, `cut at ${cut}`).toBeLessThanOrEqual(before.length);
      }
    },
  );

  it.each(secrets)(
    'a %s streamed in pieces of 1, 2, 3, 5, 7 and 13 bytes is found before any byte of it is forwarded',
    (kind, secret) => {
      const before = ' '.repeat(300);
      const body = Buffer.from(`${before}${secret}${' '.repeat(300)}`);
      for (const size of [1, 2, 3, 5, 7, 13]) {
        const scanned = scanParts(pattern, pieces(body, size));
        expect(scanned.kind, `pieces of ${size}`).toBe(kind);
        expect(scanned.forwarded.byteLength, `pieces of ${size}`).toBeLessThanOrEqual(before.length);
      }
    },
  );

  it.each(secrets)(
    'a %s is found at every offset from a 4-byte boundary (the body 0–3 bytes past one, the secret 0–7 bytes in)',
    (kind, secret) => {
      for (let shift = 0; shift < 4; shift += 1) {
        for (let lead = 0; lead < 8; lead += 1) {
          const body = shifted(`${' '.repeat(lead)}${secret} `, shift);
          expect(pattern.findIn(body), `shift ${shift}, lead ${lead}`).toBe(kind);
          expect(scanParts(pattern, pieces(body, 64 * 1024)).kind, `shift ${shift}, lead ${lead}`).toBe(kind);
        }
      }
    },
  );

  it('a look-alike split at every byte is still no hit, the byte before it read from the previous chunk, and the body passes whole', () => {
    for (const text of [
      join2('xAKIA', 'Q3XJ7R2VN4TB8KLM'),
      join2('AKIA', 'Q3XJ7R2VN4TB8KLMX'),
      join2('_gh', 'p_', letters(36, 'aB3')),
    ]) {
      const body = Buffer.from(` ${text} `);
      for (let cut = 0; cut <= body.byteLength; cut += 1) {
        const scanned = scanInChunks(pattern, body, cut);
        expect(scanned.kind, `${text} cut at ${cut}`).toBeUndefined();
        expect(scanned.forwarded.equals(body), `${text} cut at ${cut}`).toBe(true);
      }
    }
  });

  it.each(secrets)('a %s that ends the body is found at its end, whole or split at every byte', (kind, secret) => {
    const body = Buffer.from(`${' '.repeat(300)}${secret}`);
    for (let cut = 300; cut <= body.byteLength; cut += 1) {
      expect(scanInChunks(pattern, body, cut).kind, `cut at ${cut}`).toBe(kind);
    }
    expect(pattern.findIn(body)).toBe(kind);
  });

  it('forwards each chunk whole once the next is scanned, keeping back at most one chunk and the overlap', () => {
    const chunks = Array.from({ length: 5 }, (_, index) => Buffer.alloc(64 * 1024, 97 + index));
    const stream = pattern.stream();
    const forwarded: Uint8Array[] = [];
    for (const [index, chunk] of chunks.entries()) {
      const scanned = stream.push(chunk);
      if (scanned.kind !== undefined) throw new Error(`no secret here, found ${scanned.kind}`);
      expect(scanned.forward, `after chunk ${index}`).toEqual(index === 0 ? [] : [chunks[index - 1]]);
      forwarded.push(...scanned.forward);
    }
    expect(stream.end()).toEqual({ kind: undefined, forward: [chunks[4]] });
    expect(Buffer.concat(forwarded).equals(Buffer.concat(chunks.slice(0, 4)))).toBe(true);
  });

  it('without a secret, what is forwarded plus the end is the body, byte for byte, at any cut', () => {
    const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => String.fromCharCode(32 + (i % 90))).join(''));
    for (const cut of [0, 1, 50, 2499, 4999, 5000]) {
      const scanned = scanInChunks(pattern, body, cut);
      expect(scanned.kind).toBeUndefined();
      expect(scanned.forwarded.equals(body)).toBe(true);
    }
  });
});

describe('secret scan: false positives', () => {
  it("passes this repository's own tree (every tracked file) with zero hits", () => {
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file.length > 0);
    expect(files.length).toBeGreaterThan(100);
    const pattern = new SecretPattern(held, []);
    const hits: string[] = [];
    let bytes = 0;
    for (const file of files) {
      const path = join(root, file);
      if (!statSync(path, { throwIfNoEntry: false })?.isFile()) continue;
      const content = readFileSync(path);
      bytes += content.byteLength;
      // Streamed as the transport would, in 64 KiB chunks.
      const stream = pattern.stream();
      for (let at = 0; at < content.byteLength || at === 0; at += 64 * 1024) {
        const scanned = stream.push(content.subarray(at, at + 64 * 1024));
        if (scanned.kind !== undefined) {
          hits.push(`${file}: ${scanned.kind}`);
          break;
        }
        if (content.byteLength === 0) break;
      }
    }
    expect(bytes).toBeGreaterThan(1_000_000);
    expect(hits).toEqual([]);
  });
  it('passes a provider request of 16 MiB of images in base64 (random bytes, as compressed image data reads) with zero hits', () => {
    // Base64 holds no `_` or `-`, so most token formats cannot occur in it; an AKIA… key can, once in
    // about 4·10^13 positions (it needs a `+` or `/` on both sides); a Google key never inside it.
    const random = seededRandom(0x1a6e);
    const image = Buffer.alloc(12 * 1024 * 1024);
    for (let at = 0; at < image.byteLength; at += 4) image.writeUInt32LE(Math.floor(random() * 2 ** 32), at);
    const body = Buffer.from(
      `{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"${image.toString('base64')}"}}]}]}`,
    );
    expect(scanParts(new SecretPattern(held, []), pieces(body, 64 * 1024)).kind).toBeUndefined();
  });
});

/** The kinds of every secret in `bytes`, found the slow, obvious way: each held value by indexOf, each format's pattern over the whole text. */
function referenceKinds(secrets: readonly HeldSecret[], bytes: Buffer): Set<string> {
  const kinds = new Set<string>();
  for (const secret of secrets) {
    const value = Buffer.from(secret.value, 'utf8');
    if (value.byteLength >= 8 && bytes.includes(value)) kinds.add(secret.kind);
  }
  const text = bytes.toString('latin1');
  for (const format of SECRET_FORMATS) if (new RegExp(format.pattern).test(text)) kinds.add(format.kind);
  return kinds;
}

/**
 * A body of secrets, secrets cut short or with one byte changed, their anchors alone, runs of
 * letters and digits, and random bytes, sometimes longer than a 64 KiB segment, placed 0–63 bytes
 * past an aligned address.
 */
function adversarialBody(seed: number, samples: readonly string[]): Buffer {
  const next = seededRandom(seed);
  // Half the bodies hold near misses only: no whole sample, and a changed byte is one no secret has.
  const whole = next() < 0.5;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const anchors = [
    '-----BEGIN ',
    'AKIA',
    'ASIA',
    'ghp_',
    'gho_',
    'github_pat_',
    'xoxb-',
    'sk_live_',
    'sk-proj-',
    'sk-ant-api03-',
    'T3BlbkFJ',
    'AIza',
  ];
  const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
  const target = next() < 0.08 ? 64 * 1024 + Math.floor(next() * 70 * 1024) : Math.floor(next() * 2500);
  const parts: Buffer[] = [];
  let length = 0;
  while (length < target) {
    const choice = next();
    let part: string;
    if (choice < 0.01) part = whole ? pick(samples) : '';
    else if (choice < 0.2) {
      const sample = pick(samples);
      part = sample.slice(0, Math.floor(next() * sample.length * (whole ? 1 : 0.5)));
    } else if (choice < 0.35) {
      const sample = pick(samples);
      const at = Math.floor(next() * sample.length);
      part = sample.slice(0, at) + pick(whole ? [...alnum, ' ', '.'] : [' ', '.', '\n']) + sample.slice(at + 1);
    } else if (choice < 0.5) part = pick(anchors);
    else if (choice < 0.75) part = Array.from({ length: Math.floor(next() * 60) }, () => pick([...alnum])).join('');
    else part = String.fromCharCode(...Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 256)));
    // In near-miss bodies, parts are kept apart, so an anchor and a run after it make no secret.
    const bytes = Buffer.from(whole ? part : `${part} `, 'latin1');
    parts.push(bytes);
    length += bytes.byteLength;
  }
  const body = Buffer.concat(parts);
  const offset = Math.floor(next() * 64);
  const memory = Buffer.alloc(offset + body.byteLength);
  body.copy(memory, offset);
  return memory.subarray(offset);
}

describe('secret scan: each chunk joined to the held tail in the pre-filter’s memory', () => {
  // A ChatGPT access token is about 1.9 KB: the overlap, and so the held tail, is that long.
  const token = join2('eyJ', 'held-access-', letters(1900, 'k3m9P'));
  const pattern = new SecretPattern([...held, { kind: 'credential:chatgpt-access', value: token }], []);

  /** `token` starting at `start` of a body of spaces cut into `size`-byte chunks. */
  const bodyWithToken = (start: number, size: number): Buffer[] => {
    const body = Buffer.alloc(2 * size + 4096, 0x20);
    body.write(token, start, 'latin1');
    return pieces(body, size);
  };

  it.each([
    ['two 64 KiB chunks (joined in the pre-filter’s memory), at every offset', 64 * 1024, 1],
    ['two 200 KiB chunks (too long to join there: a buffer of their own), at every 97th offset', 200 * 1024, 97],
  ])('a 1.9 KB credential split across %s is found before any byte of it is forwarded', (_, size, step) => {
    for (let start = size - token.length; start <= size; start += step) {
      const scanned = scanParts(pattern, bodyWithToken(start, size));
      expect(scanned.kind, `token at ${start}`).toBe('credential:chatgpt-access');
      expect(scanned.forwarded.byteLength, `token at ${start}`).toBeLessThanOrEqual(start);
    }
  });

  it('with a 308-byte authorized OpenAI key: a longer key run holding it, split at every byte, is found (the tail holds the whole authorized length); the authorized one split anywhere passes', () => {
    const own = join2('sk-', 'proj-', letters(300, 'Qw7_'));
    const scoped = new SecretPattern([], [own]);
    const body = Buffer.from(` ${own}${letters(40, 'Zx4-')} `);
    const ownBody = Buffer.from(` ${own} `);
    for (let cut = 1; cut < ownBody.byteLength; cut += 1) {
      expect(scanInChunks(scoped, body, cut).kind, `cut at ${cut}`).toBe('openai-api-key');
      const passed = scanInChunks(scoped, ownBody, cut);
      expect(passed.kind, `own key cut at ${cut}`).toBeUndefined();
      expect(passed.forwarded.equals(ownBody), `own key cut at ${cut}`).toBe(true);
    }
  });

  it('two streams pushed in turn each keep their own tail (never a view of the shared memory): a secret in 7-byte pieces is found in both', () => {
    const [first, second] = held.map((secret) => pieces(Buffer.from(` ${secret.value} `), 7));
    const streams = [pattern.stream(), pattern.stream()];
    const kinds: (string | undefined)[] = [undefined, undefined];
    for (let index = 0; index < Math.max(first?.length ?? 0, second?.length ?? 0); index += 1) {
      for (const [which, parts] of [first, second].entries()) {
        const part = parts?.[index];
        if (part === undefined || kinds[which] !== undefined) continue;
        kinds[which] = (streams[which] as SecretStream).push(part).kind;
      }
    }
    expect(kinds).toEqual(held.map((secret) => secret.kind));
  });
});

describe('secret scan: differential against a reference scan', () => {
  const pattern = new SecretPattern(held, []);
  const samples = [...FORMAT_SAMPLES.map(([, sample]) => sample), ...held.map((secret) => secret.value)];

  it('on 300 adversarial bodies, finds a secret exactly when the reference does, names one the reference found, whole and streamed in random pieces', () => {
    let withSecrets = 0;
    for (let seed = 1; seed <= 300; seed += 1) {
      const body = adversarialBody(seed, samples);
      const expected = referenceKinds(held, body);
      if (expected.size > 0) withSecrets += 1;
      const found = pattern.findIn(body);
      expect(found === undefined ? expected.size === 0 : expected.has(found), `seed ${seed}: found ${found}`).toBe(
        true,
      );
      const next = seededRandom(seed * 7919);
      const parts: Buffer[] = [];
      for (let at = 0; at < body.byteLength;) {
        const size = 1 + Math.floor(next() * (next() < 0.5 ? 64 : 80 * 1024));
        parts.push(body.subarray(at, at + size));
        at += size;
      }
      const streamed = scanParts(pattern, parts);
      expect(
        streamed.kind === undefined ? expected.size === 0 : expected.has(streamed.kind),
        `seed ${seed}: streamed found ${streamed.kind}`,
      ).toBe(true);
      if (streamed.kind === undefined) expect(streamed.forwarded.equals(body), `seed ${seed}`).toBe(true);
    }
    // Both outcomes are exercised: bodies with secrets and bodies of near misses only.
    expect(withSecrets).toBeGreaterThan(50);
    expect(withSecrets).toBeLessThan(270);
  });
});

describe('secret scan: a match across the seam, read from the chunks still held', () => {
  // The pre-filter sees only the last two bytes before a chunk; the rest of a match that starts
  // further back is read from the chunks not yet forwarded, and a match a chunk's end leaves
  // undecided is looked at again with the next.
  const token = join2('eyJ', 'held-access-', letters(1900, 'k3m9P'));
  const pattern = new SecretPattern([...held, { kind: 'credential:chatgpt-access', value: token }], []);
  const secrets: [string, string][] = [
    ...FORMAT_SAMPLES,
    ...held.map((s): [string, string] => [s.kind, s.value]),
    ['credential:chatgpt-access', token],
  ];
  const SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 13, 16, 31, 32, 33, 64, 100, 1000, 4096];

  /** Where to put a `length`-byte secret so that it meets the boundaries of `size`-byte chunks at every offset. */
  const leads = (size: number, length: number): number[] => {
    const boundary = size * Math.ceil(300 / size);
    const [from, to] = size <= length + 2 ? [boundary, boundary + size - 1] : [boundary - length - 2, boundary + 2];
    return Array.from({ length: to - from + 1 }, (_, index) => from + index);
  };

  it.each(secrets)(
    'a %s placed at every offset to the chunk boundaries (its window at every offset to the seam), in chunks of 1 to 4096 bytes, is found before any byte of it is forwarded',
    (kind, secret) => {
      for (const size of SIZES) {
        for (const lead of leads(size, secret.length)) {
          const body = Buffer.from(`${' '.repeat(lead)}${secret}${' '.repeat(40)}`, 'latin1');
          const scanned = scanParts(pattern, pieces(body, size));
          expect(scanned.kind, `chunks of ${size}, secret at ${lead}`).toBe(kind);
          expect(scanned.forwarded.byteLength, `chunks of ${size}, secret at ${lead}`).toBeLessThanOrEqual(lead);
        }
      }
    },
  );

  it.each(secrets)(
    'a %s ending the body is found at the end, in chunks of 1 to 4096 bytes at every offset',
    (kind, secret) => {
      for (const size of SIZES) {
        for (const lead of leads(size, secret.length)) {
          const body = Buffer.from(`${' '.repeat(lead)}${secret}`, 'latin1');
          expect(scanParts(pattern, pieces(body, size)).kind, `chunks of ${size}, secret at ${lead}`).toBe(kind);
        }
      }
    },
  );

  it('look-alikes in chunks of 1 to 97 bytes at every offset are no hit and pass whole, the byte before a match read from a chunk already forwarded; the same runs after a space are found', () => {
    // Overlap 92 here: in 1-byte chunks the `x` before a 92-byte key run has left when the run's
    // last byte comes, and only the byte before what is held says the run is inside a longer token.
    const formatsOnly = new SecretPattern(held, []);
    const lookAlikes = [
      join2('xAKIA', 'Q3XJ7R2VN4TB8KLM'),
      join2('AKIA', 'Q3XJ7R2VN4TB8KLMX'),
      join2('_gh', 'p_', letters(36, 'aB3')),
      ...[83, 84, 85].map((run) => join2('x', 'sk', '_live_', letters(run, 'Qw3'))),
    ];
    for (const size of [1, 2, 3, 5, 7, 31, 32, 33, 97]) {
      for (const text of lookAlikes) {
        for (const lead of leads(size, text.length)) {
          const body = Buffer.from(`${' '.repeat(lead)}${text} `);
          const scanned = scanParts(formatsOnly, pieces(body, size));
          expect(scanned.kind, `${text.slice(0, 12)}… in chunks of ${size} at ${lead}`).toBeUndefined();
          expect(scanned.forwarded.equals(body), `${text.slice(0, 12)}… in chunks of ${size} at ${lead}`).toBe(true);
          const found = Buffer.from(`${' '.repeat(lead)} ${text.slice(1)} `);
          if (text.startsWith('x')) expect(scanParts(formatsOnly, pieces(found, size)).kind).toBeDefined();
        }
      }
    }
  });

  it('with a 308-byte authorized OpenAI key, in chunks of 1 to 97 bytes: a longer key run holding it is found, the authorized key alone passes whole', () => {
    const own = join2('sk-', 'proj-', letters(300, 'Qw7_'));
    const scoped = new SecretPattern([], [own]);
    for (const size of [1, 2, 3, 7, 32, 33, 97]) {
      for (const lead of leads(size, own.length).filter((_, index) => index % 5 === 0)) {
        const body = Buffer.from(`${' '.repeat(lead)}${own}${letters(40, 'Zx4-')} `);
        expect(scanParts(scoped, pieces(body, size)).kind, `chunks of ${size} at ${lead}`).toBe('openai-api-key');
        const ownBody = Buffer.from(`${' '.repeat(lead)}${own} `);
        const passed = scanParts(scoped, pieces(ownBody, size));
        expect(passed.kind, `own key in chunks of ${size} at ${lead}`).toBeUndefined();
        expect(passed.forwarded.equals(ownBody), `own key in chunks of ${size} at ${lead}`).toBe(true);
      }
    }
  });

  /** `body` in random pieces, a third of them 1–8 bytes long. */
  const randomPieces = (body: Buffer, seed: number): Buffer[] => {
    const next = seededRandom(seed);
    const parts: Buffer[] = [];
    for (let at = 0; at < body.byteLength;) {
      const roll = next();
      const size = 1 + Math.floor(next() * (roll < 0.33 ? 8 : roll < 0.66 ? 300 : 80 * 1024));
      parts.push(body.subarray(at, at + size));
      at += size;
    }
    return parts;
  };

  it('on 1 500 adversarial bodies with a 1.9 KB held credential, streamed in random pieces down to 1 byte, finds a secret exactly when the reference does', () => {
    const secrets = [...held, { kind: 'credential:chatgpt-access', value: token }];
    const samples = [...FORMAT_SAMPLES.map(([, sample]) => sample), ...secrets.map((secret) => secret.value)];
    let withSecrets = 0;
    for (let seed = 1; seed <= 1500; seed += 1) {
      const body = adversarialBody(seed, samples);
      const expected = referenceKinds(secrets, body);
      if (expected.size > 0) withSecrets += 1;
      const streamed = scanParts(pattern, randomPieces(body, seed * 7919));
      expect(
        streamed.kind === undefined ? expected.size === 0 : expected.has(streamed.kind),
        `seed ${seed}: streamed found ${streamed.kind}`,
      ).toBe(true);
      if (streamed.kind === undefined) expect(streamed.forwarded.equals(body), `seed ${seed}`).toBe(true);
    }
    expect(withSecrets).toBeGreaterThan(250);
    expect(withSecrets).toBeLessThan(1350);
  });

  it('on 1 500 adversarial bodies with a 308-byte authorized key, streamed in random pieces down to 1 byte, finds a secret exactly when the whole body holds one', () => {
    const own = join2('sk-', 'proj-', letters(300, 'Qw7_'));
    const scoped = new SecretPattern([...held, { kind: 'credential:chatgpt-access', value: token }], [own]);
    const samples = [...FORMAT_SAMPLES.map(([, sample]) => sample), token, own, `${own}Zx4`];
    let withSecrets = 0;
    for (let seed = 1; seed <= 1500; seed += 1) {
      const body = adversarialBody(seed, samples);
      const whole = scoped.findIn(body);
      if (whole !== undefined) withSecrets += 1;
      const streamed = scanParts(scoped, randomPieces(body, seed * 104729));
      expect(streamed.kind !== undefined, `seed ${seed}: whole ${whole}, streamed ${streamed.kind}`).toBe(
        whole !== undefined,
      );
      if (streamed.kind === undefined) expect(streamed.forwarded.equals(body), `seed ${seed}`).toBe(true);
    }
    expect(withSecrets).toBeGreaterThan(250);
    expect(withSecrets).toBeLessThan(1350);
  });
});
