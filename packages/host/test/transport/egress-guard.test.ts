/**
 * The secret-egress guard in the host's provider executor, through the daemon's real transport
 * fetch and a real loopback endpoint that records every byte it receives. A request carrying a
 * credential Bastion holds for another destination, the ChatGPT refresh token, a private-key
 * block or a cloud access key — in its body, a header's name or value, or its URL (percent-encoded
 * too) — is refused with EGRESS_SECRET naming the kind; the endpoint never receives the secret
 * (not even its first half when it is split across body chunks; a request whose URL or headers
 * carry one never reaches it), and nothing of the blocked request is in any log record. The
 * endpoint's own key passes, so the refusals are the guard's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { CHANNEL_MAX_BODY_CHUNK_BYTES, createLogger, type LogRecord } from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { EgressGuard } from '../../src/network/egress-guard.js';
import { makeTempDir, startServer, type TestServer } from '@bastion/test-support';
import { FORMAT_SAMPLES, join2, letters } from '../support/secret-samples.js';
import { failureCode, startFetchPair, type FetchPair } from './transport-harness.js';

const OWN_KEY = join2('own-', 'endpoint-', letters(32, 'e5f6'));
const ANTHROPIC_KEY = join2('held-', 'anthropic-', letters(32, 'a7b8'));
const CHATGPT_ACCESS = join2('eyJ', 'held-access-', letters(40, 'c9d0'));
const CHATGPT_REFRESH = join2('rt_', 'held-refresh-', letters(40, 'f1g2'));
const BODY_CANARY = 'CANARY-egress-body-7d1e';
const MCP_TOKEN = join2('mcp-', 'docs-token-', letters(32, 'h3j4'));

let server: TestServer;
let received: Buffer[];
let pair: FetchPair;
let origin: string;
let userData: string;
let guard: EgressGuard;
/** What the guard logged (`egress.held` each time its record of auth.json changed). */
let guardRecords: LogRecord[];

/** Where `/v1/redirect` sends its caller (a test's second granted origin). */
let redirectTo = '';

function record(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/v1/redirect') {
    res.writeHead(307, { location: redirectTo }).end();
    return;
  }
  req.on('data', (chunk: Buffer) => received.push(chunk));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
}

beforeEach(async () => {
  received = [];
  server = await startServer(record);
  origin = server.origin;
  userData = makeTempDir('bastion-egress-guard-');
  writeFileSync(
    join(userData, 'auth.json'),
    JSON.stringify({
      version: 1,
      entries: {
        local: { type: 'api', key: OWN_KEY },
        anthropic: { type: 'api', key: ANTHROPIC_KEY },
        chatgpt: { type: 'oauth', access: CHATGPT_ACCESS, refresh: CHATGPT_REFRESH, expires: 0, account_id: 'acct' },
      },
    }),
    { mode: 0o600 },
  );
  writeFileSync(
    join(userData, 'endpoints.json'),
    JSON.stringify({ version: 1, endpoints: [{ id: 'local', base_url: `${origin}/v1` }] }),
    { mode: 0o600 },
  );
  guardRecords = [];
  guard = new EgressGuard({ userData, log: createLogger('host', (record) => guardRecords.push(record)) });
  pair = startFetchPair({ egress: guard });
  await pair.grant(origin);
  await pair.synced();
});

afterEach(async () => {
  pair.close();
  guard.close();
  await server.close();
});

const all = () => Buffer.concat(received).toString('latin1');

