import { describe, expect, it } from 'vitest';
import { redactHeld } from './redact-held.js';

const KEY = 'sk-held-Zq81/+x-long-enough-0123456789';
const MARKER = "[redacted: Bastion's openai credential]";
const held = [{ kind: 'openai', value: KEY }];

describe('redactHeld', () => {
  it('replaces a held value in every string of a result, nested, and returns the same object when none holds one', () => {
    const result = { content: `key=${KEY}`, lines: [{ text: `a ${KEY} b ${KEY}` }], n: 3 };
    expect(redactHeld(result, held)).toEqual({
      content: `key=${MARKER}`,
      lines: [{ text: `a ${MARKER} b ${MARKER}` }],
      n: 3,
    });
    const clean = { content: 'nothing here' };
    expect(redactHeld(clean, held)).toBe(clean);
  });

  it('redacts a held value holding a quote and a backslash as written and as a JSON string carries it (a file of JSON the tool read)', () => {
    const password = 'pw-"quoted"\\and-long-enough';
    const escaped = JSON.stringify(password).slice(1, -1);
    expect(escaped).not.toBe(password);
    const shown = redactHeld({ content: `raw ${password} json {"p":"${escaped}"}` }, [{ kind: 'db', value: password }]);
    expect(shown.content).toBe(
      `raw [redacted: Bastion's db credential] json {"p":"[redacted: Bastion's db credential]"}`,
    );
  });

  it('redacts a held value in base64 and base64url at every alignment, leaving at most the two bytes at each end encoded with their neighbours', () => {
    const n = Buffer.byteLength(KEY);
    for (let before = 0; before < 6; before += 1) {
      for (let after = 0; after < 4; after += 1) {
        const bytes = Buffer.from(`${'u:'.repeat(3).slice(0, before)}${KEY}${'\n\t'.repeat(2).slice(0, after)}`);
        for (const encoding of ['base64', 'base64url'] as const) {
          const encoded = bytes.toString(encoding);
          const shown = redactHeld({ header: `Basic ${encoded}` }, held).header;
          const label = `${encoding}, ${before} bytes before, ${after} after`;
          expect(shown, label).toContain(MARKER);
          const [head = '', tail = ''] = shown.slice('Basic '.length).split(MARKER);
          // What is left encodes the bytes around the key and at most 2 of the key's own at either end.
          expect(head.length, label).toBeLessThanOrEqual(Math.ceil(before / 3) * 4);
          expect(tail.length, label).toBeLessThanOrEqual(encoded.length - Math.floor((before + n) / 3) * 4);
        }
      }
    }
  });
});
