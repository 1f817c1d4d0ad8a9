import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { lazyLanguageModel } from './lazy-model.js';

const CALL: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

function real(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    supportedUrls: { 'image/*': [/^https:\/\//] },
    doGenerate: {
      content: [{ type: 'text', text: 'generated' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    },
  });
}

describe('lazyLanguageModel', () => {
  it('loads nothing until the first call, and reports the provider id and model id meanwhile', () => {
    let loads = 0;
    const model = lazyLanguageModel('openai', 'gpt-x', () => {
      loads += 1;
      return Promise.resolve(real());
    });
    expect([model.specificationVersion, model.provider, model.modelId]).toEqual(['v3', 'openai', 'gpt-x']);
    expect(loads).toBe(0);
  });

  it('loads the real model once and forwards every call and supportedUrls to it', async () => {
    let loads = 0;
    const inner = real();
    const model = lazyLanguageModel('openai', 'gpt-x', () => {
      loads += 1;
      return Promise.resolve(inner);
    });
    const [first, second] = await Promise.all([model.doGenerate(CALL), model.doGenerate(CALL)]);
    expect(first.content).toEqual([{ type: 'text', text: 'generated' }]);
    expect(second.content).toEqual(first.content);
    expect(await model.supportedUrls).toEqual({ 'image/*': [/^https:\/\//] });
    expect(loads).toBe(1);
    expect(inner.doGenerateCalls).toHaveLength(2);
  });

  it('fails each call with the load failure and does not retry a failed load', async () => {
    let loads = 0;
    const failure = new Error('module missing');
    const model: LanguageModelV3 = lazyLanguageModel('anthropic', 'claude-x', () => {
      loads += 1;
      return Promise.reject(failure);
    });
    await expect(model.doStream(CALL)).rejects.toBe(failure);
    await expect(model.doGenerate(CALL)).rejects.toBe(failure);
    expect(loads).toBe(1);
  });
});
