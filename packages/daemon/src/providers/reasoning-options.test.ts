/**
 * The reasoning effort a session chooses reaches the provider's request as the provider reads it:
 * the options `reasoningOptions` gives, passed to the real `@ai-sdk/openai` Responses model (as
 * the OpenAI and ChatGPT providers build it), put `reasoning.effort` in the request body, and to
 * the real `@ai-sdk/anthropic` model, extended thinking with the effort's budget under max_tokens;
 * a model the catalog does not mark, or no effort, adds nothing.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { ANTHROPIC_THINKING_BUDGET_TOKENS } from '@bastion/protocol';
import { describe, expect, it } from 'vitest';
import { reasoningOptions } from './model-catalog.js';

/** A fetch that keeps the request's JSON body and answers 400, so nothing streams. */
function capturing(): { fetch: typeof fetch; body: () => Record<string, unknown> } {
  let body: string | undefined;
  return {
    fetch: (_input, init) => {
      body = typeof init?.body === 'string' ? init.body : undefined;
      return Promise.resolve(new Response('{"error":{"message":"stop here"}}', { status: 400 }));
    },
    body: () => JSON.parse(body ?? '{}') as Record<string, unknown>,
  };
}

/** The JSON body of the one request `model` sends with `providerOptions`. */
async function requestBody(
  model: (fetch: typeof globalThis.fetch) => LanguageModelV3,
  providerOptions: ReturnType<typeof reasoningOptions>,
): Promise<Record<string, unknown>> {
  const capture = capturing();
  try {
    await model(capture.fetch).doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      ...(providerOptions === undefined ? {} : { providerOptions }),
    });
  } catch {
    // The 400 above: only the request was wanted.
  }
  return capture.body();
}

/** As the OpenAI and ChatGPT providers build their models: the Responses API. */
const responses = (fetch: typeof globalThis.fetch) => createOpenAI({ apiKey: 'test-key', fetch }).responses('gpt-5');
const claude = (model: string) => (fetch: typeof globalThis.fetch) =>
  createAnthropic({ apiKey: 'test-key', fetch })(model);

describe('reasoningOptions', () => {
  it('puts the effort in an OpenAI Responses request as reasoning.effort, for OpenAI and ChatGPT models the catalog marks', async () => {
    expect((await requestBody(responses, reasoningOptions('openai', 'gpt-5', 'high'))).reasoning).toEqual({
      effort: 'high',
    });
    expect((await requestBody(responses, reasoningOptions('chatgpt', 'gpt-5.1-codex', 'low'))).reasoning).toEqual({
      effort: 'low',
    });
  });

  it('asks Anthropic models for extended thinking with the effort’s budget, below the request’s max_tokens, Opus 4.1 at high too', async () => {
    for (const model of ['claude-sonnet-4-5', 'claude-opus-4-1']) {
      const body = await requestBody(claude(model), reasoningOptions('anthropic', model, 'high'));
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: ANTHROPIC_THINKING_BUDGET_TOKENS.high });
      expect(body.max_tokens).toBeGreaterThan(ANTHROPIC_THINKING_BUDGET_TOKENS.high);
    }
    const low = await requestBody(claude('claude-haiku-4-5'), reasoningOptions('anthropic', 'claude-haiku-4-5', 'low'));
    expect(low.thinking).toEqual({ type: 'enabled', budget_tokens: ANTHROPIC_THINKING_BUDGET_TOKENS.low });
  });

  it('adds nothing without an effort, for a model that takes none, or for a provider whose models are not marked', async () => {
    expect(reasoningOptions('openai', 'gpt-5', undefined)).toBeUndefined();
    expect(reasoningOptions('openai', 'gpt-4.1-mini', 'high')).toBeUndefined();
    expect(reasoningOptions('local-endpoint', 'gpt-5', 'high')).toBeUndefined();
    expect(
      (await requestBody(responses, reasoningOptions('openai', 'gpt-4.1-mini', 'high'))).reasoning,
    ).toBeUndefined();
    expect(reasoningOptions('openrouter', 'anthropic/claude-sonnet-4.5', 'high')).toBeUndefined();
  });
});
