/**
 * `POST /providers/endpoints/list|set|delete|probe`. Defining an endpoint never grants it: only the
 * host's confirmer creates a grant. `probe` lists the endpoint's models through the provider
 * transport, so it fails with ENDPOINT_NOT_GRANTED until the host has consented to the origin.
 */
import { z } from 'zod';
import type { Logger } from '@bastion/protocol';
import type { RouteModule } from '../http/app.js';
import { readJsonBody } from '../http/json-body.js';
import { wireError } from '../http/wire-error.js';
import type { AuthStore } from '../secrets/auth-store.js';
import { secretsFailure } from '../secrets/secrets-routes.js';
import type { ProviderTransport } from '../transport/transport-fetch.js';
import { listEndpointModels, type EndpointModels } from './endpoint-models.js';
import { CONTEXT_WINDOW_ERROR, endpointIdSchema, endpointSchema } from '@bastion/protocol';
import { EndpointError, type EndpointStore } from './endpoint-store.js';

const idBody = z.strictObject({ id: endpointIdSchema });

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
      if (problem) return secretsFailure(c, problem, log);
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
      const raw: unknown = await c.req.json().catch(() => undefined);
      const checked = endpointSchema.safeParse(raw);
      if (!checked.success) {
        if (checked.error.issues.some((issue) => issue.path[0] === 'context_window'))
          return wireError(c, 400, 'ENDPOINT_BAD_CONTEXT_WINDOW', CONTEXT_WINDOW_ERROR);
        return wireError(c, 400, 'ENDPOINT_BAD_REQUEST', 'expected { id, base_url, models?, context_window? }');
      }
      const body = checked.data;
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
      const listed = await listEndpointModels(endpoint, { auth, transport, log });
      if (listed.ok) return c.json({ id: endpoint.id, models: listed.models });
      const [status, message] = PROBE_FAILURES[listed.code];
      return wireError(c, status, listed.code, message);
    });
  };
}

const PROBE_FAILURES: Record<Exclude<EndpointModels, { ok: true }>['code'], [403 | 500 | 502, string]> = {
  ENDPOINT_NOT_GRANTED: [403, 'the host has not granted this endpoint; start Bastion with --allow-endpoint'],
  ENDPOINT_KEY_UNREADABLE: [500, 'the stored key could not be read'],
  ENDPOINT_PROBE_STATUS: [502, 'the endpoint answered the model listing with an error status'],
  ENDPOINT_PROBE_FORMAT: [502, 'the endpoint did not answer in the OpenAI models format'],
  ENDPOINT_UNREACHABLE: [502, 'the endpoint could not be reached through the provider transport'],
};
