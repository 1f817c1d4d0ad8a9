/** Test support: model streams for MockLanguageModelV3 — text pieces (optionally paced) and a single tool call. */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { simulateReadableStream } from 'ai/test';

export const MOCK_USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

export function textStream(words: string[], delayMs: number): ReadableStream<LanguageModelV3StreamPart> {
  return simulateReadableStream<LanguageModelV3StreamPart>({
    chunkDelayInMs: delayMs,
    chunks: [
      { type: 'text-start', id: 't' },
      ...words.map((word): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 't', delta: word })),
      { type: 'text-end', id: 't' },
      { type: 'finish', usage: MOCK_USAGE, finishReason: { unified: 'stop', raw: 'stop' } },
    ],
  });
}

export function toolCallStream(
  toolCallId: string,
  toolName: string,
  input: unknown,
): ReadableStream<LanguageModelV3StreamPart> {
  return simulateReadableStream<LanguageModelV3StreamPart>({
    chunks: [
      { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) },
      { type: 'finish', usage: MOCK_USAGE, finishReason: { unified: 'tool-calls', raw: 'tool_calls' } },
    ],
  });
}
