/**
 * Test support: a small real authorization server and a Responses server on loopback, sharing one
 * token table. The authorization server verifies PKCE S256 (a wrong verifier is `invalid_grant`),
 * binds each code to its redirect and client, issues RS256-signed ID tokens carrying the ChatGPT
 * account claims, rotates refresh tokens and answers a reused one with `refresh_token_reused`.
 * The Responses server speaks the streaming Responses format and checks the subscription headers.
 * Every token value contains CANARY so scans can find any leak.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CANARY = 'CANARY';

export interface Account {
  accountId: string;
  email: string;
  plan: string;
}

export interface ResponsesCall {
  authorization: string | undefined;
  accountId: string | undefined;
  originator: string | undefined;
  body: { model?: string; stream?: boolean; store?: boolean; input?: unknown };
}

interface CodeGrant {
  challenge: string;
  redirectUri: string;
  clientId: string;
  account: Account;
  used: boolean;
}

export interface Gate {
  promise: Promise<void>;
  release: () => void;
}

export function gate(): Gate {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

function base64url(value: Buffer | string): string {
  return Buffer.from(value).toString('base64url');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export class FakeChatgpt {
  issuer = '';
  responsesUrl = '';
  clientId = '';
  /** The account the next authorization is for. */
  account: Account = { accountId: `acct-${CANARY}-one`, email: 'one@example.test', plan: 'plus' };
  readonly #key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  readonly #codes = new Map<string, CodeGrant>();
  /** Live access tokens → account. */
  readonly #access = new Map<string, Account>();
  /** Refresh tokens → account and whether already used. */
  readonly #refresh = new Map<string, { account: Account; used: boolean }>();
  readonly #servers: Server[] = [];
  #serial = 0;
  /** Counters the races are asserted on. */
  tokenRequests = { code: 0, refresh: 0, pkceFailures: 0 };
  readonly responsesCalls: ResponsesCall[] = [];
  /** Held refreshes wait for this gate (set by a test). */
  refreshGate: Gate | undefined;
  /** Resolves each time a refresh request arrives (before the gate). */
  onRefresh: (() => void) | undefined;
  /** Answer every refresh with this OAuth error instead. */
  refreshError: string | undefined;
  /** Access tokens the Responses server treats as expired (401). */
  readonly expired = new Set<string>();
  /** Status the Responses server answers instead of streaming (429, 403…). */
  responsesStatus: number | undefined;
  /** The first Responses call for a token waits for this gate after sending headers. */
  responsesGate: Gate | undefined;
  /** Text the model streams. */
  text = ['Hello', ' from', ' ChatGPT.'];

  async start(): Promise<this> {
    const auth = createServer((req, res) => void this.#authorizationServer(req, res));
    const responses = createServer((req, res) => void this.#responsesServer(req, res));
    this.#servers.push(auth, responses);
    this.issuer = await listen(auth);
    this.responsesUrl = `${await listen(responses)}/backend-api/codex/responses`;
    return this;
  }

  async stop(): Promise<void> {
    await Promise.all(this.#servers.map(close));
  }

  /** Every token this server ever issued (for canary scans). */
  get issuedSecrets(): string[] {
    return [...this.#access.keys(), ...this.#refresh.keys(), ...this.#codes.keys()];
  }

  isLive(access: string): boolean {
    return this.#access.has(access) && !this.expired.has(access);
  }

  /** Plays the browser: follows the authorization URL to the redirect the server chose. */
  async authorize(authorizationUrl: string): Promise<string> {
    const response = await fetch(authorizationUrl, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status !== 302 || !location) throw new Error(`authorize answered ${response.status}`);
    return location;
  }

  /** New tokens for `account`, as the token endpoint's success body. */
  #issue(account: Account): Record<string, unknown> {
    this.#serial += 1;
    const access = `access-${CANARY}-${this.#serial}-${randomBytes(6).toString('hex')}`;
    const refresh = `refresh-${CANARY}-${this.#serial}-${randomBytes(6).toString('hex')}`;
    this.#access.set(access, account);
    this.#refresh.set(refresh, { account, used: false });
    const now = Math.floor(Date.now() / 1000);
    const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'test' }));
    const payload = base64url(
      JSON.stringify({
        iss: this.issuer,
        aud: this.clientId,
        sub: `user-${account.accountId}`,
        iat: now,
        exp: now + 3600,
        email: account.email,
        'https://api.openai.com/auth': { chatgpt_account_id: account.accountId, chatgpt_plan_type: account.plan },
      }),
    );
    const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), this.#key);
    return {
      access_token: access,
      refresh_token: refresh,
      id_token: `${header}.${payload}.${base64url(signature)}`,
      token_type: 'Bearer',
      expires_in: 3600,
    };
  }

  async #authorizationServer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      const p = url.searchParams;
      const redirect = p.get('redirect_uri');
      if (
        p.get('response_type') !== 'code' ||
        p.get('code_challenge_method') !== 'S256' ||
        !p.get('code_challenge') ||
        !redirect
      ) {
        json(res, 400, { error: 'invalid_request' });
        return;
      }
      this.clientId = p.get('client_id') ?? '';
      const code = `code-${CANARY}-${randomBytes(8).toString('hex')}`;
      this.#codes.set(code, {
        challenge: p.get('code_challenge') ?? '',
        redirectUri: redirect,
        clientId: this.clientId,
        account: this.account,
        used: false,
      });
      const target = new URL(redirect);
      target.searchParams.set('code', code);
      target.searchParams.set('state', p.get('state') ?? '');
      target.searchParams.set('scope', p.get('scope') ?? '');
      res.writeHead(302, { location: target.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      const form = new URLSearchParams(await readBody(req));
      if (form.get('grant_type') === 'authorization_code') {
        this.tokenRequests.code += 1;
        const grant = this.#codes.get(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          !grant ||
          grant.used ||
          grant.redirectUri !== form.get('redirect_uri') ||
          grant.clientId !== form.get('client_id')
        ) {
          json(res, 400, { error: 'invalid_grant', error_description: `code ${CANARY} is not valid` });
          return;
        }
        if (challenge !== grant.challenge) {
          this.tokenRequests.pkceFailures += 1;
          json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
          return;
        }
        grant.used = true;
        json(res, 200, this.#issue(grant.account));
        return;
      }
      if (form.get('grant_type') === 'refresh_token') {
        this.tokenRequests.refresh += 1;
        this.onRefresh?.();
        await this.refreshGate?.promise;
        if (this.refreshError) {
          json(res, 401, { error: this.refreshError, error_description: `refresh ${CANARY} refused` });
          return;
        }
        const old = this.#refresh.get(form.get('refresh_token') ?? '');
        if (!old || old.used) {
          json(res, 401, { error: 'refresh_token_reused' });
          return;
        }
        old.used = true;
        json(res, 200, this.#issue(old.account));
        return;
      }
      json(res, 400, { error: 'unsupported_grant_type' });
      return;
    }
    json(res, 404, { error: 'not_found' });
  }

  async #responsesServer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    if (req.method !== 'POST' || req.url !== '/backend-api/codex/responses') {
      json(res, 404, { error: { message: 'not found' } });
      return;
    }
    const call: ResponsesCall = {
      authorization: req.headers.authorization,
      accountId: req.headers['chatgpt-account-id'] as string | undefined,
      originator: req.headers.originator as string | undefined,
      body: JSON.parse(text) as ResponsesCall['body'],
    };
    this.responsesCalls.push(call);
    const access = call.authorization?.replace(/^Bearer /, '') ?? '';
    const account = this.#access.get(access);
    if (!account || this.expired.has(access) || call.accountId !== account.accountId) {
      json(res, 401, { error: { message: `token ${CANARY} expired`, code: 'token_expired' } });
      return;
    }
    if (this.responsesStatus !== undefined) {
      json(res, this.responsesStatus, {
        error: { message: `limit for ${account.accountId} ${CANARY}`, type: 'usage_limit_reached' },
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    const send = (event: Record<string, unknown>) =>
      res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
    const created = Math.floor(Date.now() / 1000);
    const response = {
      id: 'resp_1',
      object: 'response',
      created_at: created,
      model: call.body.model,
      status: 'in_progress',
      output: [],
    };
    send({ type: 'response.created', sequence_number: 0, response });
    send({
      type: 'response.output_item.added',
      sequence_number: 1,
      output_index: 0,
      item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] },
    });
    const gateNow = this.responsesGate;
    if (gateNow) await gateNow.promise;
    let sequence = 2;
    for (const delta of this.text) {
      send({
        type: 'response.output_text.delta',
        sequence_number: sequence++,
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
      });
    }
    const full = this.text.join('');
    send({
      type: 'response.output_item.done',
      sequence_number: sequence++,
      output_index: 0,
      item: {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: full, annotations: [] }],
      },
    });
    send({
      type: 'response.completed',
      sequence_number: sequence,
      response: {
        ...response,
        status: 'completed',
        usage: {
          input_tokens: 5,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 3,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 8,
        },
      },
    });
    res.end();
  }
}
