/**
 * SEC-008: the ChatGPT subscription OAuth profile, host-owned and in one place. Destinations,
 * callback address, ports and scopes are constants; the client id is the public native Codex
 * client, an experimental interoperability profile — not a Bastion-owned identity and not
 * approved by OpenAI. Only the host's own settings (never the renderer, a project or the daemon)
 * may override the client id (`BASTION_CHATGPT_CLIENT_ID`), the issuer or the Responses URL, for
 * tests and enterprise proxies; every override is logged as a warning, and the network grants and
 * the sidecar's bootstrap follow the effective values.
 */
import { randomBytes } from 'node:crypto';
import { SIDECAR_PASSWORD_BYTES, type ChatgptBootstrap, type Grant, type Logger } from '@bastion/protocol';
import { HostError } from '../errors.js';

export const CHATGPT_DEFAULT_ISSUER = 'https://auth.openai.com';
export const CHATGPT_AUTHORIZE_PATH = '/oauth/authorize';
export const CHATGPT_TOKEN_PATH = '/oauth/token';
export const CHATGPT_DEFAULT_RESPONSES_URL = 'https://chatgpt.com/backend-api/codex/responses';
/** The public client id of the native Codex app (an experimental profile; see the module comment). */
export const CHATGPT_PUBLIC_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
export const CHATGPT_CLIENT_ID_ENV = 'BASTION_CHATGPT_CLIENT_ID';
export const CHATGPT_SCOPE = 'openid profile email offline_access';
/** The callback host is the name `localhost`, as registered; the listener binds both loopbacks. */
export const CHATGPT_CALLBACK_HOSTNAME = 'localhost';
export const CHATGPT_CALLBACK_PATH = '/auth/callback';
/** The registered port, then the one fallback. */
export const CHATGPT_CALLBACK_PORTS: readonly number[] = Object.freeze([1455, 1457]);
/** Fixed authorization parameters of the profile, besides the PKCE/state/redirect ones. */
export const CHATGPT_FIXED_AUTHORIZATION_PARAMS: Readonly<Record<string, string>> = Object.freeze({
  response_type: 'code',
  scope: CHATGPT_SCOPE,
  code_challenge_method: 'S256',
  id_token_add_organizations: 'true',
  codex_cli_simplified_flow: 'true',
  originator: 'bastion',
});
/** Grant ids of the two ChatGPT destinations in the host's network authority. */
export const CHATGPT_AUTH_GRANT_ID = 'chatgpt-auth';
export const CHATGPT_RESPONSES_GRANT_ID = 'chatgpt-responses';

/** Host-owned overrides (host options, never a renderer or project value). */
export interface ChatgptOAuthSettings {
  /** Issuer origin, e.g. a loopback authorization server in tests. */
  issuer?: string;
  /** The Responses endpoint URL. */
  responsesUrl?: string;
  /** Callback ports to try in order (tests; the default is the registered 1455 then 1457). */
  callbackPorts?: readonly number[];
}

export interface ChatgptOAuthConfig {
  readonly clientId: string;
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly responsesUrl: string;
  readonly scope: string;
  readonly callbackPorts: readonly number[];
}

const CLIENT_ID = /^[A-Za-z0-9_.-]{1,128}$/;

/** An http(s) URL without query, fragment or credentials; `what` names the setting in errors. */
function parsePlainUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (cause) {
    throw new HostError('OAUTH_CONFIG', `${what} is not a URL`, { cause });
  }
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== ''
  ) {
    throw new HostError('OAUTH_CONFIG', `${what} must be an http(s) URL without query or credentials`);
  }
  return url;
}

/** An issuer override must be a bare origin: no path, query, fragment or credentials. */
function parseOrigin(value: string, what: string): string {
  const url = parsePlainUrl(value, what);
  if (url.pathname !== '/' && url.pathname !== '') {
    throw new HostError('OAUTH_CONFIG', `${what} must be an http(s) origin`);
  }
  return url.origin;
}

function parseEndpoint(value: string, what: string): string {
  return parsePlainUrl(value, what).href;
}

