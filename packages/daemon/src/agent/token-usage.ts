/**
 * Token usage of model steps as the provider reported it, and the estimated cost from the model
 * catalog's list prices (cached input at its own price where one is listed). A provider that
 * reports nothing counts as zero; a model with no price has no cost. A count is the provider's
 * word: one that is not a whole number from 0 to MODEL_MAX_STEP_TOKENS counts as zero, so a hostile
 * stream cannot store a negative, infinite or NaN total (JSON's null) that every page then reads.
 */
import type { LanguageModelUsage } from 'ai';
import { MODEL_MAX_STEP_TOKENS } from '@bastion/protocol';
import { findModel } from '../providers/model-catalog.js';

export interface StepUsage {
  input: number;
  output: number;
  cached: number;
  /** US dollars; undefined when the model's price is unknown. */
  costUsd: number | undefined;
}

const PER_MILLION = 1_000_000;

/** A provider's token count, or 0 when it is not a whole number within the bound. */
const count = (tokens: number | undefined): number =>
  tokens !== undefined && Number.isSafeInteger(tokens) && tokens >= 0 && tokens <= MODEL_MAX_STEP_TOKENS ? tokens : 0;

export function stepUsage(provider: string, model: string, usage: LanguageModelUsage): StepUsage {
  const input = count(usage.inputTokens);
  const output = count(usage.outputTokens);
  const cached = Math.min(count(usage.inputTokenDetails.cacheReadTokens), input);
  const price = findModel(provider, model)?.price;
  const costUsd =
    price === undefined
      ? undefined
      : ((input - cached) * price.input + cached * (price.cachedInput ?? price.input) + output * price.output) /
        PER_MILLION;
  return { input, output, cached, costUsd };
}
