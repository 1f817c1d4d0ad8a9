/**
 * The images a session's messages carry, fetched through the bridge when a row showing one
 * renders and kept as `data:` URLs (the page's CSP allows `img-src data:`), so scrolling back
 * to a row or opening the larger view does not ask again. The most recently used
 * SESSION_IMAGE_CACHE_MAX_ENTRIES are kept: an image may be a few MiB of base64.
 */
import type { BastionApi } from '@bastion/bridge';
import { SESSION_IMAGE_CACHE_MAX_ENTRIES, type MessagePart } from '@bastion/protocol';

/** An image part of a stored message. */
export type ImagePart = Extract<MessagePart, { type: 'image' }>;

const cache = new Map<string, Promise<string>>();
const keyOf = (sessionId: string, imageId: string) => `${sessionId}\0${imageId}`;

function keep(key: string, url: Promise<string>): void {
  cache.delete(key);
  cache.set(key, url);
  while (cache.size > SESSION_IMAGE_CACHE_MAX_ENTRIES) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

/** The image as a `data:` URL: from the cache, else asked for once (a failure is not kept, so a later render asks again). */
export function sessionImageUrl(
  images: Pick<BastionApi['sessions'], 'image'>,
  sessionId: string,
  imageId: string,
): Promise<string> {
  const key = keyOf(sessionId, imageId);
  const cached = cache.get(key);
  if (cached) {
    keep(key, cached);
    return cached;
  }
  const url = images.image(sessionId, imageId).then(({ media_type, data }) => `data:${media_type};base64,${data}`);
  keep(key, url);
  url.catch(() => {
    if (cache.get(key) === url) cache.delete(key);
  });
  return url;
}

/** An image this page just sent, so its row shows it without asking the daemon for it. */
export function keepSessionImage(sessionId: string, imageId: string, dataUrl: string): void {
  keep(keyOf(sessionId, imageId), Promise.resolve(dataUrl));
}

/** The images a message carries, in the order they were attached. */
export function imagePartsOf(parts: readonly MessagePart[]): ImagePart[] {
  return parts.filter((part): part is ImagePart => part.type === 'image');
}
