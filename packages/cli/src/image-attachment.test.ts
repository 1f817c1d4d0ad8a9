import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_MAX_IMAGES } from '@bastion/protocol';
import { describeImage, imageInputs, readImageAttachment, readImageAttachments } from './image-attachment.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const GIF = Buffer.from('GIF89a\x01\x00', 'latin1');
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'bastion-image-attachment-'));
  dirs.push(dir);
  return dir;
}

describe('readImageAttachment', () => {
  it('reads an image relative to the base folder, by its first bytes, with its file name and base64', () => {
    const base = folder();
    writeFileSync(join(base, 'shot.bin'), PNG);
    const read = readImageAttachment('shot.bin', base);
    expect(read).toEqual({
      ok: true,
      image: {
        path: 'shot.bin',
        name: 'shot.bin',
        mediaType: 'image/png',
        bytes: PNG.length,
        data: PNG.toString('base64'),
      },
    });
    if (read.ok) expect(imageInputs([read.image])).toEqual([{ data: PNG.toString('base64'), name: 'shot.bin' }]);
  });

  it('tells GIF and WebP by their first bytes too', () => {
    const base = folder();
    writeFileSync(join(base, 'a'), GIF);
    writeFileSync(join(base, 'b'), WEBP);
    expect(readImageAttachment('a', base)).toMatchObject({ ok: true, image: { mediaType: 'image/gif' } });
    expect(readImageAttachment('b', base)).toMatchObject({ ok: true, image: { mediaType: 'image/webp' } });
  });

  it('follows a symbolic link to an image (the user named it), and refuses one to a folder', () => {
    const base = folder();
    writeFileSync(join(base, 'real.png'), PNG);
    mkdirSync(join(base, 'dir'));
    symlinkSync(join(base, 'real.png'), join(base, 'link.png'));
    symlinkSync(join(base, 'dir'), join(base, 'dirlink.png'));
    expect(readImageAttachment('link.png', base)).toMatchObject({ ok: true, image: { name: 'link.png' } });
    expect(readImageAttachment('dirlink.png', base)).toEqual({
      ok: false,
      message: 'image dirlink.png: is a folder, not an image file',
    });
  });

  it('refuses a path through a file, and names a path with terminal escapes made inert', () => {
    const base = folder();
    writeFileSync(join(base, 'file'), PNG);
    expect(readImageAttachment('file/x.png', base)).toEqual({ ok: false, message: 'image file/x.png: no such file' });
    expect(readImageAttachment('\u001b[2Jgone.png', base)).toEqual({
      ok: false,
      message: 'image gone.png: no such file',
    });
  });
});

describe('readImageAttachments', () => {
  it(`refuses more than AGENT_MAX_IMAGES (${AGENT_MAX_IMAGES}) before reading any`, () => {
    const paths = Array.from({ length: AGENT_MAX_IMAGES + 1 }, () => 'missing.png');
    expect(readImageAttachments(paths, folder())).toEqual({
      ok: false,
      message: `${AGENT_MAX_IMAGES + 1} images: at most ${AGENT_MAX_IMAGES} go with one message`,
    });
  });
});

describe('describeImage', () => {
  it('says the name, format and exact size, a name’s escapes made inert', () => {
    expect(describeImage({ name: 'a.png', mediaType: 'image/png', bytes: 68 })).toBe('a.png (PNG, 68 bytes)');
    expect(describeImage({ name: 'x\u001b]0;t\u0007.jpg', mediaType: 'image/jpeg', bytes: 1234 })).toBe(
      'x.jpg (JPEG, 1234 bytes)',
    );
    expect(describeImage({ mediaType: 'image/webp', bytes: 9 })).toBe('an image (WEBP, 9 bytes)');
  });
});
