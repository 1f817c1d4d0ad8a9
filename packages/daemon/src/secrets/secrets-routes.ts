/**
 * `POST /secrets/has|set|delete` (SEC-004 secrets discipline). Provider ids are a closed list: the
 * built-in BYOK providers plus the ids of defined custom endpoints. There is no get route: a key
 * goes in and is attached to provider requests by the sidecar, and never crosses back to a client.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { providerIdSchema, SECRETS_MAX_KEY_CHARS, type Logger } from '@bastion/protocol';
import type { RouteModule } from '../http/app.js';
import { readJsonBody } from '../http/json-body.js';
import { wireError } from '../http/wire-error.js';
import type { EndpointStore } from '../endpoints/endpoint-store.js';
import type { AuthStore } from './auth-store.js';
import { storageErrorOf } from '../storage/storage-error.js';
import { PrivateFileError } from './private-json-file.js';

/** Built-in providers that take an API key. */
export const BYOK_PROVIDER_IDS: ReadonlySet<string> = new Set(['openai', 'anthropic', 'openrouter']);

const providerBody = z.strictObject({ provider: providerIdSchema });
const setBody = z.strictObject({
  provider: providerIdSchema,
  // Printable ASCII without spaces: every provider's key format, and nothing a header could split on.
  key: z
    .string()
    .min(1)
    .max(SECRETS_MAX_KEY_CHARS)
    .regex(/^[\x21-\x7e]+$/),
});

export function secretsRoutes(options: { auth: AuthStore; endpoints: EndpointStore; log: Logger }): RouteModule {
  const { auth, endpoints, log } = options;
  const allowed = (provider: string) => BYOK_PROVIDER_IDS.has(provider) || endpoints.get(provider) !== undefined;

  return (app) => {
    app.post('/secrets/has', async (c) => {
      const body = await readJsonBody(c, providerBody);
      if (!body) return wireError(c, 400, 'SECRETS_BAD_REQUEST', 'expected { provider }');
      if (!allowed(body.provider)) return wireError(c, 404, 'SECRETS_PROVIDER_UNKNOWN', 'no such provider');
      try {
        return c.json({ provider: body.provider, present: await auth.has(body.provider) });
      } catch (error) {
        return secretsFailure(c, error, log);
      }
    });
    app.post('/secrets/set', async (c) => {
      const body = await readJsonBody(c, setBody);
      if (!body) return wireError(c, 400, 'SECRETS_BAD_REQUEST', 'expected { provider, key } with a printable key');
      if (!allowed(body.provider)) return wireError(c, 404, 'SECRETS_PROVIDER_UNKNOWN', 'no such provider');
      try {
        await auth.set(body.provider, { type: 'api', key: body.key });
        log.info('secrets.set', { provider: body.provider });
        return c.json({ provider: body.provider, present: true });
      } catch (error) {
        return secretsFailure(c, error, log);
      }
    });
    app.post('/secrets/delete', async (c) => {
      const body = await readJsonBody(c, providerBody);
      if (!body) return wireError(c, 400, 'SECRETS_BAD_REQUEST', 'expected { provider }');
      if (!allowed(body.provider)) return wireError(c, 404, 'SECRETS_PROVIDER_UNKNOWN', 'no such provider');
      try {
        const deleted = await auth.delete(body.provider);
        log.info('secrets.deleted', { provider: body.provider, count: deleted ? 1 : 0 });
        return c.json({ provider: body.provider, present: false, deleted });
      } catch (error) {
        return secretsFailure(c, error, log);
      }
    });
  };
}

/** Map a store failure to a fixed wire error; the path and the file's contents stay out of it. */
export function secretsFailure(c: Context, error: unknown, log: Logger): Response {
  const storage = storageErrorOf(error) ?? storageErrorOf((error as { cause?: unknown } | undefined)?.cause);
  const code = storage?.code ?? (error instanceof PrivateFileError ? error.code : 'SECRETS_STORE_FAILED');
  log.error('secrets.store-failed', { code });
  if (storage) return wireError(c, 507, storage.code, storage.message);
  // Its message names the file (not its folder or contents) and what to do about it.
  if (code === 'SECRETS_FILE_CORRUPT') return wireError(c, 409, code, (error as Error).message);
  if (code === 'SECRETS_FILE_PERMISSIONS') {
    return wireError(
      c,
      409,
      code,
      'a Bastion data file is readable by group or others; run `chmod 600` on it in the Bastion data folder',
    );
  }
  return wireError(c, 500, code, 'the secrets store could not be used');
}
