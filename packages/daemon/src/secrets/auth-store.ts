/**
 * SEC-004 secrets discipline: `<userData>/auth.json`, the sidecar's credential store. Entries are
 * typed by provider id: `{ type: 'api', key }` for BYOK keys and `{ type: 'oauth', … }` for the
 * ChatGPT subscription credential (SEC-008). Every change goes through one serialized writer that
 * re-reads the file and applies a compare-and-swap style update, so a refresh that lost a race
 * (sign-out, account change) never overwrites the newer state. Keys leave this module only to be
 * attached to a provider request; no route reads them back.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { providerIdSchema, SECRETS_MAX_KEY_CHARS } from '@bastion/protocol';
import { readPrivateJson, removeStaleTemps, SerialWriter, writePrivateJson } from './private-json-file.js';

const secretText = z.string().min(1).max(SECRETS_MAX_KEY_CHARS);

export const apiKeyEntrySchema = z.strictObject({ type: z.literal('api'), key: secretText });
export const oauthEntrySchema = z.strictObject({
  type: z.literal('oauth'),
  access: secretText,
  refresh: secretText,
  /** Access-token expiry, epoch milliseconds. */
  expires: z.number().int().nonnegative(),
  account_id: z.string().min(1).max(256),
  email: z.string().max(320).optional(),
  plan: z.string().max(64).optional(),
});
export const authEntrySchema = z.discriminatedUnion('type', [apiKeyEntrySchema, oauthEntrySchema]);
export type AuthEntry = z.infer<typeof authEntrySchema>;

const authFileSchema = z.strictObject({
  version: z.literal(1),
  entries: z.record(providerIdSchema, authEntrySchema),
});
type AuthFile = z.infer<typeof authFileSchema>;

/** What an update function returns to leave the entry as it is. */
export const KEEP = Symbol('keep');

/**
 * The entry stored under `provider`: the file's own key only, so an endpoint named like an
 * object's property (`constructor`, `toString`) is not taken for one with a key.
 */
function entryOf(file: AuthFile, provider: string): AuthEntry | undefined {
  return Object.hasOwn(file.entries, provider) ? file.entries[provider] : undefined;
}

export class AuthStore {
  readonly path: string;
  readonly #writer = new SerialWriter();
  #swept = false;

  constructor(userData: string) {
    this.path = join(userData, 'auth.json');
  }

  async #read(): Promise<AuthFile> {
    return (await readPrivateJson(this.path, authFileSchema)) ?? { version: 1, entries: {} };
  }

  async get(provider: string): Promise<AuthEntry | undefined> {
    return entryOf(await this.#read(), provider);
  }

  /**
   * Every secret value held, named by its entry (`openai`, `chatgpt-refresh`): for redacting tool
   * results, which must never show or store a credential Bastion holds. A file that cannot be read
   * holds nothing the daemon could have used either.
   */
  async heldSecrets(): Promise<{ kind: string; value: string }[]> {
    const file = await this.#read().catch(() => undefined);
    return Object.entries(file?.entries ?? {}).flatMap(([id, entry]) =>
      entry.type === 'api'
        ? [{ kind: id, value: entry.key }]
        : [
            { kind: `${id}-access`, value: entry.access },
            { kind: `${id}-refresh`, value: entry.refresh },
          ],
    );
  }

  async has(provider: string): Promise<boolean> {
    return (await this.get(provider)) !== undefined;
  }

  /** The API key to attach to a request for this provider, if one is stored. */
  async apiKey(provider: string): Promise<string | undefined> {
    const entry = await this.get(provider);
    return entry?.type === 'api' ? entry.key : undefined;
  }

  /**
   * Serialized read-modify-write of one entry: `change` sees the entry as it is on disk now and
   * returns the new entry, `undefined` to delete it, or KEEP to write nothing. Resolves with the
   * entry that is stored afterwards.
   */
  update(
    provider: string,
    change: (current: AuthEntry | undefined) => AuthEntry | undefined | typeof KEEP,
  ): Promise<AuthEntry | undefined> {
    return this.#writer.run(async () => {
      if (!this.#swept) {
        await removeStaleTemps(this.path);
        this.#swept = true;
      }
      const file = await this.#read();
      const current = entryOf(file, provider);
      const next = change(current);
      if (next === KEEP) return current;
      const entries = { ...file.entries };
      if (next === undefined) delete entries[provider];
      else entries[provider] = authEntrySchema.parse(next);
      await writePrivateJson(this.path, { version: 1, entries } satisfies AuthFile);
      return next;
    });
  }

  async set(provider: string, entry: AuthEntry): Promise<void> {
    await this.update(provider, () => entry);
  }

  /** Resolves true when an entry existed and was removed. */
  async delete(provider: string): Promise<boolean> {
    let existed = false;
    await this.update(provider, (current) => {
      existed = current !== undefined;
      return current === undefined ? KEEP : undefined;
    });
    return existed;
  }

  /** Replace the entry only if it is still exactly `expected` (undefined: only if absent). */
  async compareAndSwap(
    provider: string,
    expected: AuthEntry | undefined,
    next: AuthEntry | undefined,
  ): Promise<boolean> {
    let swapped = false;
    await this.update(provider, (current) => {
      if (!sameEntry(current, expected)) return KEEP;
      swapped = true;
      return next;
    });
    return swapped;
  }
}

function sameEntry(a: AuthEntry | undefined, b: AuthEntry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key]);
}