/** The effective profile: defaults, then host-owned overrides, each override logged as a warning. */
export function resolveChatgptOAuthConfig(
  options: { settings?: ChatgptOAuthSettings; env?: NodeJS.ProcessEnv; log?: Logger } = {},
): ChatgptOAuthConfig {
  const settings = options.settings ?? {};
  const env = options.env ?? process.env;
  const log = options.log;
  let clientId = CHATGPT_PUBLIC_CLIENT_ID;
  const clientOverride = env[CHATGPT_CLIENT_ID_ENV];
  if (clientOverride !== undefined && clientOverride !== '') {
    if (!CLIENT_ID.test(clientOverride))
      throw new HostError('OAUTH_CONFIG', `${CHATGPT_CLIENT_ID_ENV} is not a valid client id`);
    clientId = clientOverride;
    log?.warn('chatgpt.config-override', { reason: 'client-id' });
  }
  let issuer = CHATGPT_DEFAULT_ISSUER;
  if (settings.issuer !== undefined) {
    issuer = parseOrigin(settings.issuer, 'ChatGPT issuer override');
    log?.warn('chatgpt.config-override', { reason: 'issuer', origin: issuer });
  }
  let responsesUrl = CHATGPT_DEFAULT_RESPONSES_URL;
  if (settings.responsesUrl !== undefined) {
    responsesUrl = parseEndpoint(settings.responsesUrl, 'ChatGPT Responses override');
    log?.warn('chatgpt.config-override', { reason: 'responses-url', origin: new URL(responsesUrl).origin });
  }
  let callbackPorts = CHATGPT_CALLBACK_PORTS;
  if (settings.callbackPorts !== undefined) {
    if (
      settings.callbackPorts.length === 0 ||
      settings.callbackPorts.some((port) => !Number.isInteger(port) || port < 1 || port > 65_535)
    ) {
      throw new HostError('OAUTH_CONFIG', 'callback ports must be TCP ports');
    }
    callbackPorts = Object.freeze([...settings.callbackPorts]);
    log?.warn('chatgpt.config-override', { reason: 'callback-ports' });
  }
  return Object.freeze({
    clientId,
    issuer,
    authorizationEndpoint: `${issuer}${CHATGPT_AUTHORIZE_PATH}`,
    tokenEndpoint: `${issuer}${CHATGPT_TOKEN_PATH}`,
    responsesUrl,
    scope: CHATGPT_SCOPE,
    callbackPorts,
  });
}

/** The exact redirect URI for a callback port. */
export function chatgptRedirectUri(port: number): string {
  return `http://${CHATGPT_CALLBACK_HOSTNAME}:${port}${CHATGPT_CALLBACK_PATH}`;
}

/**
 * Built-in grants with the two ChatGPT destinations replaced by the effective ones, so the
 * transport reaches exactly the configured token and Responses origins and nothing else.
 */
export function withChatgptGrants(builtins: readonly Grant[], config: ChatgptOAuthConfig): Grant[] {
  const others = builtins.filter(
    (grant) => grant.grant_id !== CHATGPT_AUTH_GRANT_ID && grant.grant_id !== CHATGPT_RESPONSES_GRANT_ID,
  );
  return [
    ...others,
    { grant_id: CHATGPT_AUTH_GRANT_ID, origin: new URL(config.tokenEndpoint).origin, op: 'provider', kind: 'builtin' },
    {
      grant_id: CHATGPT_RESPONSES_GRANT_ID,
      origin: new URL(config.responsesUrl).origin,
      op: 'provider',
      kind: 'builtin',
    },
  ];
}

/** What one sidecar spawn is told: the effective profile and a fresh host key for `/auth/chatgpt/*`. */
export function chatgptBootstrap(config: ChatgptOAuthConfig): ChatgptBootstrap {
  return {
    host_key: randomBytes(SIDECAR_PASSWORD_BYTES).toString('base64url'),
    client_id: config.clientId,
    issuer: config.issuer,
    authorization_endpoint: config.authorizationEndpoint,
    token_endpoint: config.tokenEndpoint,
    responses_url: config.responsesUrl,
    scope: config.scope,
  };
}
