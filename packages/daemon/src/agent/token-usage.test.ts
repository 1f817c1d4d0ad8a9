import type { LanguageModelUsage } from 'ai';
import { describe, expect, it } from 'vitest';
import { MODEL_MAX_STEP_TOKENS } from '@bastion/protocol';
import { stepUsage } from './token-usage.js';

const usage = (input: number | undefined, output: number | undefined, cacheRead?: number): LanguageModelUsage => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: undefined,
  inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: cacheRead, cacheWriteTokens: undefined },
  outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
});

describe('stepUsage', () => {
  it('prices uncached input, cached input and output at the catalog list prices', () => {
    // gpt-4.1-mini: $0.40 input, $0.10 cached input, $1.60 output per million tokens
    const step = stepUsage('openai', 'gpt-4.1-mini', usage(1_000_000, 500_000, 200_000));
    expect(step).toMatchObject({ input: 1_000_000, output: 500_000, cached: 200_000 });
    expect(step.costUsd).toBeCloseTo(0.8 * 0.4 + 0.2 * 0.1 + 0.5 * 1.6, 10);
  });

  it('has no cost for a model without a price, and counts a provider that reports nothing as zero', () => {
    expect(stepUsage('local', 'scripted-model', usage(undefined, undefined))).toEqual({
      input: 0,
      output: 0,
      cached: 0,
      costUsd: undefined,
    });
  });

  it('counts a negative, infinite, fractional, NaN or over-bound count from a provider as zero, so no total is ever negative or null', () => {
    for (const bad of [-1e15, 1e308, Number.POSITIVE_INFINITY, Number.NaN, 1.5, MODEL_MAX_STEP_TOKENS + 1]) {
      const step = stepUsage('openai', 'gpt-4.1-mini', usage(bad, bad, bad));
      expect(step).toMatchObject({ input: 0, output: 0, cached: 0 });
      expect(Number.isFinite(step.costUsd)).toBe(true);
    }
    expect(stepUsage('local', 'm', usage(MODEL_MAX_STEP_TOKENS, 7, 3))).toMatchObject({
      input: MODEL_MAX_STEP_TOKENS,
      output: 7,
      cached: 3,
    });
  });
});
