/**
 * What Bastion knows about each provider's models: the label shown in the model picker, the
 * context window the agent compacts against, list prices for an estimated cost, and whether a
 * session can choose how much the model reasons, and whether a prompt can carry images. Custom
 * endpoints list their own models (`/models`) and carry a configured window instead; a model
 * missing here still runs, with `DEFAULT_CONTEXT_WINDOW_TOKENS` and no cost estimate.
 */
import type { SharedV3ProviderOptions } from '@ai-sdk/provider';
import {
  ANTHROPIC_THINKING_BUDGET_TOKENS,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  type ReasoningEffort,
} from '@bastion/protocol';

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cachedInput?: number;
}

export interface ModelInfo {
  id: string;
  label: string;
  contextWindow: number;
  price?: ModelPrice;
  /** Takes a reasoning effort (OpenAI's Responses API `reasoning.effort`, Anthropic's extended thinking). */
  reasoning?: true;
  /** A prompt to it can carry images (PNG, JPEG, GIF, WebP). */
  images?: true;
}

export const MODEL_CATALOG: Readonly<Record<string, readonly ModelInfo[]>> = Object.freeze({
  demo: [{ id: 'demo', label: 'Demo (offline)', contextWindow: 32_000, images: true }],
  openai: [
    {
      id: 'gpt-4.1-mini',
      label: 'GPT-4.1 mini',
      contextWindow: 1_047_576,
      images: true,
      price: { input: 0.4, output: 1.6, cachedInput: 0.1 },
    },
    {
      id: 'gpt-4.1',
      label: 'GPT-4.1',
      contextWindow: 1_047_576,
      images: true,
      price: { input: 2, output: 8, cachedInput: 0.5 },
    },
    {
      id: 'gpt-5',
      label: 'GPT-5',
      contextWindow: 400_000,
      images: true,
      price: { input: 1.25, output: 10, cachedInput: 0.125 },
      reasoning: true,
    },
    {
      id: 'gpt-5-mini',
      label: 'GPT-5 mini',
      contextWindow: 400_000,
      images: true,
      price: { input: 0.25, output: 2, cachedInput: 0.025 },
      reasoning: true,
    },
    {
      id: 'gpt-4o',
      label: 'GPT-4o',
      contextWindow: 128_000,
      images: true,
      price: { input: 2.5, output: 10, cachedInput: 1.25 },
    },
    {
      id: 'o4-mini',
      label: 'o4-mini',
      contextWindow: 200_000,
      images: true,
      price: { input: 1.1, output: 4.4, cachedInput: 0.275 },
      reasoning: true,
    },
  ],
  anthropic: [
    {
      id: 'claude-sonnet-4-5',
      label: 'Claude Sonnet 4.5',
      contextWindow: 200_000,
      images: true,
      price: { input: 3, output: 15, cachedInput: 0.3 },
      reasoning: true,
    },
    {
      id: 'claude-opus-4-1',
      label: 'Claude Opus 4.1',
      contextWindow: 200_000,
      images: true,
      price: { input: 15, output: 75, cachedInput: 1.5 },
      reasoning: true,
    },
    {
      id: 'claude-haiku-4-5',
      label: 'Claude Haiku 4.5',
      contextWindow: 200_000,
      images: true,
      price: { input: 1, output: 5, cachedInput: 0.1 },
      reasoning: true,
    },
  ],
  openrouter: [
    {
      id: 'openai/gpt-4.1-mini',
      label: 'GPT-4.1 mini (OpenRouter)',
      contextWindow: 1_047_576,
      images: true,
      price: { input: 0.4, output: 1.6 },
    },
    {
      id: 'anthropic/claude-sonnet-4.5',
      label: 'Claude Sonnet 4.5 (OpenRouter)',
      contextWindow: 200_000,
      images: true,
      price: { input: 3, output: 15 },
    },
    {
      id: 'google/gemini-2.5-pro',
      label: 'Gemini 2.5 Pro (OpenRouter)',
      contextWindow: 1_048_576,
      images: true,
      price: { input: 1.25, output: 10 },
    },
  ],
  // Included in the subscription: no per-token price.
  chatgpt: [
    { id: 'gpt-5.1-codex', label: 'GPT-5.1 Codex', contextWindow: 400_000, images: true, reasoning: true },
    { id: 'gpt-5.1-codex-mini', label: 'GPT-5.1 Codex mini', contextWindow: 400_000, images: true, reasoning: true },
    { id: 'gpt-5.1', label: 'GPT-5.1', contextWindow: 400_000, images: true, reasoning: true },
    { id: 'gpt-5-codex', label: 'GPT-5 Codex', contextWindow: 400_000, images: true, reasoning: true },
    { id: 'gpt-5', label: 'GPT-5', contextWindow: 400_000, images: true, reasoning: true },
  ],
});

export function findModel(provider: string, model: string): ModelInfo | undefined {
  return MODEL_CATALOG[provider]?.find((info) => info.id === model);
}

/**
 * How each provider's reasoning models take an effort: OpenAI's Responses API (OpenAI, ChatGPT) as
 * `reasoning.effort`; Anthropic's as extended thinking with a token budget (the AI SDK adds the
 * budget to the request's max_tokens).
 */
const EFFORT_OPTIONS: Readonly<Record<string, (effort: ReasoningEffort) => SharedV3ProviderOptions>> = {
  openai: (effort) => ({ openai: { reasoningEffort: effort } }),
  chatgpt: (effort) => ({ openai: { reasoningEffort: effort } }),
  anthropic: (effort) => ({
    anthropic: { thinking: { type: 'enabled', budgetTokens: ANTHROPIC_THINKING_BUDGET_TOKENS[effort] } },
  }),
};

/** Whether a session on this model can choose its reasoning effort. */
export function takesReasoning(provider: string, model: string): boolean {
  return Object.hasOwn(EFFORT_OPTIONS, provider) && findModel(provider, model)?.reasoning === true;
}

/**
 * What a run asks the model for to reason with `effort`: the provider options of a model that
 * takes one, or undefined (no effort chosen, or a model that takes none).
 */
export function reasoningOptions(
  provider: string,
  model: string,
  effort: ReasoningEffort | undefined,
): SharedV3ProviderOptions | undefined {
  if (effort === undefined || !takesReasoning(provider, model)) return undefined;
  return EFFORT_OPTIONS[provider]?.(effort);
}

/**
 * Whether a prompt to this model can carry images: catalog models that say so; catalog providers'
 * models not listed are not known to. A custom endpoint's definition says for its models
 * (ProviderRegistry.takesImages).
 */
export function takesImages(provider: string, model: string): boolean {
  return findModel(provider, model)?.images === true;
}

export function contextWindowOf(provider: string, model: string): number {
  return findModel(provider, model)?.contextWindow ?? DEFAULT_CONTEXT_WINDOW_TOKENS;
}
