/**
 * A language model whose provider SDK is loaded by its first call. The SDKs (OpenAI, Anthropic,
 * OpenAI-compatible: about 750 KB of JavaScript) stay off the sidecar's start-up, and a sidecar
 * that never calls a provider never loads one. Everything a model is checked for before its first
 * call (its id, its destination) is checked by the provider's `create`, not here.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';

/** `provider` is Bastion's provider id; the AI SDK only reports it (logs, errors). */
export function lazyLanguageModel(
  provider: string,
  modelId: string,
  load: () => Promise<LanguageModelV3>,
): LanguageModelV3 {
  let loaded: Promise<LanguageModelV3> | undefined;
  const model = () => (loaded ??= load());
  return {
    specificationVersion: 'v3',
    provider,
    modelId,
    get supportedUrls() {
      return model().then((real) => real.supportedUrls);
    },
    doGenerate: async (options) => (await model()).doGenerate(options),
    doStream: async (options) => (await model()).doStream(options),
  };
}
