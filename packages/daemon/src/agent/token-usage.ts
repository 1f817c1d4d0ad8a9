/**
 * Token usage of model steps as the provider reported it, and the estimated cost from the model
 * catalog's list prices (cached input at its own price where one is listed). A provider that
 * reports nothing counts as zero; a model with no price has no cost.
 */
import type { LanguageModelUsage } from 'ai';
import { findModel } from '../providers/model-catalog.js';

export interface StepUsage {
  input: number;
  output: number;
  cached: number;
  /** US dollars; undefined when the model's price is unknown. */
  costUsd: number | undefined;
}

const PER_MILLION = 1_000_000;

export function stepUsage(provider: string, model: string, usage: LanguageModelUsage): StepUsage {
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const cached = Math.min(usage.inputTokenDetails.cacheReadTokens ?? 0, input);
  const price = findModel(provider, model)?.price;
  const costUsd =
    price === undefined
      ? undefined
      : ((input - cached) * price.input + cached * (price.cachedInput ?? price.input) + output * price.output) /
        PER_MILLION;
  return { input, output, cached, costUsd };
}
