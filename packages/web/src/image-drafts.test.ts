import { beforeEach, describe, expect, it } from 'vitest';
import { readDraft, saveDraft } from './drafts.js';
import type { Attachment } from './image-attachment.js';
import {
  forgetDraftImages,
  readDraftImages,
  readImageRefusal,
  recoverQueuedMessage,
  saveDraftImages,
} from './image-drafts.js';

/** The tab's sessionStorage, as drafts.ts reads it. */
const stored = new Map<string, string>();
Object.assign(globalThis, {
  window: {
    sessionStorage: {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => void stored.set(key, value),
      removeItem: (key: string) => void stored.delete(key),
    },
  },
});

const image = (id: string): Attachment => ({
  id,
  name: `${id}.png`,
  mediaType: 'image/png',
  bytes: 68,
  dataUrl: 'data:image/png;base64,iVBORw==',
});

beforeEach(() => stored.clear());

describe('draft images', () => {
  it('keeps each session’s box and queued images apart, in memory only', () => {
    saveDraftImages('ses_a', [image('a1')]);
    saveDraftImages('ses_a', [image('q1'), image('q2')], 'queued');
    saveDraftImages('ses_b', [image('b1')]);
    expect(readDraftImages('ses_a').map((kept) => kept.id)).toEqual(['a1']);
    expect(readDraftImages('ses_a', 'queued').map((kept) => kept.id)).toEqual(['q1', 'q2']);
    expect(readDraftImages('ses_b').map((kept) => kept.id)).toEqual(['b1']);
    // Only the count of the queued ones is in storage, never their bytes.
    expect([...stored.entries()]).toEqual([['bastion.queued-images.ses_a', '2']]);
    forgetDraftImages('ses_a');
    expect(readDraftImages('ses_a')).toEqual([]);
    expect(readDraftImages('ses_a', 'queued')).toEqual([]);
    expect(stored.size).toBe(0);
  });
});

describe('recoverQueuedMessage', () => {
  it('puts a message queued with images a reload dropped back in the box, before its text, and says why', () => {
    saveDraft('ses_c', 'Look at this', 'queued');
    saveDraft('ses_c', '2', 'queued-images');
    saveDraft('ses_c', 'and then this');
    recoverQueuedMessage('ses_c');
    expect(readDraft('ses_c')).toBe('Look at this\n\nand then this');
    expect(readDraft('ses_c', 'queued')).toBe('');
    expect(readDraft('ses_c', 'queued-images')).toBe('');
    expect(readImageRefusal('ses_c')).toBe(
      'This message was queued with 2 images, which a reload does not keep: attach them again, then send.',
    );
  });

  it('leaves a queued message alone when its images are still in memory, or it had none', () => {
    saveDraft('ses_d', 'With images', 'queued');
    saveDraftImages('ses_d', [image('d1')], 'queued');
    recoverQueuedMessage('ses_d');
    expect(readDraft('ses_d', 'queued')).toBe('With images');
    expect(readDraft('ses_d')).toBe('');

    saveDraft('ses_e', 'Text only', 'queued');
    recoverQueuedMessage('ses_e');
    expect(readDraft('ses_e', 'queued')).toBe('Text only');
    expect(readImageRefusal('ses_e')).toBeUndefined();
  });
});
