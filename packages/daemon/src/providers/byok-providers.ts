/**
 * The real model providers: OpenAI (Responses API), Anthropic, OpenRouter (OpenAI-compatible chat)
 * and user-defined OpenAI-compatible endpoints. Each is an AI SDK provider built on the registry's
 * one injected fetch — the host-routed transport — with the key from auth.json attached per request.
 * Base URLs are the exact origins the host's built-in grants name (or a consented custom origin).
 * Each SDK is loaded by its model's first call (lazy-model.ts).
 */
import type { Endpoint } from '@bastion/protocol';
import type { EndpointStore } from '../endpoints/endpoint-store.js';
import type { AuthStore } from '../secrets/auth-store.js';
import { KEY_ATTACHED_PER_REQUEST, keyedFetch } from './keyed-fetch.js';
import { lazyLanguageModel } from './lazy-model.js';
import type { ProviderDefinition, ProviderRegistry } from './provider-registry.js';

export function byokProviders(auth: AuthStore): ProviderDefinition[] {
  return [
    {
      id: 'openai',
      label: 'OpenAI (API key)',
      defaultModel: 'gpt-4.1-mini',
      create: (modelId, context) =>
        lazyLanguageModel('openai', modelId, async () =>
          (await import('@ai-sdk/openai'))
            .createOpenAI({
              apiKey: KEY_ATTACHED_PER_REQUEST,
              fetch: keyedFetch({
                fetch: context.fetch,
                key: () => auth.apiKey('openai'),
                header: 'bearer',
                required: true,
              }),
            })
            .responses(modelId),
        ),
    },
    {
      id: 'anthropic',
      label: 'Anthropic (API key)',
      defaultModel: 'claude-sonnet-4-5',
      create: (modelId, context) =>
        lazyLanguageModel('anthropic', modelId, async () =>
          (await import('@ai-sdk/anthropic')).createAnthropic({
            apiKey: KEY_ATTACHED_PER_REQUEST,
            fetch: keyedFetch({
              fetch: context.fetch,
              key: () => auth.apiKey('anthropic'),
              header: 'x-api-key',
              required: true,
            }),
          })(modelId),
        ),
    },
    {
      id: 'openrouter',
      label: 'OpenRouter (API key)',
      defaultModel: 'openai/gpt-4.1-mini',
      create: (modelId, context) =>
        lazyLanguageModel('openrouter', modelId, async () =>
          (await import('@ai-sdk/openai-compatible'))
            .createOpenAICompatible({
              name: 'openrouter',
              baseURL: 'https://openrouter.ai/api/v1',
              includeUsage: true,
              fetch: keyedFetch({
                fetch: context.fetch,
                key: () => auth.apiKey('openrouter'),
                header: 'bearer',
                required: true,
              }),
            })
            .chatModel(modelId),
        ),
    },
  ];
}

/** A custom OpenAI-compatible endpoint (Ollama, LM Studio, llama.cpp, vLLM); its provider id is the endpoint id. */
export function endpointProvider(endpoint: Endpoint, auth: AuthStore): ProviderDefinition {
  return {
    id: endpoint.id,
    label: `${endpoint.id} (custom endpoint ${endpoint.base_url})`,
    defaultModel: endpoint.models?.[0] ?? 'default',
    contextWindow: () => endpoint.context_window,
    takesImages: () => endpoint.images === true,
    create: (modelId, context) =>
      lazyLanguageModel(endpoint.id, modelId, async () =>
        (await import('@ai-sdk/openai-compatible'))
          .createOpenAICompatible({
            name: endpoint.id,
            baseURL: endpoint.base_url,
            includeUsage: true,
            fetch: keyedFetch({
              fetch: context.fetch,
              key: () => auth.apiKey(endpoint.id),
              header: 'bearer',
              required: false,
            }),
          })
          .chatModel(modelId),
      ),
  };
}

/** Keep the registry's custom-endpoint providers in step with endpoints.json. */
export function followEndpoints(registry: ProviderRegistry, endpoints: EndpointStore, auth: AuthStore): void {
  let registered = new Set<string>();
  const apply = (list: readonly Endpoint[]) => {
    const next = new Set(list.map((endpoint) => endpoint.id));
    for (const id of registered) if (!next.has(id)) registry.unregister(id);
    for (const endpoint of list) registry.register(endpointProvider(endpoint, auth));
    registered = next;
  };
  apply(endpoints.list());
  endpoints.onChange(apply);
}
