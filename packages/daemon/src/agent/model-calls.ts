import type { LanguageModelV3 } from '@ai-sdk/provider';

/**
 * `model` with its two calls replaced (each given the original's options to pass on). A plain
 * model object rather than the AI SDK's wrapLanguageModel, so that runs, not the sidecar's
 * start-up, load the SDK.
 */
export function withModelCalls(
  model: LanguageModelV3,
  calls: Pick<LanguageModelV3, 'doStream' | 'doGenerate'>,
): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doStream: calls.doStream,
    doGenerate: calls.doGenerate,
  };
}
