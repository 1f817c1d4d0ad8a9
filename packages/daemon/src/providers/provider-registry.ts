/**
 * Resolves `{ provider, model }` to an AI SDK language model. This is the ONE place a provider's
 * `fetch` is injected: the daemon has no network of its own, so the registry is built with the
 * host-routed transport's fetch (issue 6) and every HTTP provider is created with it. Until a
 * transport is plugged in, the injected fetch refuses (fail closed), never ambient `fetch`. The
 * fetch providers get bounds each reply's events (bounded-reply-fetch.ts).
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { DaemonError } from '../errors.js';
import { boundedReplyFetch } from './bounded-reply-fetch.js';
import { createDemoModel, DEMO_MODEL_ID, DEMO_PROVIDER_ID } from './demo/demo-model.js';
import { contextWindowOf, takesImages } from './model-catalog.js';

export type ProviderFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ProviderContext {
  /** The only way a provider may reach the network. */
  fetch: ProviderFetch;
}

export interface ProviderDefinition {
  id: string;
  /** Shown in the UI and CLI; the demo says "demo" in it. */
  label: string;
  defaultModel: string;
  create(modelId: string, context: ProviderContext): LanguageModelV3;
  /** The model's context window in tokens, when the provider's definition says (custom endpoints). */
  contextWindow?: (modelId: string) => number | undefined;
  /** Whether a prompt to the model can carry images, when the provider's definition says (custom endpoints). */
  takesImages?: (modelId: string) => boolean;
}

export interface ModelRef {
  provider: string;
  model: string;
}

/** A fetch that refuses: the registry's default until the host-routed transport is plugged in. */
export const unavailableFetch: ProviderFetch = () =>
  Promise.reject(new DaemonError('PROVIDER_TRANSPORT_UNAVAILABLE', 'no provider transport is available'));

export const demoProvider: ProviderDefinition = {
  id: DEMO_PROVIDER_ID,
  label: 'demo (offline, deterministic — not a real model)',
  defaultModel: DEMO_MODEL_ID,
  create: (modelId) => createDemoModel(modelId),
};

export class ProviderRegistry {
  readonly #providers = new Map<string, ProviderDefinition>();
  readonly #context: ProviderContext;

  constructor(options: { fetch?: ProviderFetch; providers?: readonly ProviderDefinition[] } = {}) {
    this.#context = { fetch: boundedReplyFetch(options.fetch ?? unavailableFetch) };
    for (const provider of options.providers ?? [demoProvider]) this.#providers.set(provider.id, provider);
  }

  /** Add or replace a provider at run time (custom endpoints are defined and deleted while running). */
  register(provider: ProviderDefinition): void {
    this.#providers.set(provider.id, provider);
  }

  unregister(providerId: string): void {
    this.#providers.delete(providerId);
  }

  has(providerId: string): boolean {
    return this.#providers.has(providerId);
  }

  list(): { id: string; label: string; default_model: string }[] {
    return [...this.#providers.values()].map((p) => ({ id: p.id, label: p.label, default_model: p.defaultModel }));
  }

  /** How errors and the UI name the provider: its label, or its id when it is not (or no longer) registered. */
  name(providerId: string): string {
    return this.#providers.get(providerId)?.label ?? providerId;
  }

  defaultModel(providerId: string): string | undefined {
    return this.#providers.get(providerId)?.defaultModel;
  }

  /** The window compaction works against: the provider's own figure, else the catalog's, else the default. */
  contextWindow(ref: ModelRef): number {
    return this.#providers.get(ref.provider)?.contextWindow?.(ref.model) ?? contextWindowOf(ref.provider, ref.model);
  }

  /** Whether a prompt to the model can carry images: the provider's own word, else the catalog's. */
  takesImages(ref: ModelRef): boolean {
    return this.#providers.get(ref.provider)?.takesImages?.(ref.model) ?? takesImages(ref.provider, ref.model);
  }

  resolve(ref: ModelRef): LanguageModelV3 {
    const provider = this.#providers.get(ref.provider);
    if (!provider) throw new DaemonError('PROVIDER_UNKNOWN', 'no such provider');
    return provider.create(ref.model, this.#context);
  }
}
