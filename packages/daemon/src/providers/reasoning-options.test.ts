/**
 * The reasoning effort a session chooses reaches the provider's request as the provider reads it:
 * the options `reasoningOptions` gives, passed to the real `@ai-sdk/openai` Responses model (as
 * the OpenAI and ChatGPT providers build it), put `reasoning.effort` in the request body; a model
 * the catalog does not mark, or no effort, adds nothing.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { reasoningOptions } from './model-catalog.js';

/** The JSON body of the one request the model sends with `providerOptions` (answered 400, so nothing streams). */
async function requestBody(providerOptions: ReturnType<typeof reasoningOptions>): Promise<Record<string, unknown>> {
  let body: string | undefined;
  const openai = createOpenAI({
    apiKey: 'test-key',
    fetch: (_input, init) => {
      body = typeof init?.body === 'string' ? init.body : undefined;
      return Promise.resolve(new Response('{"error":{"message":"stop here"}}', { status: 400 }));
    },
  });
  try {
    await openai.responses('gpt-5').doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      ...(providerOptions === undefined ? {} : { providerOptions }),
    });
  } catch {
    // The 400 above: only the request was wanted.
  }
  return JSON.parse(body ?? '{}') as Record<string, unknown>;
}

describe('reasoningOptions', () => {
  it('puts the effort in an OpenAI Responses request as reasoning.effort, for OpenAI and ChatGPT models the catalog marks', async () => {
    expect((await requestBody(reasoningOptions('openai', 'gpt-5', 'high'))).reasoning).toEqual({ effort: 'high' });
    expect((await requestBody(reasoningOptions('chatgpt', 'gpt-5.1-codex', 'low'))).reasoning).toEqual({
      effort: 'low',
    });
  });

  it('adds nothing without an effort, for a model that takes none, or for a provider whose models are not marked', async () => {
    expect(reasoningOptions('openai', 'gpt-5', undefined)).toBeUndefined();
    expect(reasoningOptions('openai', 'gpt-4.1-mini', 'high')).toBeUndefined();
    expect(reasoningOptions('local-endpoint', 'gpt-5', 'high')).toBeUndefined();
    expect((await requestBody(reasoningOptions('openai', 'gpt-4.1-mini', 'high'))).reasoning).toBeUndefined();
  });
});
