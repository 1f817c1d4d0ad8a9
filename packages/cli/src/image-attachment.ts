/**
 * Images the user attaches to a message (`bastion run --image FILE`, chat's `/image PATH`), read
 * by the CLI itself: the user named the file, so it is read with the user's own rights, outside
 * the sandbox, as any program the user runs on their own file would. Each is checked before
 * anything is started — a regular file (a FIFO or a device is refused without being read, so
 * naming one cannot hang the CLI), at most IMAGE_MAX_BYTES (read no further), PNG, JPEG, GIF or
 * WebP by its first bytes, never by its name — so a mistake is refused in words before a session
 * exists. The daemon checks the same again (it trusts no client); this does not stop the user
 * sending a file they can read that they did not mean to: what they name is their call.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import {
  AGENT_MAX_IMAGES,
  IMAGE_MAX_BYTES,
  fitImageName,
  imageFormatName,
  sniffImageType,
  type ImageInput,
  type ImageMediaType,
} from '@bastion/protocol';
import { terminalLine } from '@bastion/host';

/** One image read and checked, ready to go with a message. */
export interface AttachedImage {
  /** The path as the user gave it, for what is said about it. */
  path: string;
  /** Its file name, for the transcript (what `images[].name` carries). */
  name: string;
  mediaType: ImageMediaType;
  bytes: number;
  /** Its bytes in standard base64, as `POST /agent/run` takes them. */
  data: string;
}

export type ImageReadResult = { ok: true; image: AttachedImage } | { ok: false; message: string };

const LIMIT_WORDS = `${IMAGE_MAX_BYTES} bytes (${IMAGE_MAX_BYTES / (1024 * 1024)} MiB)`;

/** Why a file could not be opened, in words, by its error code. */
function openFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ELOOP') return 'too many symbolic links';
  return `cannot be read${typeof code === 'string' ? ` (${code})` : ''}`;
}

/**
 * Read the image at `path` (relative to `base`) and check it; a refusal names the file and why.
 * At most IMAGE_MAX_BYTES + 1 bytes are ever read, however large the file is or grows.
 */
export function readImageAttachment(path: string, base: string): ImageReadResult {
  const shown = terminalLine(path);
  const refuse = (why: string): ImageReadResult => ({ ok: false, message: `image ${shown}: ${why}` });
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one; fstat refuses it below.
    fd = openSync(resolve(base, path), constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    return refuse(openFailure(error));
  }
  try {
    // fstat of the open file, not stat of the path: what is checked is what is read.
    const stats = fstatSync(fd);
    if (stats.isDirectory()) return refuse('is a folder, not an image file');
    if (!stats.isFile()) return refuse('is not a regular file');
    if (stats.size > IMAGE_MAX_BYTES) return refuse(`is ${stats.size} bytes, over the limit of ${LIMIT_WORDS}`);
    const buffer = Buffer.alloc(IMAGE_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      // It grew past the limit since fstat: refused as it now is.
      if (length > IMAGE_MAX_BYTES) return refuse(`is over the limit of ${LIMIT_WORDS}`);
    }
    const bytes = buffer.subarray(0, length);
    const mediaType = sniffImageType(bytes);
    if (mediaType === undefined) {
      const what = length === 0 ? 'is empty' : 'is not a PNG, JPEG, GIF or WebP image (by its first bytes)';
      return refuse(what);
    }
    const name = fitImageName(basename(path)) || 'image';
    return { ok: true, image: { path, name, mediaType, bytes: length, data: bytes.toString('base64') } };
  } catch (error) {
    return refuse(openFailure(error));
  } finally {
    closeSync(fd);
  }
}

/**
 * Read each of `paths` in order; the first refusal, or a count over AGENT_MAX_IMAGES, is the
 * answer (nothing is read past a refusal).
 */
export function readImageAttachments(
  paths: readonly string[],
  base: string,
): { ok: true; images: AttachedImage[] } | { ok: false; message: string } {
  if (paths.length > AGENT_MAX_IMAGES) return { ok: false, message: tooManyImages(paths.length) };
  const images: AttachedImage[] = [];
  for (const path of paths) {
    const read = readImageAttachment(path, base);
    if (!read.ok) return read;
    images.push(read.image);
  }
  return { ok: true, images };
}

/** Why `count` images cannot go with one message. */
export function tooManyImages(count: number): string {
  return `${count} images: at most ${AGENT_MAX_IMAGES} go with one message`;
}

/** "PNG, 68 bytes": an image's format and size, as the demo model and the transcript say them. */
export function imageFacts(image: { mediaType: ImageMediaType; bytes: number }): string {
  return `${imageFormatName(image.mediaType)}, ${image.bytes} bytes`;
}

/** "shot.png (PNG, 68 bytes)": an image as a line of the terminal says it (`name` made inert). */
export function describeImage(image: { name?: string | undefined; mediaType: ImageMediaType; bytes: number }): string {
  return `${image.name === undefined ? 'an image' : terminalLine(image.name)} (${imageFacts(image)})`;
}

/** What `POST /agent/run`'s `images` carries for `images`: their bytes and names, in order. */
export function imageInputs(images: readonly AttachedImage[]): ImageInput[] {
  return images.map((image) => ({ data: image.data, name: image.name }));
}
