/**
 * SEC-008: the only way ChatGPT token requests leave the sidecar. oauth4webapi builds and
 * processes the code exchange and the refresh; its fetch is pinned here to the exact configured
 * token endpoint (POST) through the host-routed transport, and the response is read
 * up to CHATGPT_TOKEN_RESPONSE_MAX_BYTES before oauth4webapi sees it. Account and display claims
 * are read only from that response's ID token. The ID token's signature is not verified (no
 * JWKS): trust in its claims comes from the pinned endpoint and the host's TLS route, which is the
 * accepted limit of this experimental profile.
 */
import * as oauth from 'oauth4webapi';
import { z } from 'zod';
import {
  CHATGPT_MAX_ACCOUNT_ID_CHARS,
  CHATGPT_MAX_EMAIL_CHARS,
  CHATGPT_MAX_PLAN_CHARS,
  CHATGPT_MAX_TOKEN_CHARS,
  CHATGPT_TOKEN_RESPONSE_MAX_BYTES,
  type ChatgptBootstrap,
} from '@bastion/protocol';
import type { ProviderFetch } from '../providers/provider-registry.js';

/** What a successful token response yields. */
export interface TokenGrant {
  access: string;
  /** Absent when a refresh response did not rotate the refresh token. */
  refresh: string | undefined;
  expires: number;
  claims: AccountClaims | undefined;
}

export interface AccountClaims {
  account_id: string;
  email?: string;
  plan?: string;
}

/** Thrown for every token-endpoint failure; `permanent` when the grant itself is dead (reconnect). */
export class TokenEndpointFailure extends Error {
  constructor(readonly permanent: boolean) {
    super(permanent ? 'the grant was refused' : 'the token request failed');
  }
}

/** OAuth error codes that mean the refresh token can never work again. */
const PERMANENT_REFRESH_ERRORS = new Set([
  'invalid_grant',
  'refresh_token_reused',
  'refresh_token_expired',
  'refresh_token_invalidated',
  'unauthorized_client',
]);

const OPENAI_AUTH_CLAIM = 'https://api.openai.com/auth';
const accountClaimSchema = z.object({
  chatgpt_account_id: z
    .string()
    .min(1)
    .max(CHATGPT_MAX_ACCOUNT_ID_CHARS)
    .regex(/^[A-Za-z0-9_.:-]+$/),
  chatgpt_plan_type: z
    .string()
    .max(CHATGPT_MAX_PLAN_CHARS)
    .regex(/^[A-Za-z0-9_ -]*$/)
    .optional(),
});
const emailSchema = z.email().max(CHATGPT_MAX_EMAIL_CHARS);
const tokenSchema = z.string().min(1).max(CHATGPT_MAX_TOKEN_CHARS);

async function readCapped(response: Response): Promise<Uint8Array<ArrayBuffer>> {
  const reader: ReadableStreamDefaultReader<Uint8Array> | undefined = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > CHATGPT_TOKEN_RESPONSE_MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new TokenEndpointFailure(false);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

export class ChatgptTokenEndpoint {
  readonly #as: oauth.AuthorizationServer;
  readonly #client: oauth.Client;
  readonly #tokenEndpoint: string;
  readonly #fetch: ProviderFetch;

  constructor(config: ChatgptBootstrap, fetch: ProviderFetch) {
    this.#as = {
      issuer: config.issuer,
      authorization_endpoint: config.authorization_endpoint,
      token_endpoint: config.token_endpoint,
    };
    this.#client = { client_id: config.client_id };
    this.#tokenEndpoint = config.token_endpoint;
    this.#fetch = fetch;
  }

  /**
   * The pinned fetch oauth4webapi uses: the exact endpoint, POST, capped body, and a 3xx refused.
   * `redirect: 'manual'` travels in the request.start frame, so the host relays a 3xx here instead
   * of following it: no other origin's answer can stand in for the token endpoint's.
   */
  readonly #pinnedFetch = async (url: string, init: RequestInit): Promise<Response> => {
    if (url !== this.#tokenEndpoint || init.method !== 'POST') throw new TokenEndpointFailure(false);
    const response = await this.#fetch(url, { ...init, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new TokenEndpointFailure(false);
    }
    const body = await readCapped(response);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  #options(signal: AbortSignal): oauth.TokenEndpointRequestOptions {
    return {
      [oauth.customFetch]: this.#pinnedFetch,
      // A host-owned issuer override may be a loopback http server (tests); the default is https.
      [oauth.allowInsecureRequests]: new URL(this.#tokenEndpoint).protocol === 'http:',
      signal,
    };
  }

  async exchange(input: {
    code: string;
    state: string;
    redirectUri: string;
    verifier: string;
    signal: AbortSignal;
  }): Promise<TokenGrant> {
    try {
      const params = oauth.validateAuthResponse(
        this.#as,
        this.#client,
        new URLSearchParams({ code: input.code, state: input.state }),
        input.state,
      );
      const response = await oauth.authorizationCodeGrantRequest(
        this.#as,
        this.#client,
        oauth.None(),
        params,
        input.redirectUri,
        input.verifier,
        this.#options(input.signal),
      );
      const result = await oauth.processAuthorizationCodeResponse(this.#as, this.#client, response, {
        requireIdToken: true,
      });
      const grant = this.#grant(result);
      if (!grant.refresh || !grant.claims) throw new TokenEndpointFailure(false);
      return grant;
    } catch (error) {
      if (error instanceof TokenEndpointFailure) throw error;
      throw new TokenEndpointFailure(false);
    }
  }

  async refresh(refreshToken: string, signal: AbortSignal): Promise<TokenGrant> {
    try {
      const response = await oauth.refreshTokenGrantRequest(
        this.#as,
        this.#client,
        oauth.None(),
        refreshToken,
        this.#options(signal),
      );
      const result = await oauth.processRefreshTokenResponse(this.#as, this.#client, response);
      return this.#grant(result);
    } catch (error) {
      if (error instanceof TokenEndpointFailure) throw error;
      const permanent = error instanceof oauth.ResponseBodyError && PERMANENT_REFRESH_ERRORS.has(error.error);
      throw new TokenEndpointFailure(permanent);
    }
  }

  #grant(result: oauth.TokenEndpointResponse): TokenGrant {
    const access = tokenSchema.safeParse(result.access_token);
    const refresh = result.refresh_token === undefined ? undefined : tokenSchema.safeParse(result.refresh_token);
    if (!access.success || (refresh && !refresh.success)) throw new TokenEndpointFailure(false);
    const expiresIn = typeof result.expires_in === 'number' && result.expires_in > 0 ? result.expires_in : 3600;
    return {
      access: access.data,
      refresh: refresh?.data,
      expires: Date.now() + expiresIn * 1000,
      claims: accountClaims(oauth.getValidatedIdTokenClaims(result)),
    };
  }
}

function accountClaims(idToken: oauth.IDToken | undefined): AccountClaims | undefined {
  if (!idToken) return undefined;
  const account = accountClaimSchema.safeParse(idToken[OPENAI_AUTH_CLAIM]);
  if (!account.success) throw new TokenEndpointFailure(false);
  const email = emailSchema.safeParse(idToken.email);
  return {
    account_id: account.data.chatgpt_account_id,
    ...(email.success ? { email: email.data } : {}),
    ...(account.data.chatgpt_plan_type ? { plan: account.data.chatgpt_plan_type } : {}),
  };
}
