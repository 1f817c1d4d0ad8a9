/**
 * The image formats every provider Bastion offers takes, told apart by their first bytes (never by
 * a name or a declared type). No zod here: the web app imports this, and a module that builds
 * schemas when it loads would put zod (and its `eval` probe, which the page's CSP refuses) in it.
 */
import { IMAGE_MAX_BYTES, IMAGE_NAME_MAX_CHARS } from './limits.js';

export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((byte, index) => bytes[at + index] === byte);

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/** The image format `bytes` begin with, or undefined for anything else (SVG, HEIC, a text file…). */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) return 'image/gif';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'image/webp';
  return undefined;
}

/** "image/png" → "PNG", for the words a user reads. */
export function imageFormatName(mediaType: ImageMediaType): string {
  return mediaType.slice('image/'.length).toUpperCase();
}

/** Base64 characters of an image of IMAGE_MAX_BYTES; a longer `data` is refused before decoding. */
export const IMAGE_MAX_BASE64_CHARS = Math.ceil(IMAGE_MAX_BYTES / 3) * 4;

/** `name` cut to IMAGE_NAME_MAX_CHARS by whole characters (never half a surrogate pair), as `images[].name` takes it. */
export function fitImageName(name: string): string {
  let fitted = '';
  for (const char of name) {
    if (fitted.length + char.length > IMAGE_NAME_MAX_CHARS) break;
    fitted += char;
  }
  return fitted;
}
