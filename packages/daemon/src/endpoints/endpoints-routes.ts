/**
 * `POST /providers/endpoints/list|set|delete|probe`. Defining an endpoint never grants it: only the
 * host's confirmer creates a grant. `probe` lists the endpoint's models through the provider
 * transport, so it fails with ENDPOINT_NOT_GRANTED until the host has consented to the origin.
 */
import {
  CONTEXT_WINDOW_ERROR,
  endpointIdRequestSchema,
  endpointSchema,
  type EndpointDeleteResponse,
  type EndpointListResponse,
  type EndpointProbeResponse,
  type EndpointSetResponse,
  type Logger,
} from '@bastion/protocol';
import type { RouteModule } from '../http/app.js';
import { readJson, type BodyRefusal } from '../http/routes/route-support.js';
import type { AuthStore } from '../secrets/auth-store.js';
import { secretsStoreCall, secretsStoreError } from '../secrets/secrets-routes.js';
import type { ProviderTransport } from '../transport/transport-fetch.js';
import { listEndpointModels, type EndpointModels } from './endpoint-models.js';
import { EndpointError, type EndpointStore } from './endpoint-store.js';

const ID_REFUSAL = { code: 'ENDPOINT_BAD_REQUEST', message: 'expected { id }' } as const;
/** A bad `context_window` is named in words a user can act on; any other bad field gets the shape. */
const DEFINITION_REFUSAL: BodyRefusal = (issues) =>
  issues.some((issue) => issue.path[0] === 'context_window')
    ? { code: 'ENDPOINT_BAD_CONTEXT_WINDOW', message: CONTEXT_WINDOW_ERROR }
    : { code: 'ENDPOINT_BAD_REQUEST', message: 'expected { id, base_url, models?, context_window?, images? }' };

export function endpointsRoutes(options: {
  endpoints: EndpointStore;
  auth: AuthStore;
  transport: ProviderTransport;
  log: Logger;
}): RouteModule {
  const { endpoints, auth, transport, log } = options;
  return (app) => {
    app.post('/providers/endpoints/list', async (c) => {
      // A damaged endpoints.json is reported, not listed as "no endpoints".
      const problem = endpoints.loadProblem;
      if (problem) throw secretsStoreError(problem, log);
      const list = await Promise.all(
        endpoints.list().map(async (endpoint) => ({
          ...endpoint,
          granted: transport.grantFor(endpoint.base_url, 'provider') !== undefined,
          has_key: await auth.has(endpoint.id).catch(() => false),
        })),
      );
      return c.json({ endpoints: list } satisfies EndpointListResponse);
    });

    app.post('/providers/endpoints/set', async (c) => {
      const body = await readJson(c, endpointSchema, DEFINITION_REFUSAL);
      const endpoint = await endpoints.set(body).catch((error: unknown) => {
        throw error instanceof EndpointError ? error : secretsStoreError(error, log);
      });
      log.info('endpoints.set', { provider: endpoint.id });
      const granted = transport.grantFor(endpoint.base_url, 'provider') !== undefined;
      return c.json({ endpoint, granted } satisfies EndpointSetResponse);
    });

    app.post('/providers/endpoints/delete', async (c) => {
      const body = await readJson(c, endpointIdRequestSchema, ID_REFUSAL);
      const deleted = await secretsStoreCall(log, async () => {
        const removed = await endpoints.delete(body.id);
        // A key stored for an endpoint that no longer exists would be unreachable but still on disk.
        await auth.delete(body.id);
        return removed;
      });
      log.info('endpoints.deleted', { provider: body.id, count: deleted ? 1 : 0 });
      return c.json({ id: body.id, deleted } satisfies EndpointDeleteResponse);
    });

    app.post('/providers/endpoints/probe', async (c) => {
      const body = await readJson(c, endpointIdRequestSchema, ID_REFUSAL);
      const endpoint = endpoints.get(body.id);
      if (!endpoint) throw new EndpointError('ENDPOINT_UNKNOWN', 'no such endpoint');
      const listed = await listEndpointModels(endpoint, { auth, transport, log });
      if (!listed.ok) throw new EndpointError(listed.code, PROBE_FAILURES[listed.code]);
      return c.json({ id: endpoint.id, models: listed.models } satisfies EndpointProbeResponse);
    });
  };
}

const PROBE_FAILURES: Record<Exclude<EndpointModels, { ok: true }>['code'], string> = {
  ENDPOINT_NOT_GRANTED: 'the host has not granted this endpoint; start Bastion with --allow-endpoint',
  ENDPOINT_KEY_UNREADABLE: 'the stored key could not be read',
  ENDPOINT_PROBE_STATUS: 'the endpoint answered the model listing with an error status',
  ENDPOINT_PROBE_FORMAT: 'the endpoint did not answer in the OpenAI models format',
  ENDPOINT_UNREACHABLE: 'the endpoint could not be reached through the provider transport',
};
