/**
 * `POST /providers/endpoints/list|set|delete|probe`. Defining an endpoint never grants it: only the
 * host's confirmer creates a grant. `probe` lists the endpoint's models through the provider
 * transport, so it fails with ENDPOINT_NOT_GRANTED until the host has consented to the origin.
 */
import { z } from 'zod';
import { ENDPOINTS_MAX_MODELS, ENDPOINTS_MAX_PROBE_BYTES, MODEL_ID_MAX_CHARS, type Logger } from '@bastion/protocol';
import type { RouteModule } from '../http/app.js';
import { readJsonBody } from '../http/json-body.js';
import { wireError } from '../http/wire-error.js';
import type { AuthStore } from '../secrets/auth-store.js';
import { secretsFailure } from '../secrets/secrets-routes.js';
import type { ProviderTransport } from '../transport/transport-fetch.js';
import { EndpointError, endpointIdSchema, endpointSchema, type EndpointStore } from './endpoint-store.js';

const idBody = z.strictObject({ id: endpointIdSchema });
const probeAnswer = z.object({
  data: z.array(z.object({ id: z.string().min(1).max(MODEL_ID_MAX_CHARS) })).max(4 * ENDPOINTS_MAX_MODELS),
});

export function endpointsRoutes(options: {
  endpoints: EndpointStore;
  auth: AuthStore;
  transport: ProviderTransport;
  log: Logger;
}): RouteModule {
  const { endpoints, auth, transport, log } = options;
  return (app) => {
    app.post('/providers/endpoints/list', async (c) => {
      const list = await Promise.all(
        endpoints.list().map(async (endpoint) => ({
          ...endpoint,
          granted: transport.grantFor(endpoint.base_url, 'provider') !== undefined,
          has_key: await auth.has(endpoint.id).catch(() => false),
        })),
      );
      return c.json({ endpoints: list });
    });

    app.post('/providers/endpoints/set', async (c) => {
      const body = await readJsonBody(c, endpointSchema);
      if (!body) return wireError(c, 400, 'ENDPOINT_BAD_REQUEST', 'expected { id, base_url, models? }');
      try {
        const endpoint = await endpoints.set(body);
        log.info('endpoints.set', { provider: endpoint.id });
        return c.json({ endpoint, granted: transport.grantFor(endpoint.base_url, 'provider') !== undefined });
      } catch (error) {
        if (error instanceof EndpointError) return wireError(c, 400, error.code, error.message);
        return secretsFailure(c, error, log);
      }
    });

    app.post('/providers/endpoints/delete', async (c) => {
      const body = await readJsonBody(c, idBody);
      if (!body) return wireError(c, 400, 'ENDPOINT_BAD_REQUEST', 'expected { id }');
      try {
        const deleted = await endpoints.delete(body.id);
        // A key stored for an endpoint that no longer exists would be unreachable but still on disk.
        await auth.delete(body.id);
        log.info('endpoints.deleted', { provider: body.id, count: deleted ? 1 : 0 });
        return c.json({ id: body.id, deleted });
      } catch (error) {
        return secretsFailure(c, error, log);
      }
    });

    app.post('/providers/endpoints/probe', async (c) => {
      const body = await readJsonBody(c, idBody);
      if (!body) return wireError(c, 400, 'ENDPOINT_BAD_REQUEST', 'expected { id }');
      const endpoint = endpoints.get(body.id);
      if (!endpoint) return wireError(c, 404, 'ENDPOINT_UNKNOWN', 'no such endpoint');
      const url = `${endpoint.base_url}/models`;
      if (!transport.grantFor(url, 'provider')) {
        return wireError(
          c,
          403,
          'ENDPOINT_NOT_GRANTED',
          'the host has not granted this endpoint; start Bastion with --allow-endpoint',
        );
      }
      let key: string | undefined;
      try {
        key = await auth.apiKey(endpoint.id);
      } catch (error) {
        return secretsFailure(c, error, log);
      }
      try {
        const response = await transport.fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
        if (!response.ok) {
          await response.body?.cancel();
          log.warn('endpoints.probe-failed', { provider: endpoint.id, status: response.status });
          return wireError(
            c,
            502,
            'ENDPOINT_PROBE_STATUS',
            'the endpoint answered the model listing with an error status',
          );
        }
        const text = await readBounded(response, ENDPOINTS_MAX_PROBE_BYTES);
        const parsed = text === undefined ? undefined : probeAnswer.safeParse(safeJson(text));
        if (!parsed?.success)
          return wireError(c, 502, 'ENDPOINT_PROBE_FORMAT', 'the endpoint did not answer in the OpenAI models format');
        const models = parsed.data.data.map((model) => model.id).slice(0, ENDPOINTS_MAX_MODELS);
        log.info('endpoints.probed', { provider: endpoint.id, count: models.length });
        return c.json({ id: endpoint.id, models });
      } catch (error) {
        const code = (error as { cause?: { code?: unknown } }).cause?.code;
        log.warn('endpoints.probe-failed', {
          provider: endpoint.id,
          code: typeof code === 'string' ? code : 'UNKNOWN',
        });
        return wireError(
          c,
          502,
          'ENDPOINT_UNREACHABLE',
          'the endpoint could not be reached through the provider transport',
        );
      }
    });
  };
}

/** The body as text, or undefined when it is larger than `limit` bytes (reading stops there). */
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
