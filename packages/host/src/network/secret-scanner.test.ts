import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FORMAT_SAMPLES, HELD_SAMPLES as held, join2, letters } from '../../test/support/secret-samples.js';
import { SecretPattern, type HeldSecret } from './secret-scanner.js';

function scanInChunks(pattern: SecretPattern, body: Buffer, cut: number) {
  const stream = pattern.stream();
  const forwarded: Uint8Array[] = [];
  for (const part of [body.subarray(0, cut), body.subarray(cut)]) {
    const scanned = stream.push(part);
    if (scanned.kind !== undefined) return { kind: scanned.kind, forwarded: Buffer.concat(forwarded) };
    forwarded.push(...scanned.forward);
  }
  forwarded.push(stream.end());
  return { kind: undefined, forwarded: Buffer.concat(forwarded) };
}

describe('secret scan: formats and held credentials', () => {
  const pattern = new SecretPattern(held, []);

  it.each(FORMAT_SAMPLES)('finds a %s and names only its kind', (kind, sample) => {
    expect(pattern.findIn(Buffer.from(`{"content":"see ${sample} here"}`))).toBe(kind);
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
});
