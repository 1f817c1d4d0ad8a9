import { describe, expect, it } from 'vitest';
import type { BastionApi } from '@bastion/bridge';
import type { MessagePart } from '@bastion/protocol';
import { SESSION_IMAGE_CACHE_MAX_ENTRIES } from '@bastion/protocol';
import { imagePartsOf, keepSessionImage, sessionImageUrl } from './session-images.js';

/** A bridge whose `image` counts its calls and fails for ids starting with "bad". */
function countingBridge() {
  const asked: string[] = [];
  const images: Pick<BastionApi['sessions'], 'image'> = {
    image: (sessionId, imageId) => {
      asked.push(`${sessionId}/${imageId}`);
      return imageId.startsWith('bad')
        ? Promise.reject(Object.assign(new Error('gone'), { code: 'IMAGE_NOT_FOUND' }))
        : Promise.resolve({ media_type: 'image/png', data: `B64${imageId}` });
    },
  };
  return { asked, images };
}

describe('sessionImageUrl', () => {
  it('asks the bridge once per image and answers a data: URL of its type', async () => {
    const { asked, images } = countingBridge();
    expect(await sessionImageUrl(images, 'ses_a', 'img_1')).toBe('data:image/png;base64,B64img_1');
    expect(await sessionImageUrl(images, 'ses_a', 'img_1')).toBe('data:image/png;base64,B64img_1');
    expect(asked).toEqual(['ses_a/img_1']);
  });

  it('keeps images of different sessions apart', async () => {
    const { asked, images } = countingBridge();
    await sessionImageUrl(images, 'ses_b', 'img_same');
    await sessionImageUrl(images, 'ses_c', 'img_same');
    expect(asked).toEqual(['ses_b/img_same', 'ses_c/img_same']);
  });

  it('does not keep a failure: the next render asks again', async () => {
    const { asked, images } = countingBridge();
    await expect(sessionImageUrl(images, 'ses_d', 'bad_1')).rejects.toThrow('gone');
    await expect(sessionImageUrl(images, 'ses_d', 'bad_1')).rejects.toThrow('gone');
    expect(asked).toEqual(['ses_d/bad_1', 'ses_d/bad_1']);
  });

  it('keeps only the most recently used images', async () => {
    const { asked, images } = countingBridge();
    await sessionImageUrl(images, 'ses_e', 'img_first');
    for (let index = 0; index < SESSION_IMAGE_CACHE_MAX_ENTRIES; index += 1) {
      await sessionImageUrl(images, 'ses_e', `img_${index}`);
    }
    await sessionImageUrl(images, 'ses_e', 'img_first');
    expect(asked.filter((ask) => ask === 'ses_e/img_first')).toHaveLength(2);
    // the newest is still kept
    const before = asked.length;
    await sessionImageUrl(images, 'ses_e', `img_${SESSION_IMAGE_CACHE_MAX_ENTRIES - 1}`);
    expect(asked).toHaveLength(before);
  });

  it('answers an image this page sent without asking the bridge', async () => {
    const { asked, images } = countingBridge();
    keepSessionImage('ses_f', 'img_sent', 'data:image/gif;base64,R0lG');
    expect(await sessionImageUrl(images, 'ses_f', 'img_sent')).toBe('data:image/gif;base64,R0lG');
    expect(asked).toEqual([]);
  });
});

describe('imagePartsOf', () => {
  it('keeps the image parts in their order and nothing else', () => {
    const parts: MessagePart[] = [
      { type: 'text', text: 'look' },
      { type: 'image', image_id: 'img_2', media_type: 'image/png', bytes: 68, name: 'a.png' },
      { type: 'image', image_id: 'img_1', media_type: 'image/jpeg', bytes: 1234 },
    ];
    expect(imagePartsOf(parts).map((part) => part.image_id)).toEqual(['img_2', 'img_1']);
    expect(imagePartsOf([{ type: 'text', text: 'no images' }])).toEqual([]);
  });
});
