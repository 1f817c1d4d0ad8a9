import { describe, expect, it } from 'vitest';
import { unauthorizedHint } from './run.js';

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
