import { describe, expect, it } from 'vitest';
import { createLogger, type LogRecord } from '@bastion/protocol';
import { BUILTIN_GRANTS } from '../network/builtin-grants.js';
import {
  CHATGPT_PUBLIC_CLIENT_ID,
  chatgptRedirectUri,
  resolveChatgptOAuthConfig,
  withChatgptGrants,
} from './chatgpt-oauth-config.js';

function capture() {
  const records: LogRecord[] = [];
  return { records, log: createLogger('host', (record) => records.push(record)) };
}

describe('ChatGPT OAuth configuration', () => {
  it('defaults to the exact destinations, callback and scopes, without warnings', () => {
    const { records, log } = capture();
    const config = resolveChatgptOAuthConfig({ env: {}, log });
    expect(config).toEqual({
      clientId: CHATGPT_PUBLIC_CLIENT_ID,
      issuer: 'https://auth.openai.com',
      authorizationEndpoint: 'https://auth.openai.com/oauth/authorize',
      tokenEndpoint: 'https://auth.openai.com/oauth/token',
      responsesUrl: 'https://chatgpt.com/backend-api/codex/responses',
      scope: 'openid profile email offline_access',
      callbackPorts: [1455, 1457],
    });
    expect(chatgptRedirectUri(1455)).toBe('http://localhost:1455/auth/callback');
    expect(records).toEqual([]);
  });

  it('takes the client id override from BASTION_CHATGPT_CLIENT_ID and warns', () => {
    const { records, log } = capture();
    const config = resolveChatgptOAuthConfig({ env: { BASTION_CHATGPT_CLIENT_ID: 'app_enterprise-1' }, log });
    expect(config.clientId).toBe('app_enterprise-1');
    expect(records.map((record) => [record.level, record.event, record.fields.reason])).toEqual([
      ['warn', 'chatgpt.config-override', 'client-id'],
    ]);
  });

  it('refuses a malformed client id override', () => {
    expect(() => resolveChatgptOAuthConfig({ env: { BASTION_CHATGPT_CLIENT_ID: 'a b&c' } })).toThrow(/client id/);
  });

  it('issuer and Responses overrides move every endpoint and warn', () => {
    const { records, log } = capture();
    const config = resolveChatgptOAuthConfig({
      env: {},
      log,
      settings: { issuer: 'http://127.0.0.1:4010', responsesUrl: 'http://127.0.0.1:4011/backend-api/codex/responses' },
    });
    expect(config.authorizationEndpoint).toBe('http://127.0.0.1:4010/oauth/authorize');
    expect(config.tokenEndpoint).toBe('http://127.0.0.1:4010/oauth/token');
    expect(config.responsesUrl).toBe('http://127.0.0.1:4011/backend-api/codex/responses');
    expect(records.filter((record) => record.level === 'warn').map((record) => record.fields.reason)).toEqual([
      'issuer',
      'responses-url',
    ]);
  });

  it.each([
    'https://auth.openai.com/evil',
    'https://u:p@auth.openai.com',
    'ftp://auth.openai.com',
    'https://auth.openai.com?x=1',
    'not a url',
  ])('refuses issuer override %s', (issuer) => {
    expect(() => resolveChatgptOAuthConfig({ env: {}, settings: { issuer } })).toThrow();
  });

  it('the grants follow the effective configuration and keep every other built-in', () => {
    const config = resolveChatgptOAuthConfig({
      env: {},
      settings: { issuer: 'http://127.0.0.1:4010', responsesUrl: 'http://127.0.0.1:4011/r' },
    });
    const grants = withChatgptGrants(BUILTIN_GRANTS, config);
    expect(grants.filter((grant) => grant.grant_id.startsWith('chatgpt'))).toEqual([
      { grant_id: 'chatgpt-auth', origin: 'http://127.0.0.1:4010', op: 'provider', kind: 'builtin' },
      { grant_id: 'chatgpt-responses', origin: 'http://127.0.0.1:4011', op: 'provider', kind: 'builtin' },
    ]);
    expect(grants.some((grant) => grant.origin === 'https://auth.openai.com')).toBe(false);
    expect(grants.filter((grant) => !grant.grant_id.startsWith('chatgpt'))).toEqual(
      BUILTIN_GRANTS.filter((grant) => !grant.grant_id.startsWith('chatgpt')),
    );
  });

  it('the default grants are exactly the two ChatGPT origins', () => {
    const grants = withChatgptGrants(BUILTIN_GRANTS, resolveChatgptOAuthConfig({ env: {} }));
    expect(grants.filter((grant) => grant.grant_id.startsWith('chatgpt')).map((grant) => grant.origin)).toEqual([
      'https://auth.openai.com',
      'https://chatgpt.com',
    ]);
  });
});
