/**
 * SEC-004: the built-in provider grants. Immutable, exact origins (scheme, host, port); nothing at
 * run time can add to, widen or remove them. Asset grants are the enumerated provider-owned origins
 * a credential-free download may reach (https, default port, GET/HEAD only — see request-policy).
 */
import type { Grant } from '@bastion/protocol';

export const BUILTIN_GRANTS: readonly Grant[] = Object.freeze(
  (
    [
      { grant_id: 'openai', origin: 'https://api.openai.com', op: 'provider', kind: 'builtin' },
      { grant_id: 'anthropic', origin: 'https://api.anthropic.com', op: 'provider', kind: 'builtin' },
      { grant_id: 'openrouter', origin: 'https://openrouter.ai', op: 'provider', kind: 'builtin' },
      // ChatGPT subscription (SEC-008): the token endpoint and the Responses endpoint.
      { grant_id: 'chatgpt-auth', origin: 'https://auth.openai.com', op: 'provider', kind: 'builtin' },
      { grant_id: 'chatgpt-responses', origin: 'https://chatgpt.com', op: 'provider', kind: 'builtin' },
      { grant_id: 'openai-files', origin: 'https://files.oaiusercontent.com', op: 'asset', kind: 'builtin' },
      { grant_id: 'openai-cdn', origin: 'https://cdn.openai.com', op: 'asset', kind: 'builtin' },
    ] satisfies Grant[]
  ).map((grant) => Object.freeze(grant)),
);
