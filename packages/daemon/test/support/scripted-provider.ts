/**
 * Test support: a provider (`mock`, model `scripted`) whose model plays queued turns — a tool call
 * or text — one per model call, in order, and keeps every prompt it received. Empty, it answers
 * `done`. Clear both arrays after each test.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import type { ProviderDefinition } from '../../src/providers/provider-registry.js';
import { textStream, toolCallStream } from './mock-streams.js';

export type ScriptedTurn =
  { tool: string; input: Record<string, unknown> } | { text: string; delayMs?: number; pieces?: number };

export interface ScriptedProvider {
  provider: ProviderDefinition;
  /** What the next model calls answer, taken in order. */
  turns: ScriptedTurn[];
  /** Every prompt the model received, in order. */
  prompts: LanguageModelV3CallOptions['prompt'][];
}

export function scriptedProvider(): ScriptedProvider {
  const turns: ScriptedTurn[] = [];
  const prompts: LanguageModelV3CallOptions['prompt'][] = [];
  const streamOf = (turn: ScriptedTurn | undefined): ReadableStream<LanguageModelV3StreamPart> => {
    if (turn && 'tool' in turn) return toolCallStream(`call-${prompts.length}`, turn.tool, turn.input);
    return textStream(
      Array.from({ length: turn?.pieces ?? 1 }, () => turn?.text ?? 'done'),
      turn?.delayMs ?? 0,
    );
  };
  const provider: ProviderDefinition = {
    id: 'mock',
    label: 'mock',
    defaultModel: 'scripted',
    create: () =>
      new MockLanguageModelV3({
        doStream: ({ prompt }) => {
          prompts.push(prompt);
          return Promise.resolve({ stream: streamOf(turns.shift()) });
        },
      }),
  };
  return { provider, turns, prompts };
}

/**
 * A provider standing in for a catalog one (`id`, e.g. `openai`, so the catalog's facts about its
 * models apply) whose model answers `reply` to every call and keeps each call's options in `calls`.
 */
export function recordingProvider(
  id: string,
  defaultModel: string,
  reply: string,
  calls: LanguageModelV3CallOptions[],
): ProviderDefinition {
  return {
    id,
    label: `${id} (test)`,
    defaultModel,
    create: () =>
      new MockLanguageModelV3({
        doStream: (options) => {
          calls.push(options);
          return Promise.resolve({ stream: textStream([reply], 0) });
        },
      }),
  };
}
