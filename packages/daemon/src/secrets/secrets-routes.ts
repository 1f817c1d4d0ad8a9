/**
 * `POST /secrets/has|set|delete` (SEC-004 secrets discipline). Provider ids are a closed list: the
 * built-in BYOK providers plus the ids of defined custom endpoints. There is no get route: a key
 * goes in and is attached to provider requests by the sidecar, and never crosses back to a client.
 */
import {
  BYOK_PROVIDER_IDS,
  secretProviderRequestSchema,
  secretSetRequestSchema,
  type Logger,
  type SecretDeleteResponse,
  type SecretPresenceResponse,
} from '@bastion/protocol';
import type { RouteModule } from '../http/app.js';
import { readJson } from '../http/routes/route-support.js';
import type { EndpointStore } from '../endpoints/endpoint-store.js';
import { DaemonError } from '../errors.js';
import type { AuthStore } from './auth-store.js';
import { storageErrorOf } from '../storage/storage-error.js';
import { PrivateFileError } from './private-json-file.js';

const PROVIDER_REFUSAL = { code: 'SECRETS_BAD_REQUEST', message: 'expected { provider }' } as const;
const SET_REFUSAL = {
  code: 'SECRETS_BAD_REQUEST',
  message: 'expected { provider, key } with a printable key',
} as const;

export function secretsRoutes(options: { auth: AuthStore; endpoints: EndpointStore; log: Logger }): RouteModule {
  const { auth, endpoints, log } = options;
  const checkProvider = (provider: string): void => {
    if (!BYOK_PROVIDER_IDS.has(provider) && endpoints.get(provider) === undefined)
      throw new DaemonError('SECRETS_PROVIDER_UNKNOWN', 'no such provider');
  };

  return (app) => {
    app.post('/secrets/has', async (c) => {
      const body = await readJson(c, secretProviderRequestSchema, PROVIDER_REFUSAL);
      checkProvider(body.provider);
      const present = await secretsStoreCall(log, () => auth.has(body.provider));
      return c.json({ provider: body.provider, present } satisfies SecretPresenceResponse);
    });
    app.post('/secrets/set', async (c) => {
      const body = await readJson(c, secretSetRequestSchema, SET_REFUSAL);
      checkProvider(body.provider);
      await secretsStoreCall(log, () => auth.set(body.provider, { type: 'api', key: body.key }));
      log.info('secrets.set', { provider: body.provider });
      return c.json({ provider: body.provider, present: true } satisfies SecretPresenceResponse);
    });
    app.post('/secrets/delete', async (c) => {
      const body = await readJson(c, secretProviderRequestSchema, PROVIDER_REFUSAL);
      checkProvider(body.provider);
      const deleted = await secretsStoreCall(log, () => auth.delete(body.provider));
      log.info('secrets.deleted', { provider: body.provider, count: deleted ? 1 : 0 });
      return c.json({ provider: body.provider, present: false, deleted } satisfies SecretDeleteResponse);
    });
  };
}

/** Run a private-file store call; its failure becomes the coded error `secretsStoreError` names. */
export async function secretsStoreCall<T>(log: Logger, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw secretsStoreError(error, log);
  }
}

/** A store failure as a fixed, coded error (logged by its code); the path and the file's contents stay out of it. */
export function secretsStoreError(error: unknown, log: Logger): DaemonError {
  const storage = storageErrorOf(error) ?? storageErrorOf((error as { cause?: unknown } | undefined)?.cause);
  const code = storage?.code ?? (error instanceof PrivateFileError ? error.code : 'SECRETS_STORE_FAILED');
  log.error('secrets.store-failed', { code });
  if (storage) return storage;
  if (code === 'SECRETS_FILE_PERMISSIONS') {
    return new DaemonError(
      code,
      'a Bastion data file is readable by group or others; run `chmod 600` on it in the Bastion data folder',
    );
  }
  // Each other PrivateFileError's message names the file (auth.json, preferences.json, endpoints.json:
  // its name only, not its folder or contents) and what is wrong with it.
  if (error instanceof PrivateFileError) return new DaemonError(code, error.message);
  return new DaemonError(code, 'the secrets store could not be used');
}
