/**
 * The images of `POST /agent/run`, decoded and checked before a run starts: each within
 * IMAGE_MAX_BYTES, standard base64, and by its first bytes a format every provider takes. A
 * refusal names the image (its place and name) and why, and nothing is stored.
 */
import {
  IMAGE_MAX_BASE64_CHARS,
  IMAGE_MAX_BYTES,
  IMAGE_MEDIA_TYPES,
  imageFormatName,
  sniffImageType,
  type ImageInput,
} from '@bastion/protocol';
import { DaemonError } from '../errors.js';
import { newId } from '../storage/ids.js';
import type { PromptImage } from '../storage/transcript.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const MiB = 1024 * 1024;

function describe(input: ImageInput, index: number): string {
  return input.name === undefined ? `image ${index + 1}` : `image ${index + 1} (${JSON.stringify(input.name)})`;
}

export function decodePromptImages(inputs: readonly ImageInput[]): PromptImage[] {
  return inputs.map((input, index) => {
    const tooLarge = () =>
      new DaemonError(
        'IMAGE_TOO_LARGE',
        `${describe(input, index)} is over the limit of ${(IMAGE_MAX_BYTES / MiB).toFixed(2)} MiB an image; make it smaller (a screenshot of a part of the screen, or a JPEG)`,
      );
    if (input.data.length > IMAGE_MAX_BASE64_CHARS) throw tooLarge();
    if (input.data.length % 4 !== 0 || !BASE64.test(input.data)) {
      throw new DaemonError('IMAGE_INVALID', `${describe(input, index)} is not standard base64`);
    }
    const data = Buffer.from(input.data, 'base64');
    if (data.byteLength > IMAGE_MAX_BYTES) throw tooLarge();
    const mediaType = sniffImageType(data);
    if (mediaType === undefined) {
      throw new DaemonError(
        'IMAGE_TYPE_UNSUPPORTED',
        `${describe(input, index)} is not a ${IMAGE_MEDIA_TYPES.map(imageFormatName).join(', ')} image`,
      );
    }
    return { id: newId('img'), mediaType, data, ...(input.name === undefined ? {} : { name: input.name }) };
  });
}
