/**
 * `GET /models`: what the model picker offers — the demo model, each key provider whose key is
 * stored (checked through the auth store, never returned) with its catalog models, the ChatGPT
 * subscription when connected, and each custom endpoint with the models its `/models` lists
 * (fetched through the host-routed transport; an endpoint not approved in this run is listed as
 * unavailable with its stored models). `POST /models/default` sets the model new sessions use.
 */
import { modelRefSchema, type Logger, type ModelGroup, type ModelListResponse } from '@bastion/protocol';
import { listEndpointModels } from '../endpoints/endpoint-models.js';
import type { EndpointStore } from '../endpoints/endpoint-store.js';
import type { RouteModule } from '../http/app.js';
import { readJson } from '../http/routes/route-support.js';
import { DaemonError } from '../errors.js';
import type { ChatgptCredentials } from '../oauth/chatgpt-credentials.js';
import type { AuthStore } from '../secrets/auth-store.js';
import { secretsStoreCall } from '../secrets/secrets-routes.js';
import type { ProviderTransport } from '../transport/transport-fetch.js';
import { MODEL_CATALOG, takesImages, takesReasoning } from './model-catalog.js';
import type { ModelPreferences } from './model-preferences.js';
import type { ProviderRegistry } from './provider-registry.js';

const KEY_PROVIDERS = [
  { id: 'openai', label: 'OpenAI' },
  { id: 'anthropic', label: 'Anthropic' },
  { id: 'openrouter', label: 'OpenRouter' },
] as const;

function catalogModels(provider: string): ModelGroup['models'] {
  return (MODEL_CATALOG[provider] ?? []).map((info) => ({
    id: info.id,
    label: info.label,
    context_window: info.contextWindow,
    ...(takesReasoning(provider, info.id) ? { reasoning: true as const } : {}),
    ...(takesImages(provider, info.id) ? { images: true as const } : {}),
  }));
}

export function modelsRoutes(options: {
  auth: AuthStore;
  endpoints: EndpointStore;
  transport: ProviderTransport;
  chatgpt: ChatgptCredentials | undefined;
  preferences: ModelPreferences;
  registry: ProviderRegistry;
  log: Logger;
}): RouteModule {
  const { auth, endpoints, transport, chatgpt, preferences, registry, log } = options;

  async function groups(): Promise<ModelGroup[]> {
    const keyed = await Promise.all(
      KEY_PROVIDERS.map(async (provider) => ((await auth.has(provider.id)) ? provider : undefined)),
    );
    const subscription = chatgpt && (await chatgpt.status()).state === 'connected';
    const custom = await Promise.all(
      endpoints.list().map(async (endpoint): Promise<ModelGroup> => {
        const listed = await listEndpointModels(endpoint, { auth, transport, log });
        const ids = listed.ok ? listed.models : (endpoint.models ?? []);
        return {
          provider: endpoint.id,
          label: `${endpoint.id} (${endpoint.base_url})`,
          kind: 'endpoint',
          base_url: endpoint.base_url,
          available: listed.ok,
          ...(listed.ok ? {} : { code: listed.code }),
          models: ids.map((id) => ({
            id,
            label: id,
            ...(endpoint.context_window === undefined ? {} : { context_window: endpoint.context_window }),
            ...(endpoint.images === true ? { images: true as const } : {}),
          })),
        };
      }),
    );
    return [
      { provider: 'demo', label: 'Demo (offline)', kind: 'demo', available: true, models: catalogModels('demo') },
      ...keyed.flatMap((provider): ModelGroup[] =>
        provider
          ? [
              {
                provider: provider.id,
                label: provider.label,
                kind: 'api-key',
                available: true,
                models: catalogModels(provider.id),
              },
            ]
          : [],
      ),
      ...(subscription
        ? [
            {
              provider: 'chatgpt',
              label: 'ChatGPT subscription (experimental)',
              kind: 'subscription' as const,
              available: true,
              models: catalogModels('chatgpt'),
            },
          ]
        : []),
      ...custom,
    ];
  }

  return (app) => {
    app.get('/models', async (c) => {
      const [listed, fallback] = await secretsStoreCall(log, () => Promise.all([groups(), preferences.defaultModel()]));
      return c.json({ groups: listed, default: fallback } satisfies ModelListResponse);
    });

    app.post('/models/default', async (c) => {
      const body = await readJson(c, modelRefSchema, { code: 'BAD_REQUEST', message: 'expected { provider, model }' });
      if (!registry.has(body.provider)) throw new DaemonError('PROVIDER_UNKNOWN', 'no such provider');
      await secretsStoreCall(log, () => preferences.setDefaultModel(body));
      log.info('models.default-set', { provider: body.provider });
      return c.json({ default: body });
    });
  };
}
