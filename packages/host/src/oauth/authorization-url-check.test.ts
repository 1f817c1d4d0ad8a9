import { describe, expect, it } from 'vitest';
import { checkAuthorizationUrl } from './authorization-url-check.js';
import { chatgptRedirectUri, resolveChatgptOAuthConfig } from './chatgpt-oauth-config.js';

const config = resolveChatgptOAuthConfig({ env: {} });
const redirectUri = chatgptRedirectUri(1455);
const STATE = 'sT4te_abcdefghijklmnopqrstuvwxyz012345';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function build(
  overrides: Record<string, string | null> = {},
  base = config.authorizationEndpoint,
  extra: [string, string][] = [],
): string {
  const params: Record<string, string | null> = {
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: redirectUri,
    scope: 'openid profile email offline_access',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    id_token_add_organizations: 'true',
    codex_cli_simplified_flow: 'true',
    originator: 'bastion',
    state: STATE,
    ...overrides,
  };
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.append(name, value);
  for (const [name, value] of extra) url.searchParams.append(name, value);
  return url.href;
}

const check = (url: string) => checkAuthorizationUrl(url, { config, redirectUri });

describe('authorization URL check', () => {
  it('accepts the exact profile and returns its state', () => {
    expect(check(build())).toEqual({ ok: true, url: build(), state: STATE });
  });

  it.each([
    ['lookalike origin', 'https://auth.openai.com.evil.test/oauth/authorize'],
    ['lookalike subdomain', 'https://auth-openai.com/oauth/authorize'],
    ['http downgrade', 'http://auth.openai.com/oauth/authorize'],
    ['explicit other port', 'https://auth.openai.com:8443/oauth/authorize'],
    ['wrong path', 'https://auth.openai.com/oauth/authorize/'],
    ['path case', 'https://auth.openai.com/OAuth/authorize'],
  ])('refuses %s', (_name, base) => {
    const result = check(build({}, base));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.code).toBe('OAUTH_AUTHORIZATION_URL');
  });

  it('refuses userinfo in the URL', () => {
    expect(check(build({}, 'https://user:pw@auth.openai.com/oauth/authorize')).ok).toBe(false);
  });

  it('refuses a fragment', () => {
    expect(check(`${build()}#x`).ok).toBe(false);
  });

  it('refuses an extra parameter', () => {
    expect(check(build({}, undefined, [['prompt', 'none']])).ok).toBe(false);
  });

  it('refuses a repeated parameter', () => {
    expect(check(build({}, undefined, [['state', STATE]])).ok).toBe(false);
    expect(check(build({}, undefined, [['redirect_uri', redirectUri]])).ok).toBe(false);
  });

  it.each(['code_challenge', 'code_challenge_method', 'state', 'redirect_uri', 'client_id', 'response_type', 'scope'])(
    'refuses a missing %s',
    (name) => {
      expect(check(build({ [name]: null })).ok).toBe(false);
    },
  );

  it('refuses the plain method', () => {
    expect(check(build({ code_challenge_method: 'plain' })).ok).toBe(false);
  });

  it.each([
    ['too short', CHALLENGE.slice(1)],
    ['too long', `${CHALLENGE}A`],
    ['not base64url', `${CHALLENGE.slice(1)}+`],
  ])('refuses a challenge %s', (_name, challenge) => {
    expect(check(build({ code_challenge: challenge })).ok).toBe(false);
  });

  it.each([
    ['another port', chatgptRedirectUri(1457)],
    ['127.0.0.1', 'http://127.0.0.1:1455/auth/callback'],
    ['an attacker host', 'https://evil.test/auth/callback'],
    ['another path', 'http://localhost:1455/auth/callback2'],
  ])('refuses a redirect to %s', (_name, redirect) => {
    expect(check(build({ redirect_uri: redirect })).ok).toBe(false);
  });

  it('refuses another client id, response type or scope', () => {
    expect(check(build({ client_id: 'app_other' })).ok).toBe(false);
    expect(check(build({ response_type: 'token' })).ok).toBe(false);
    expect(check(build({ scope: 'openid profile email offline_access api.admin' })).ok).toBe(false);
  });

  it('refuses a short state', () => {
    expect(check(build({ state: 'abc' })).ok).toBe(false);
  });

  it('follows an issuer override exactly', () => {
    const local = resolveChatgptOAuthConfig({ env: {}, settings: { issuer: 'http://127.0.0.1:9999' } });
    const url = build({}, local.authorizationEndpoint);
    expect(checkAuthorizationUrl(url, { config: local, redirectUri }).ok).toBe(true);
    expect(checkAuthorizationUrl(build(), { config: local, redirectUri }).ok).toBe(false);
  });

  it('refusal messages carry no value from the URL', () => {
    const result = check(build({ code_challenge_method: 'plain-canary' }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).not.toContain('canary');
  });
});
