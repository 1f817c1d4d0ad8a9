import { describe, expect, it } from 'vitest';
import type { ModelListResponse } from '@bastion/protocol';
import { missingProviderReason } from './models.js';
import { chooseModel, unauthorizedHint } from './run.js';

describe('unauthorizedHint (a provider answered 401)', () => {
  it('tells a key provider’s user the exact command that replaces the key', () => {
    for (const provider of ['openai', 'anthropic', 'openrouter']) {
      expect(unauthorizedHint(provider)).toBe(
        `the provider did not accept the API key: replace it with bastion secrets set ${provider}`,
      );
    }
  });

  it('sends the ChatGPT subscription to its sign-in, and says nothing for the demo', () => {
    expect(unauthorizedHint('chatgpt')).toContain('connect the account again');
    expect(unauthorizedHint('demo')).toBeUndefined();
  });

  it('tells an endpoint’s user (one given by --endpoint too) the exact command that stores its key', () => {
    expect(unauthorizedHint('endpoint-127-0-0-1-8080-v1')).toBe(
      'the endpoint did not accept its key, or needs one: store it with bastion secrets set endpoint-127-0-0-1-8080-v1 (or in the UI: Settings → Custom endpoints), then run again',
    );
  });
});

describe('missingProviderReason (--provider names no provider on offer)', () => {
  it('gives a key provider without a key the command that stores one', () => {
    for (const provider of ['openai', 'anthropic', 'openrouter']) {
      expect(missingProviderReason(provider)).toBe(
        `provider ${provider} has no API key: add one with bastion secrets set ${provider} (or in the UI's Settings)`,
      );
    }
  });

  it('sends the subscription to its sign-in, and calls any other id not available, its escape sequences removed', () => {
    expect(missingProviderReason('chatgpt')).toBe(
      'provider chatgpt is not connected: sign in to your ChatGPT account in the UI (Settings)',
    );
    expect(missingProviderReason('ollama')).toBe('provider ollama is not available');
    expect(missingProviderReason('bad\u001b[2J')).toBe('provider bad is not available');
  });
});

describe('chooseModel (the model a run starts on)', () => {
  const listed = (fallback: { provider: string; model: string }): ModelListResponse => ({
    groups: [
      {
        provider: 'demo',
        label: 'Demo (offline)',
        kind: 'demo',
        available: true,
        models: [{ id: 'demo', label: 'Demo' }],
      },
      {
        provider: 'openai',
        label: 'OpenAI',
        kind: 'api-key',
        available: true,
        models: [
          { id: 'gpt-5', label: 'GPT-5' },
          { id: 'gpt-4.1', label: 'GPT-4.1' },
        ],
      },
      {
        provider: 'local',
        label: 'local',
        kind: 'endpoint',
        available: false,
        code: 'ENDPOINT_NOT_GRANTED',
        models: [{ id: 'llama', label: 'llama' }],
      },
    ],
    default: fallback,
  });
  const none = { provider: undefined, model: undefined };

  it('lets a new session with no --provider or --model go to the daemon as it is, once the default can run', () => {
    expect(chooseModel(none, listed({ provider: 'openai', model: 'gpt-5' }), true)).toEqual({ choice: none });
  });

  it('gives --model alone the default’s provider, and --provider alone no model (its own default)', () => {
    const models = listed({ provider: 'openai', model: 'gpt-5' });
    expect(chooseModel({ provider: undefined, model: 'gpt-4.1' }, models, true)).toEqual({
      choice: { provider: 'openai', model: 'gpt-4.1' },
    });
    expect(chooseModel({ provider: 'demo', model: undefined }, models, true)).toEqual({
      choice: { provider: 'demo', model: undefined },
    });
  });

  it('leaves a continued session on its own model when nothing is given, whatever the default', () => {
    expect(chooseModel(none, listed({ provider: 'gone', model: 'm' }), false)).toEqual({ choice: none });
  });

  it('refuses a default whose provider is gone, or whose endpoint is not approved in this run, naming it and listing what is on offer', () => {
    for (const fallback of [
      { provider: 'gone', model: 'm' },
      { provider: 'local', model: 'llama' },
    ]) {
      const chosen = chooseModel(none, listed(fallback), true);
      expect(chosen).toEqual({ refusal: expect.any(String) as string });
      const refusal = 'refusal' in chosen ? chosen.refusal : '';
      expect(refusal).toContain(
        `the default model for new sessions, ${fallback.provider}/${fallback.model}, is not available now`,
      );
      expect(refusal).toContain('or set another default with bastion models default PROVIDER/MODEL:\n');
      expect(refusal).toContain('  demo/demo       Demo\n');
    }
  });

  it('refuses a --model its provider does not offer', () => {
    const chosen = chooseModel(
      { provider: 'openai', model: 'gpt-9' },
      listed({ provider: 'demo', model: 'demo' }),
      true,
    );
    expect('refusal' in chosen && chosen.refusal).toMatch(/^model gpt-9 is not offered by openai; choose one of/);
  });
});
