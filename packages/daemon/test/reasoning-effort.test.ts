/**
 * A session's reasoning effort through the real daemon app over real HTTP with real SQLite: set
 * at creation or by PATCH (null clears it), stored with the session, and sent with every step of
 * a run as the provider options of a catalog model that takes one — not for one that does not;
 * asked for a model that takes none, or outside low/medium/high, it is refused with nothing stored.
 */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent, Session } from '@bastion/protocol';
import type { ProviderDefinition } from '../src/providers/provider-registry.js';
import { startInProcessDaemon, type InProcessDaemon } from './support/in-process-daemon.js';
import { textStream } from './support/mock-streams.js';

const calls: LanguageModelV3CallOptions[] = [];

/** Stands in for OpenAI: the id the catalog's reasoning models are listed under. */
const openai: ProviderDefinition = {
  id: 'openai',
  label: 'OpenAI (test)',
  defaultModel: 'gpt-5',
  create: () =>
    new MockLanguageModelV3({
      doStream: (options) => {
        calls.push(options);
        return Promise.resolve({ stream: textStream(['ok'], 0) });
      },
    }),
};

let daemon: InProcessDaemon | undefined;
afterEach(async () => {
  calls.length = 0;
  await daemon?.stop();
  daemon?.cleanup();
  daemon = undefined;
});

/** Run one prompt to its end (the stream replays the session from its start, so this run's end by id): the model's call. */
async function run(d: InProcessDaemon, sessionId: string): Promise<LanguageModelV3CallOptions | undefined> {
  const started = await d.request<{ run_id: string }>('POST', '/agent/run', { session_id: sessionId, message: 'go' });
  expect(started.status).toBe(202);
  await d.collect(
    sessionId,
    (event: AgentEvent) => event.type === 'run-finished' && event.run_id === started.body.run_id,
  );
  return calls.at(-1);
}

describe('reasoning effort', () => {
  it('is stored with the session and sent with each step for a model that takes one; PATCH null clears it', async () => {
    daemon = await startInProcessDaemon({ providers: [openai] });
    const created = await daemon.request<Session>('POST', '/sessions', {
      provider: 'openai',
      model: 'gpt-5',
      reasoning_effort: 'high',
    });
    expect(created.body.reasoning_effort).toBe('high');
    expect((await run(daemon, created.body.id))?.providerOptions).toEqual({ openai: { reasoningEffort: 'high' } });

    const lowered = await daemon.request<Session>('PATCH', `/sessions/${created.body.id}`, { reasoning_effort: 'low' });
    expect(lowered.body.reasoning_effort).toBe('low');
    expect((await run(daemon, created.body.id))?.providerOptions).toEqual({ openai: { reasoningEffort: 'low' } });

    const cleared = await daemon.request<Session>('PATCH', `/sessions/${created.body.id}`, { reasoning_effort: null });
    expect(cleared.body.reasoning_effort).toBeUndefined();
    const stored = await daemon.request<Session>('GET', `/sessions/${created.body.id}`);
    expect(stored.body.reasoning_effort).toBeUndefined();
  });

  it('is refused for a model that takes none (no session made), sent with no step once the session moves to one, and refused outside low, medium and high', async () => {
    daemon = await startInProcessDaemon({ providers: [openai] });
    const refused = await daemon.request<{ code: string; message: string }>('POST', '/sessions', {
      provider: 'openai',
      model: 'gpt-4.1-mini',
      reasoning_effort: 'medium',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('REASONING_NOT_SUPPORTED');
    expect(refused.body.message).toContain('openai/gpt-4.1-mini takes no reasoning effort');
    expect((await daemon.request<{ sessions: Session[] }>('GET', '/sessions')).body.sessions).toEqual([]);

    const created = await daemon.request<Session>('POST', '/sessions', {
      provider: 'openai',
      model: 'gpt-5',
      reasoning_effort: 'medium',
    });
    const moved = await daemon.request<Session>('PATCH', `/sessions/${created.body.id}`, { model: 'gpt-4.1-mini' });
    expect(moved.status).toBe(200);
    expect((await run(daemon, created.body.id))?.providerOptions).toBeUndefined();
    expect(
      (await daemon.request<{ code: string }>('PATCH', `/sessions/${created.body.id}`, { reasoning_effort: 'high' }))
        .body.code,
    ).toBe('REASONING_NOT_SUPPORTED');
    const invalid = await daemon.request<{ code: string }>('PATCH', `/sessions/${created.body.id}`, {
      reasoning_effort: 'max',
    });
    expect(invalid.status).toBe(400);
    expect((await daemon.request<Session>('GET', `/sessions/${created.body.id}`)).body.reasoning_effort).toBe('medium');
  });
});