function post(body: string, headers: Record<string, string> = {}) {
  return pair.transport.fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${OWN_KEY}`, ...headers },
    body,
  });
}

/** Every byte of `text` as `%XX`, as a URL may carry any character. */
const percentEncoded = (text: string) =>
  [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

function expectNothingLogged(...values: string[]): void {
  const logged = JSON.stringify(pair.records);
  for (const value of [...values, BODY_CANARY]) expect(logged).not.toContain(value);
}

function blockedKind(): unknown {
  return pair.records.filter((entry) => entry.event === 'egress.blocked').at(-1)?.fields.kind;
}

describeAttack('secret-egress', 'egress guard: a request carrying a secret never reaches the provider', () => {
  it('control: the endpoint’s own key in the header and an ordinary body pass', async () => {
    const response = await post(JSON.stringify({ messages: [{ role: 'user', content: BODY_CANARY }] }));
    expect(response.status).toBe(200);
    expect(all()).toContain(BODY_CANARY);
  });

  it('another provider’s key in the body → EGRESS_SECRET credential:anthropic; the endpoint never gets it', async () => {
    const code = await failureCode(post(JSON.stringify({ content: `${BODY_CANARY} ${ANTHROPIC_KEY}` })));
    expect(code).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('credential:anthropic');
    expect(all()).not.toContain(ANTHROPIC_KEY);
    expectNothingLogged(ANTHROPIC_KEY);
  });

  it.each([0, 1, 2])(
    'another provider’s key in base64 and in base64url, %i bytes into a 3-byte group → EGRESS_SECRET credential:anthropic; the endpoint never gets its encoding',
    async (lead) => {
      const bytes = Buffer.from(`${'~'.repeat(lead)}${ANTHROPIC_KEY}~`);
      for (const encoding of ['base64', 'base64url'] as const) {
        const encoded = bytes.toString(encoding);
        expect(encoded).not.toContain(ANTHROPIC_KEY);
        const code = await failureCode(post(JSON.stringify({ content: BODY_CANARY, attachment: encoded })));
        expect(code).toBe('EGRESS_SECRET');
        expect(blockedKind()).toBe('credential:anthropic');
        // The groups holding only the key's bytes: what every encoding of it shares.
        expect(all()).not.toContain(encoded.slice(4, -4));
        expectNothingLogged(ANTHROPIC_KEY, encoded.slice(4, -4));
      }
    },
  );

  it('control: the endpoint’s own key in base64, as a Basic authorization header carries it, passes', async () => {
    const basic = Buffer.from(`user:${OWN_KEY}`).toString('base64');
    const response = await post(JSON.stringify({ content: BODY_CANARY }), { authorization: `Basic ${basic}` });
    expect(response.status).toBe(200);
    expect(all()).toContain(BODY_CANARY);
  });

  it('another credential in base64 in a header is refused before any connection: the endpoint is never reached', async () => {
    const basic = Buffer.from(`user:${CHATGPT_REFRESH}`).toString('base64');
    expect(await failureCode(post('{}', { 'x-extra': `Basic ${basic}` }))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('credential:chatgpt-refresh');
    expect(server.hits).toBe(0);
  });

  it('a variable the user gave an MCP server (its token) in the body, as written and in base64 → EGRESS_SECRET mcp-env:SERVER:NAME; the endpoint never gets it', async () => {
    mkdirSync(join(userData, 'host'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(userData, 'host', 'mcp.json'),
      JSON.stringify({
        version: 1,
        servers: [{ name: 'docs', command: 'docs-server', args: [], env: { DOCS_TOKEN: MCP_TOKEN, MODE: 'fast' } }],
      }),
      { mode: 0o600 },
    );
    expect(await failureCode(post(JSON.stringify({ content: `${BODY_CANARY} ${MCP_TOKEN}` })))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('mcp-env:docs:docs-token');
    expect(all()).not.toContain(MCP_TOKEN);
    expectNothingLogged(MCP_TOKEN);
    const encoded = Buffer.from(MCP_TOKEN).toString('base64');
    expect(await failureCode(post(JSON.stringify({ content: BODY_CANARY, attachment: encoded })))).toBe(
      'EGRESS_SECRET',
    );
    expect(blockedKind()).toBe('mcp-env:docs:docs-token');
    expect(all()).not.toContain(encoded.slice(0, -4));
  });

  it('a variable holding a quote and a backslash (a password), as a JSON body carries it escaped → EGRESS_SECRET; the endpoint never gets it', async () => {
    const password = `pw-"${letters(24, 'k5m6')}"\\end`;
    const escaped = JSON.stringify(password).slice(1, -1);
    mkdirSync(join(userData, 'host'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(userData, 'host', 'mcp.json'),
      JSON.stringify({
        version: 1,
        servers: [{ name: 'db', command: 'db-server', args: [], env: { DB_PASSWORD: password } }],
      }),
      { mode: 0o600 },
    );
    expect(await failureCode(post(JSON.stringify({ content: `${BODY_CANARY} ${password}` })))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('mcp-env:db:db-password');
    expect(all()).not.toContain(escaped);
    expectNothingLogged(password, escaped);
  });

  it('a variable whose name makes the kind too long is named by its server; a value too short to tell from text is not held', async () => {
    const longName = `TOKEN_${'X'.repeat(60)}`;
    mkdirSync(join(userData, 'host'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(userData, 'host', 'mcp.json'),
      JSON.stringify({
        version: 1,
        servers: [{ name: 'docs', command: 'docs-server', args: [], env: { [longName]: MCP_TOKEN, MODE: 'fast' } }],
      }),
      { mode: 0o600 },
    );
    expect((await post(JSON.stringify({ content: `${BODY_CANARY} fast` }))).status).toBe(200);
    expect(all()).toContain(BODY_CANARY);
    expect(await failureCode(post(JSON.stringify({ content: MCP_TOKEN })))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('mcp-env:docs');
    expect(all()).not.toContain(MCP_TOKEN);
  });

  it('an mcp.json that is not JSON blocks every request EGRESS_GUARD_UNAVAILABLE: the guard does not guess', async () => {
    mkdirSync(join(userData, 'host'), { recursive: true, mode: 0o700 });
    writeFileSync(join(userData, 'host', 'mcp.json'), '{"version": 1, "servers": [', { mode: 0o600 });
    expect(await failureCode(post(JSON.stringify({ content: BODY_CANARY })))).toBe('EGRESS_GUARD_UNAVAILABLE');
    expect(all()).not.toContain(BODY_CANARY);
  });

  it('the ChatGPT refresh token in the body → EGRESS_SECRET credential:chatgpt-refresh', async () => {
    expect(await failureCode(post(JSON.stringify({ content: CHATGPT_REFRESH })))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('credential:chatgpt-refresh');
    expect(all()).not.toContain(CHATGPT_REFRESH);
    expectNothingLogged(CHATGPT_REFRESH);
  });

  it.each(FORMAT_SAMPLES.filter(([kind]) => kind === 'private-key-block' || kind === 'aws-access-key-id'))(
    'a %s in the body → EGRESS_SECRET naming the kind',
    async (kind, sample) => {
      expect(await failureCode(post(JSON.stringify({ content: `${BODY_CANARY} ${sample} ` })))).toBe('EGRESS_SECRET');
      expect(blockedKind()).toBe(kind);
      expect(all()).not.toContain(sample);
      expectNothingLogged(sample);
    },
  );

  it('a cloud key as the last bytes of the body (decided only at its end) → EGRESS_SECRET; the endpoint never gets it', async () => {
    const sample = FORMAT_SAMPLES.find(([kind]) => kind === 'aws-access-key-id')?.[1] as string;
    expect(await failureCode(post(`${BODY_CANARY} ${sample}`))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('aws-access-key-id');
    expect(all()).not.toContain(sample);
    expectNothingLogged(sample);
  });

  it('another credential in a header is refused before any connection: the endpoint is never reached', async () => {
    expect(await failureCode(post('{}', { 'x-extra': CHATGPT_ACCESS }))).toBe('EGRESS_SECRET');
    expect(server.hits).toBe(0);
    expectNothingLogged(CHATGPT_ACCESS);
  });

  it('another credential as a header’s name is refused before any connection: the endpoint is never reached', async () => {
    expect(await failureCode(post('{}', { [`x-${ANTHROPIC_KEY}`]: '1' }))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('credential:anthropic');
    expect(server.hits).toBe(0);
    expectNothingLogged(ANTHROPIC_KEY);
  });

  it('control: an ordinary query in the URL passes, and so does the endpoint’s own key there, percent-encoded too', async () => {
    for (const query of ['api-version=2024-10-21&limit=20', `key=${OWN_KEY}`, `key=${percentEncoded(OWN_KEY)}`]) {
      const response = await pair.transport.fetch(`${origin}/v1/models?${query}`);
      expect(response.status).toBe(200);
    }
    expect(server.hits).toBe(3);
  });

  it.each([
    ['in the query', (key: string) => `/v1/chat/completions?k=${key}`],
    ['in the path', (key: string) => `/v1/${key}/completions`],
    ['percent-encoded byte by byte in the query', (key: string) => `/v1/models?k=${percentEncoded(key)}`],
  ])(
    'another credential %s → EGRESS_SECRET before any connection: the endpoint is never reached, the key in no log',
    async (_where, url) => {
      const response = pair.transport.fetch(`${origin}${url(ANTHROPIC_KEY)}`, { method: 'POST', body: '{}' });
      expect(await failureCode(response)).toBe('EGRESS_SECRET');
      expect(blockedKind()).toBe('credential:anthropic');
      expect(server.hits).toBe(0);
      expectNothingLogged(ANTHROPIC_KEY, percentEncoded(ANTHROPIC_KEY));
    },
  );

  it('a cloud access key in the URL → EGRESS_SECRET naming the kind; the endpoint is never reached', async () => {
    const sample = FORMAT_SAMPLES.find(([kind]) => kind === 'aws-access-key-id')?.[1] as string;
    expect(await failureCode(pair.transport.fetch(`${origin}/v1/models?q=${sample}`))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('aws-access-key-id');
    expect(server.hits).toBe(0);
    expectNothingLogged(sample);
  });

  it('a body in a content-encoding (gzip, hiding a key from the scan) is refused before any connection: the endpoint is never reached', async () => {
    const body = gzipSync(JSON.stringify({ content: `${BODY_CANARY} ${ANTHROPIC_KEY}` }));
    expect(body.toString('latin1')).not.toContain(ANTHROPIC_KEY);
    const response = pair.transport.fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    expect(await failureCode(response)).toBe('TRANSPORT_HEADER_FORBIDDEN');
    expect(server.hits).toBe(0);
    expectNothingLogged(ANTHROPIC_KEY);
  });

  it('a sidecar that moves another provider’s key under the endpoint’s own entry in auth.json, or copies it there, still cannot send it there: EGRESS_SECRET credential:anthropic', async () => {
    const moved = { local: { type: 'api', key: ANTHROPIC_KEY } };
    const copied = { local: { type: 'api', key: ANTHROPIC_KEY }, anthropic: { type: 'api', key: ANTHROPIC_KEY } };
    for (const entries of [moved, copied]) {
      writeFileSync(join(userData, 'auth.json'), JSON.stringify({ version: 1, entries }), { mode: 0o600 });
      const code = await failureCode(
        post(JSON.stringify({ content: `${BODY_CANARY} ${ANTHROPIC_KEY}` }), {
          authorization: `Bearer ${ANTHROPIC_KEY}`,
        }),
      );
      expect(code).toBe('EGRESS_SECRET');
      expect(blockedKind()).toBe('credential:anthropic');
    }
    expect(server.hits).toBe(0);
    expectNothingLogged(ANTHROPIC_KEY);
  });

  it('control: a key the user moves to the endpoint’s entry in two steps (removed, then set there) goes to the endpoint', async () => {
    const write = async (entries: object) => {
      const seen = guardRecords.length;
      writeFileSync(join(userData, 'auth.json'), JSON.stringify({ version: 1, entries }), { mode: 0o600 });
      // The guard looks at auth.json as it changes, with no request in between.
      await vi.waitFor(
        () => expect(guardRecords.slice(seen).some((record) => record.event === 'egress.held')).toBe(true),
        { timeout: 10_000 },
      );
    };
    await write({ local: { type: 'api', key: OWN_KEY } });
    await write({ local: { type: 'api', key: ANTHROPIC_KEY } });
    const response = await post(JSON.stringify({ content: BODY_CANARY }), { authorization: `Bearer ${ANTHROPIC_KEY}` });
    expect(response.status).toBe(200);
    expect(all()).toContain(BODY_CANARY);
  });

  it('a sidecar that names a built-in provider’s entry for the endpoint’s origin in endpoints.json still cannot send that key there', async () => {
    writeFileSync(
      join(userData, 'endpoints.json'),
      JSON.stringify({
        version: 1,
        endpoints: [
          { id: 'local', base_url: `${origin}/v1` },
          { id: 'anthropic', base_url: `${origin}/v1` },
        ],
      }),
      { mode: 0o600 },
    );
    expect(await failureCode(post(JSON.stringify({ content: ANTHROPIC_KEY })))).toBe('EGRESS_SECRET');
    expect(blockedKind()).toBe('credential:anthropic');
    expect(all()).not.toContain(ANTHROPIC_KEY);
  });

  it('the ChatGPT refresh token goes only to the token endpoint and the access token only to the Responses endpoint', () => {
    const under = (grant_id: string, origin: string) => {
      const scan = guard.scanFor({ grant_id, origin, op: 'provider', kind: 'builtin' });
      if (!scan.ok) throw new Error(scan.code);
      return (text: string) => scan.pattern.findIn(Buffer.from(text));
    };
    const responses = under('chatgpt-responses', 'https://chatgpt.com');
    const token = under('chatgpt-auth', 'https://auth.openai.com');
    expect(responses(`Bearer ${CHATGPT_ACCESS}`)).toBeUndefined();
    expect(responses(`{"refresh_token":"${CHATGPT_REFRESH}"}`)).toBe('credential:chatgpt-refresh');
    expect(token(`grant_type=refresh_token&refresh_token=${CHATGPT_REFRESH}`)).toBeUndefined();
    expect(token(`Bearer ${CHATGPT_ACCESS}`)).toBe('credential:chatgpt-access');
  });

  it('control: a key the user sets later is held from then on and goes to its own endpoint', async () => {
    const rotated = join2('own-', 'rotated-', letters(32, 'k5m6'));
    writeFileSync(
      join(userData, 'auth.json'),
      JSON.stringify({ version: 1, entries: { local: { type: 'api', key: rotated } } }),
      { mode: 0o600 },
    );
    const response = await post(JSON.stringify({ content: BODY_CANARY }), { authorization: `Bearer ${rotated}` });
    expect(response.status).toBe(200);
    expect(all()).toContain(BODY_CANARY);
  });

  it('a redirect to another granted origin: the headers going again are scanned under its grant — the endpoint’s own key there → EGRESS_SECRET, never reached', async () => {
    const elsewhere = await startServer((_req, res) => res.writeHead(200).end('elsewhere'));
    try {
      redirectTo = `${elsewhere.origin}/landing`;
      await pair.grant(elsewhere.origin);
      await pair.synced();
      const plain = await pair.transport.fetch(`${origin}/v1/redirect`);
      expect(await plain.text()).toBe('elsewhere');
      expect(elsewhere.hits).toBe(1);
      const carried = pair.transport.fetch(`${origin}/v1/redirect`, { headers: { 'x-extra': OWN_KEY } });
      expect(await failureCode(carried)).toBe('EGRESS_SECRET');
      expect(blockedKind()).toBe('credential:local');
      expect(elsewhere.hits).toBe(1);
    } finally {
      await elsewhere.close();
    }
  });

  it('a key split across two body chunks is caught, and not even its first half reaches the endpoint', async () => {
    // The transport sends at most CHANNEL_MAX_BODY_CHUNK_BYTES a chunk: put the boundary inside the key.
    const half = ANTHROPIC_KEY.length / 2;
    const filler = ' '.repeat(CHANNEL_MAX_BODY_CHUNK_BYTES - half);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(Buffer.from(`${filler}${ANTHROPIC_KEY.slice(0, half)}`));
        controller.enqueue(Buffer.from(`${ANTHROPIC_KEY.slice(half)} ${BODY_CANARY}`));
        controller.close();
      },
    });
    const init: RequestInit & { duplex: 'half' } = { method: 'POST', body, duplex: 'half' };
    expect(await failureCode(pair.transport.fetch(`${origin}/v1/upload`, init))).toBe('EGRESS_SECRET');
    expect(all()).not.toContain(ANTHROPIC_KEY.slice(0, half));
    expectNothingLogged(ANTHROPIC_KEY.slice(0, half));
  });
});
