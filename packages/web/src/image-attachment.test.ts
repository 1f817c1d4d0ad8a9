import { describe, expect, it } from 'vitest';
import { AGENT_MAX_IMAGES, IMAGE_MAX_BYTES } from '@bastion/protocol';
import {
  attachedImagesProblem,
  checkImageFile,
  formatByteSize,
  imageAltText,
  imageInputOf,
  imagesNotTakenMessage,
  tooManyImagesMessage,
  type Attachment,
} from './image-attachment.js';

const PNG_HEAD = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const bytesOf = (text: string) => new TextEncoder().encode(text);

describe('checkImageFile', () => {
  it('takes a PNG, JPEG, GIF and WebP by their first bytes', () => {
    expect(checkImageFile('shot.png', 68, PNG_HEAD)).toEqual({ ok: true, mediaType: 'image/png' });
    expect(checkImageFile('photo.jpg', 1234, Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toEqual({
      ok: true,
      mediaType: 'image/jpeg',
    });
    expect(checkImageFile('a.gif', 10, bytesOf('GIF89a\x01\x00'))).toEqual({ ok: true, mediaType: 'image/gif' });
    expect(checkImageFile('a.webp', 10, bytesOf('RIFF\x10\x00\x00\x00WEBP'))).toEqual({
      ok: true,
      mediaType: 'image/webp',
    });
  });

  it('refuses a text file named like an image, naming it, whatever its name says', () => {
    const check = checkImageFile('notes.png', 20, bytesOf('just some notes here'));
    expect(check).toEqual({
      ok: false,
      message:
        '“notes.png” is not an image Bastion can send: only PNG, JPEG, GIF and WebP images can go with a message.',
    });
  });

  it('refuses an SVG (an image the providers do not take) and an empty file', () => {
    expect(checkImageFile('logo.svg', 100, bytesOf('<svg xmlns="http://www.w3.org/2000/svg">')).ok).toBe(false);
    expect(checkImageFile('empty.png', 0, new Uint8Array()).ok).toBe(false);
  });

  it('takes an image of exactly IMAGE_MAX_BYTES and refuses one byte more, with both sizes', () => {
    expect(checkImageFile('big.png', IMAGE_MAX_BYTES, PNG_HEAD).ok).toBe(true);
    expect(checkImageFile('big.png', IMAGE_MAX_BYTES + 1, PNG_HEAD)).toEqual({
      ok: false,
      message: '“big.png” is 3.75 MB; an image can be at most 3.75 MB.',
    });
    expect(checkImageFile('huge.png', 12 * 1024 * 1024, PNG_HEAD)).toEqual({
      ok: false,
      message: '“huge.png” is 12 MB; an image can be at most 3.75 MB.',
    });
  });

  it('cuts a very long name in its message', () => {
    const check = checkImageFile(`${'x'.repeat(300)}.txt`, 5, bytesOf('hello'));
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.message.length).toBeLessThan(160);
  });
});

describe('formatByteSize', () => {
  it('says bytes, KB and MB', () => {
    expect(formatByteSize(1)).toBe('1 byte');
    expect(formatByteSize(68)).toBe('68 bytes');
    expect(formatByteSize(1536)).toBe('1.5 KB');
    expect(formatByteSize(300 * 1024)).toBe('300 KB');
    expect(formatByteSize(IMAGE_MAX_BYTES)).toBe('3.75 MB');
    expect(formatByteSize(2 * 1024 * 1024)).toBe('2 MB');
  });
});

describe('messages and names', () => {
  it('names a fifth image and a model that takes none', () => {
    expect(tooManyImagesMessage('five.png')).toBe(
      `A message can carry at most ${AGENT_MAX_IMAGES} images: “five.png” was not attached.`,
    );
    expect(imagesNotTakenMessage(1)).toBe('This model does not take images: the image was not attached.');
    expect(imagesNotTakenMessage(2)).toBe('This model does not take images: the 2 images were not attached.');
  });

  it('says what stops attached images from going (too many, a model that takes none), nothing otherwise', () => {
    expect(attachedImagesProblem(0, false)).toBeUndefined();
    expect(attachedImagesProblem(AGENT_MAX_IMAGES, true)).toBeUndefined();
    expect(attachedImagesProblem(AGENT_MAX_IMAGES + 2, true)).toBe(
      `A message can carry at most ${AGENT_MAX_IMAGES} images: remove 2 of the ${AGENT_MAX_IMAGES + 2} attached.`,
    );
    expect(attachedImagesProblem(1, false)).toBe(
      'This model does not take images: remove the attached 1 image to send.',
    );
  });

  it('alt text is the name, or the format', () => {
    expect(imageAltText('shot.png', 'image/png')).toBe('shot.png');
    expect(imageAltText(undefined, 'image/png')).toBe('Attached image (PNG)');
    expect(imageAltText('', 'image/webp')).toBe('Attached image (WEBP)');
  });
});

describe('imageInputOf', () => {
  const attachment = (name: string): Attachment => ({
    id: 'a1',
    name,
    mediaType: 'image/png',
    bytes: 3,
    dataUrl: 'data:image/png;base64,iVBORw==',
  });

  it('sends the base64 without the data URL prefix, and the name', () => {
    expect(imageInputOf(attachment('shot.png'))).toEqual({ data: 'iVBORw==', name: 'shot.png' });
  });

  it('sends no empty name and cuts a long one to what the daemon takes', () => {
    expect(imageInputOf(attachment(''))).toEqual({ data: 'iVBORw==' });
    expect(imageInputOf(attachment('n'.repeat(400))).name).toHaveLength(255);
  });
});
