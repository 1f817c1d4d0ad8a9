/**
 * Images attached to a message in the page, before it is sent: each file is checked here the way
 * the daemon checks it (its format by its first bytes, never by its name or declared type; its
 * size; how many one message carries), so a file that would be refused is refused at once, in
 * words, and never sent. The daemon checks again: this is for the reader, not the boundary.
 */
import {
  AGENT_MAX_IMAGES,
  IMAGE_MAX_BYTES,
  fitImageName,
  imageFormatName,
  sniffImageType,
  type ImageInput,
  type ImageMediaType,
} from '@bastion/protocol';

/** An image in the message box (or a queued message), read and checked. */
export interface Attachment {
  /** Unique in the page, for React's keys and the remove buttons. */
  id: string;
  /** The file's name ("image.png" for a pasted screenshot). */
  name: string;
  mediaType: ImageMediaType;
  /** Decoded size. */
  bytes: number;
  /** `data:<mediaType>;base64,<data>`, for the thumbnail and, without its prefix, for sending. */
  dataUrl: string;
}

/** Bytes of a file's start that tell its format (WebP's tag sits at 8–11). */
export const IMAGE_SNIFF_BYTES = 12;
/** The image input's `accept`: what the file chooser offers (a file is still checked by its bytes). */
export const IMAGE_ACCEPT = 'image/png,image/jpeg,image/gif,image/webp';

/** "68 bytes", "12.3 KB", "3.8 MB" (1 KB = 1024 bytes). */
export function formatByteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const kib = bytes / 1024;
  if (kib < 1024) return `${kib < 10 ? kib.toFixed(1) : Math.round(kib)} KB`;
  const mib = kib / 1024;
  return `${mib.toFixed(mib < 10 ? 2 : 1).replace(/\.?0+$/, '')} MB`;
}

/** What a reader is told about a thumbnail: its name, or its format. */
export function imageAltText(name: string | undefined, mediaType: ImageMediaType): string {
  return name !== undefined && name !== '' ? name : `Attached image (${imageFormatName(mediaType)})`;
}

/** Why a file cannot be attached, in words that name it; undefined when it can. */
export type FileCheck = { ok: true; mediaType: ImageMediaType } | { ok: false; message: string };

/**
 * Checks a file by its size and its first bytes (`head`, at least IMAGE_SNIFF_BYTES when the file
 * has that many): a PNG, JPEG, GIF or WebP of at most IMAGE_MAX_BYTES.
 */
export function checkImageFile(name: string, size: number, head: Uint8Array): FileCheck {
  const mediaType = sniffImageType(head);
  if (mediaType === undefined) {
    return {
      ok: false,
      message: `${displayName(name)} is not an image Bastion can send: only PNG, JPEG, GIF and WebP images can go with a message.`,
    };
  }
  if (size > IMAGE_MAX_BYTES) {
    return {
      ok: false,
      message: `${displayName(name)} is ${formatByteSize(size)}; an image can be at most ${formatByteSize(IMAGE_MAX_BYTES)}.`,
    };
  }
  return { ok: true, mediaType };
}

/** Said when a file would be one image more than a message carries. */
export function tooManyImagesMessage(name: string): string {
  return `A message can carry at most ${AGENT_MAX_IMAGES} images: ${displayName(name)} was not attached.`;
}

/** Said when a file is pasted or dropped for a model that takes no images. */
export function imagesNotTakenMessage(count: number): string {
  return `This model does not take images: ${count === 1 ? 'the image was' : `the ${count} images were`} not attached.`;
}

/** The title of Attach image for a model that takes none, and the words a refused paste starts with. */
export const MODEL_TAKES_NO_IMAGES = 'This model does not take images';

/**
 * Why the attached images cannot be sent as they are (more than a message carries, after a queued
 * message came back; a model that takes none, after a switch); undefined when they can.
 */
export function attachedImagesProblem(count: number, modelTakesImages: boolean): string | undefined {
  if (count === 0) return undefined;
  if (!modelTakesImages) return `${MODEL_TAKES_NO_IMAGES}: remove the attached ${plural(count, 'image')} to send.`;
  if (count > AGENT_MAX_IMAGES) {
    return `A message can carry at most ${AGENT_MAX_IMAGES} images: remove ${count - AGENT_MAX_IMAGES} of the ${count} attached.`;
  }
  return undefined;
}

/** The daemon's refusals of a message's images: said under the message box, where the images are. */
const IMAGE_REFUSAL_CODES: ReadonlySet<string> = new Set([
  'IMAGES_NOT_SUPPORTED',
  'IMAGE_TOO_LARGE',
  'IMAGE_TYPE_UNSUPPORTED',
  'IMAGE_INVALID',
]);

export function isImageRefusal(code: string | undefined): boolean {
  return code !== undefined && IMAGE_REFUSAL_CODES.has(code);
}

/** "1 image", "3 images". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The image as `POST /agent/run` takes it: standard base64 without the data URL's prefix, and its name. */
export function imageInputOf(attachment: Attachment): ImageInput {
  const data = attachment.dataUrl.slice(attachment.dataUrl.indexOf(',') + 1);
  const name = fitImageName(attachment.name);
  return name === '' ? { data } : { data, name };
}

/** A name for a message, however long or empty the file's is. */
function displayName(name: string): string {
  if (name === '') return 'The file';
  return name.length > 60 ? `“${name.slice(0, 57)}…”` : `“${name}”`;
}

let nextId = 0;

/**
 * Reads `file` as an attachment once it passes checkImageFile, or says why it does not. Only its
 * first bytes are read before the checks, so a large file of another kind is never read whole;
 * the rest is read once by the browser as a data URL (no string built a byte at a time).
 */
export async function readImageFile(
  file: File,
): Promise<{ ok: true; attachment: Attachment } | { ok: false; message: string }> {
  let head: Uint8Array;
  try {
    head = new Uint8Array(await file.slice(0, IMAGE_SNIFF_BYTES).arrayBuffer());
  } catch {
    return { ok: false, message: `${displayName(file.name)} could not be read.` };
  }
  const check = checkImageFile(file.name, file.size, head);
  if (!check.ok) return check;
  let dataUrl: string;
  try {
    dataUrl = await readAsDataUrl(file);
  } catch {
    return { ok: false, message: `${displayName(file.name)} could not be read.` };
  }
  // The browser's prefix names the file's declared type; the sniffed one is what it is.
  const data = dataUrl.slice(dataUrl.indexOf(',') + 1);
  nextId += 1;
  return {
    ok: true,
    attachment: {
      id: `attachment-${nextId}`,
      name: file.name,
      mediaType: check.mediaType,
      bytes: file.size,
      dataUrl: `data:${check.mediaType};base64,${data}`,
    },
  };
}

function readAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => (typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('not read')));
    reader.onerror = () => reject(reader.error ?? new Error('not read'));
    reader.readAsDataURL(file);
  });
}
