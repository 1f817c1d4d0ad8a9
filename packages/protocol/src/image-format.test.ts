import { describe, expect, it } from 'vitest';
import { fitImageName, IMAGE_MAX_BASE64_CHARS, imageFormatName, sniffImageType } from './image-format.js';
import { IMAGE_MAX_BYTES, IMAGE_NAME_MAX_CHARS } from './limits.js';

const bytes = (...parts: (number[] | string)[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...part].map((c) => c.charCodeAt(0)) : part)));

describe('sniffImageType', () => {
  it.each([
    ['image/png', bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
    ['image/jpeg', bytes([0xff, 0xd8, 0xff, 0xe0])],
    ['image/gif', bytes('GIF87a', [1, 0])],
    ['image/gif', bytes('GIF89a', [1, 0])],
    ['image/webp', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 ')],
  ])('tells %s by its first bytes', (type, data) => {
    expect(sniffImageType(data)).toBe(type);
  });

  it.each([
    ['SVG text', bytes('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['a RIFF that is not WebP (WAVE)', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt ')],
    ['a PNG signature cut short', bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a])],
    ['GIF of an unknown version', bytes('GIF90a')],
    ['nothing', bytes()],
  ])('refuses %s', (_what, data) => {
    expect(sniffImageType(data)).toBeUndefined();
  });
});

describe('image limits', () => {
  it('lets the base64 of an image of IMAGE_MAX_BYTES through and no more than one block beyond it', () => {
    expect(IMAGE_MAX_BASE64_CHARS).toBe(Buffer.alloc(IMAGE_MAX_BYTES).toString('base64').length);
    expect(IMAGE_MAX_BASE64_CHARS).toBeLessThanOrEqual(5 * 1024 * 1024);
  });

  it('names a format in capitals', () => {
    expect(imageFormatName('image/webp')).toBe('WEBP');
    expect(imageFormatName('image/jpeg')).toBe('JPEG');
  });

  it('cuts a name to IMAGE_NAME_MAX_CHARS by whole characters, never half of a pair, and leaves a short one alone', () => {
    expect(fitImageName('shot.png')).toBe('shot.png');
    expect(fitImageName('a'.repeat(IMAGE_NAME_MAX_CHARS + 10))).toBe('a'.repeat(IMAGE_NAME_MAX_CHARS));
    const emoji = `${'a'.repeat(IMAGE_NAME_MAX_CHARS - 1)}😀.png`;
    expect(fitImageName(emoji)).toBe('a'.repeat(IMAGE_NAME_MAX_CHARS - 1));
  });
});
