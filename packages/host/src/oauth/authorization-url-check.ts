/**
 * SEC-008: the host checks the authorization URL the daemon built before any browser sees it.
 * Exact origin and path of the effective authorize endpoint; each expected parameter exactly
 * once and no other; the fixed profile values; `S256` with a 43-character base64url challenge;
 * the host's own client id and the redirect of the listener it just opened. The state it returns
 * is what the callback listener will accept. Does not catch a daemon that chose a weak verifier:
 * the challenge reveals nothing about the verifier's entropy.
 */
import type { ChatgptOAuthConfig } from './chatgpt-oauth-config.js';
import { CHATGPT_FIXED_AUTHORIZATION_PARAMS } from './chatgpt-oauth-config.js';
import { CHATGPT_MAX_AUTHORIZATION_URL_CHARS, CHATGPT_MAX_STATE_CHARS } from '@bastion/protocol';

export type AuthorizationUrlCheck =
  { ok: true; url: string; state: string } | { ok: false; code: 'OAUTH_AUTHORIZATION_URL'; message: string };

const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** At least 24 random bytes, base64url (32 characters). */
const STATE = new RegExp(`^[A-Za-z0-9_-]{32,${CHATGPT_MAX_STATE_CHARS}}$`);

function refuse(message: string): AuthorizationUrlCheck {
  return { ok: false, code: 'OAUTH_AUTHORIZATION_URL', message };
}

export function checkAuthorizationUrl(
  raw: string,
  expected: { config: ChatgptOAuthConfig; redirectUri: string },
): AuthorizationUrlCheck {
  if (raw.length > CHATGPT_MAX_AUTHORIZATION_URL_CHARS) return refuse('authorization URL is too long');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('authorization URL is not a URL');
  }
  const endpoint = new URL(expected.config.authorizationEndpoint);
  if (url.origin !== endpoint.origin) return refuse('authorization URL has the wrong origin');
  if (url.pathname !== endpoint.pathname) return refuse('authorization URL has the wrong path');
  if (url.username !== '' || url.password !== '' || url.hash !== '')
    return refuse('authorization URL carries credentials or a fragment');

  const required: Record<string, (value: string) => boolean> = {
    client_id: (value) => value === expected.config.clientId,
    redirect_uri: (value) => value === expected.redirectUri,
    code_challenge: (value) => CHALLENGE.test(value),
    state: (value) => STATE.test(value),
  };
  for (const [name, fixed] of Object.entries(CHATGPT_FIXED_AUTHORIZATION_PARAMS)) {
    required[name] = (value) => value === fixed;
  }
  const params = url.searchParams;
  for (const name of new Set(params.keys())) {
    if (!(name in required)) return refuse('authorization URL has an unexpected parameter');
  }
  for (const [name, accept] of Object.entries(required)) {
    const values = params.getAll(name);
    if (values.length === 0) return refuse(`authorization URL lacks ${name}`);
    if (values.length > 1) return refuse(`authorization URL repeats ${name}`);
    if (!accept(values[0] ?? '')) return refuse(`authorization URL has a wrong ${name}`);
  }
  return { ok: true, url: url.href, state: params.get('state') ?? '' };
}
