import { describe, expect, it } from 'vitest';
import { missingProviderReason, unauthorizedHint } from './run.js';

describe('unauthorizedHint (a provider answered 401)', () => {
  it('tells a key provider’s user the exact command that replaces the key', () => {
    for (const provider of ['openai', 'anthropic', 'openrouter']) {
      expect(unauthorizedHint(provider)).toBe(
        `the provider did not accept the API key: replace it with bastion secrets set ${provider}`,
      );
    }
  });

  it('sends the ChatGPT subscription to its sign-in, and says nothing for the demo or an endpoint', () => {
    expect(unauthorizedHint('chatgpt')).toContain('connect the account again');
    expect(unauthorizedHint('demo')).toBeUndefined();
    expect(unauthorizedHint('ollama')).toBeUndefined();
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
