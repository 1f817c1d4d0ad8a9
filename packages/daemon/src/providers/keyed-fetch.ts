/**
 * Attaches a provider's stored credential to each request at the moment it is sent, then hands it
 * to the host-routed transport. The key is read from auth.json per request, so setting or deleting
 * a key takes effect at once and no provider object holds it; it never appears in a URL.
 */
import { DaemonError } from '../errors.js';
import type { ProviderFetch } from './provider-registry.js';

/** What the AI SDK providers are constructed with instead of a key: the real one is attached per request. */
export const KEY_ATTACHED_PER_REQUEST = 'attached-per-request';

export type KeyHeader = 'bearer' | 'x-api-key';

export function keyedFetch(options: {
  fetch: ProviderFetch;
  key: () => Promise<string | undefined>;
  header: KeyHeader;
  /** Custom endpoints often need no key; built-in providers always do. */
  required: boolean;
}): ProviderFetch {
  return async (input, init) => {
    const key = await options.key();
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    headers.delete('x-api-key');
    if (key === undefined) {
      if (options.required) {
        throw new DaemonError(
          'PROVIDER_KEY_MISSING',
          'no API key is stored for this provider; set one with `bastion secrets set`',
        );
      }
    } else if (options.header === 'bearer') {
      headers.set('authorization', `Bearer ${key}`);
    } else {
      headers.set('x-api-key', key);
    }
    return options.fetch(input, { ...init, headers });
  };
}
