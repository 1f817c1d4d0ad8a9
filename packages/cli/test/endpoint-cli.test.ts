/**
 * The command-line consent surface as real CLI processes: `run --endpoint` against a loopback
 * chat-completions server, ineligible URLs refused with exit 2 before anything starts, and
 * `secrets set` reading the key from stdin without ever printing it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeTempDir,
  chatCompletionsServer,
  startServer,
  type ChatCompletionsRequest,
  type TestServer,
} from '@bastion/test-support';
import { runCli, startHolder, stoppedAfterEachTest } from './support/cli-process.js';

const CLI = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const roots: string[] = [];
const started = stoppedAfterEachTest();
let server: TestServer | undefined;
afterEach(async () => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  await server?.close();
  server = undefined;
});

/** The CLI with `args` in a new temporary workspace, on a new home (or `home`, for several commands to share one). */
function cli(
  args: string[],
  stdin?: string,
  home = join(makeTempDir(), 'home'),
): Promise<{ code: number | null; stdout: string; stderr: string; home: string }> {
  const root = join(home, '..');
  roots.push(root);
  const workspace = join(root, `ws-${roots.length}`);
  mkdirSync(workspace);
  const [command = '', ...rest] = args;
  const child = spawn(
    process.execPath,
    [CLI, command, '--home', home, ...(command === 'run' ? ['--workspace', workspace] : []), ...rest],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin ?? '');
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr, home })));
}

/**
 * `run --endpoint` against a server that answers every request with `status` and an OpenAI-style
 * error `message`; what the CLI did, and the server's origin.
 */
async function runAgainstRefusal(status: number, message: string) {
  const refusing = await startServer((_req, res) =>
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message, type: 'invalid_request_error' } })),
  );
  server = refusing;
  return {
    ...(await cli(['run', '--endpoint', `${refusing.origin}/v1`, '--model', 'm', 'hi'])),
    origin: refusing.origin,
  };
}

/** The id `--endpoint <origin>/v1` gets for a loopback `origin`: read from its URL. */
function idOf(origin: string): string {
  return `endpoint-127-0-0-1-${new URL(origin).port}-v1`;
}

describe('--endpoint / --allow-endpoint', () => {
  it('run --endpoint URL --model M streams the answer from the loopback endpoint and leaves no definition behind', async () => {
    const seen: ChatCompletionsRequest[] = [];
    server = await startServer(chatCompletionsServer(seen));
    const result = await cli(['run', '--endpoint', `${server.origin}/v1`, '--model', 'local-model', 'say hello']);
    expect(result.stderr).not.toContain('run failed');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Hello from the loopback endpoint.\n');
    expect(seen[0]?.body).toMatchObject({ model: 'local-model', stream: true });
    const endpoints = JSON.parse(readFileSync(join(result.home, 'endpoints.json'), 'utf8')) as { endpoints: unknown[] };
    expect(endpoints.endpoints).toEqual([]);
  });

  for (const [command, url] of [
    ['run', 'http://localhost.evil.test:11434/v1'],
    ['run', 'http://127.0.0.1.nip.io:11434/v1'],
    ['run', 'http://user:secret@127.0.0.1:11434/v1'],
    ['start', 'http://my-gpu-box.local:11434/v1'],
    ['start', 'http://localhost.:11434/v1'],
  ] as const) {
    it(`${command} refuses ${url} with exit 2 and says which hosts are eligible, before starting anything`, async () => {
      const args =
        command === 'run'
          ? ['run', '--endpoint', url, '--model', 'm', 'hi']
          : ['start', '--no-open', '--allow-endpoint', url];
      const result = await cli(args);
      expect(result.code).toBe(2);
      if (url.includes('@')) expect(result.stderr).toContain('must not carry a user name or password');
      else expect(result.stderr).toContain('only localhost, *.localhost and IP literals');
      expect(existsSync(result.home)).toBe(false);
    });
  }

  it('run --endpoint at a port nothing listens on exits 1 naming the endpoint and the refused connection, said once: no warning before it about the network or a proxy', async () => {
    const closed = await startServer((_req, res) => res.end());
    const origin = closed.origin;
    await closed.close();
    const result = await cli(['run', '--endpoint', `${origin}/v1`, '--model', 'm', 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `bastion: run failed: UPSTREAM_CONNECTION_REFUSED: could not connect to endpoint-127-0-0-1-\\d+-v1 \\(custom endpoint ${origin}/v1\\): the connection was refused \\(is its server running\\?\\)\n`,
      ),
    );
    expect(result.stderr.split('\n').filter((line) => line.includes('CONNECTION_REFUSED'))).toHaveLength(1);
    expect(result.stderr).not.toContain('bastion: warning:');
  });

  it('run --endpoint whose server answers 500 with an HTML page: each retry line ends at its attempt, then exit 1 with the status and "had an error"', async () => {
    server = await startServer((_req, res) =>
      res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body>Internal error</body></html>'),
    );
    const result = await cli(['run', '--endpoint', `${server.origin}/v1`, '--model', 'm', 'hi']);
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n');
    expect(lines.filter((line) => line.includes('trying again'))).toEqual([
      'bastion: the provider answered 500; trying again in 1 s (attempt 2 of 3)',
      'bastion: the provider answered 500; trying again in 2 s (attempt 3 of 3)',
    ]);
    expect(lines.filter((line) => line.includes('run failed'))).toEqual([
      expect.stringMatching(
        /^bastion: run failed \(HTTP 500\): PROVIDER_UNAVAILABLE: endpoint-127-0-0-1-\d+-v1 \(custom endpoint http:\/\/127\.0\.0\.1:\d+\/v1\) had an error and could not answer$/,
      ),
    ]);
    expect(server.hits).toBe(3);
  });

  it.each([
    ['events that are not JSON', 'data: {not json\n\ndata: <html>\n\n', 'a part of it is not JSON'],
    ['a stream that ends with no finish', 'data: [DONE]\n\n', 'it is not a complete chat reply'],
  ])(
    'run --endpoint whose server answers 200 with %s: exit 1, PROVIDER_REPLY_INVALID naming the endpoint, what was wrong and what to check',
    async (_what, stream, wrong) => {
      server = await startServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(stream),
      );
      const result = await cli(['run', '--endpoint', `${server.origin}/v1`, '--model', 'm', 'hi']);
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n').filter((line) => line.includes('run failed'))).toEqual([
        `bastion: run failed: PROVIDER_REPLY_INVALID: ${idOf(server.origin)} (custom endpoint ${server.origin}/v1) sent a reply that could not be read (${wrong}): check that the endpoint's URL is its server's OpenAI-compatible API (often ending in /v1) and what the server's log says, then retry`,
      ]);
      expect(server.hits).toBe(1);
    },
  );

  it('run --endpoint whose server answers 404 for the model: exit 1, its message, then to check the model name and the URL', async () => {
    const result = await runAgainstRefusal(404, "model 'm' not found");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /bastion: run failed \(HTTP 404\): PROVIDER_FAILED: endpoint-127-0-0-1-\d+-v1 \(custom endpoint http:\/\/127\.0\.0\.1:\d+\/v1\) has no such model, or nothing at this address: model 'm' not found — check the model's name \(bastion models lists those on offer; Probe in Settings → Custom endpoints lists what an endpoint serves\) and, for an endpoint, that its URL is its API's \(often ending in \/v1\)\n/,
    );
  });

  it('run --endpoint whose server answers 403: exit 1, its message made inert, then what a refused-but-valid key means and what to check', async () => {
    const result = await runAgainstRefusal(403, 'Project \u001b[31mproj_x\u001b[0m has no access to model m');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /bastion: run failed \(HTTP 403\): PROVIDER_FAILED: endpoint-127-0-0-1-\d+-v1 \(custom endpoint http:\/\/127\.0\.0\.1:\d+\/v1\) refused the request: Project .?\[31mproj_x.?\[0m has no access to model m — usually the key is valid but not allowed this request: check that the key \(its project or organisation\) has access to this model, and the account's region and billing; for an endpoint, its server's access settings \(what a 403 means varies by provider; its own message, when it sent one, says more\)\n/,
    );
    expect(result.stderr).not.toContain('\u001b');
  });

  it('run --endpoint whose server answers 401: exit 1, its message, the exact bastion secrets set command for the id read from its URL (said once), which stays defined for it', async () => {
    const result = await runAgainstRefusal(401, 'Invalid API key');
    expect(result.code).toBe(1);
    const id = idOf(result.origin);
    expect(result.stderr.split('\n').slice(-4)).toEqual([
      `bastion: run failed (HTTP 401): PROVIDER_FAILED: ${id} (custom endpoint ${result.origin}/v1) refused the request: Invalid API key`,
      `bastion: the endpoint did not accept its key, or needs one: store it with bastion secrets set ${id} (or in the UI: Settings → Custom endpoints), then run again`,
      `bastion: ${id} stays defined for ${result.origin}/v1, to hold that key; remove it in the UI (Settings → Custom endpoints)`,
      '',
    ]);
  });

  it('run --endpoint to a server that requires a bearer key: the key stored with the command its 401 named is sent on the next run, only to that origin, and never printed', async () => {
    const key = 'sk-endpoint-cli-canary-7d2a';
    const keyed: ChatCompletionsRequest[] = [];
    const answer = chatCompletionsServer(keyed);
    const requiring = await startServer((req, res) => {
      if (req.headers.authorization === `Bearer ${key}`) answer(req, res);
      else
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'a key is required', type: 'invalid_request_error' } }));
    });
    server = requiring;
    const other: ChatCompletionsRequest[] = [];
    const elsewhere = await startServer(chatCompletionsServer(other));
    try {
      const id = idOf(requiring.origin);
      const url = `${requiring.origin}/v1`;
      const refused = await cli(['run', '--endpoint', url, '--model', 'local-model', 'hi']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`store it with bastion secrets set ${id} (or in the UI`);

      const stored = await cli(['secrets', 'set', id], `${key}\n`, refused.home);
      expect(stored.code).toBe(0);
      expect(stored.stderr).toContain(`bastion: stored the key for ${id} in auth.json (mode 0600)\n`);

      const answered = await cli(['run', '--endpoint', url, '--model', 'local-model', 'say hello'], '', refused.home);
      expect(answered.code).toBe(0);
      expect(answered.stdout).toBe('Hello from the loopback endpoint.\n');
      expect(answered.stderr).toContain(`· ${id}/local-model (custom endpoint ${url}) · mode`);
      expect(keyed.map((request) => request.authorization)).toEqual([`Bearer ${key}`]);

      // Another endpoint, in the same home, is sent no key: the stored one is its own URL's only.
      const another = await cli(
        ['run', '--endpoint', `${elsewhere.origin}/v1`, '--model', 'local-model', 'say hello'],
        '',
        refused.home,
      );
      expect(another.code).toBe(0);
      expect(other.map((request) => request.authorization)).toEqual([undefined]);
      for (const result of [refused, stored, answered, another])
        expect(result.stdout + result.stderr).not.toContain(key);
      const endpoints = JSON.parse(readFileSync(join(refused.home, 'endpoints.json'), 'utf8')) as {
        endpoints: unknown[];
      };
      expect(endpoints.endpoints).toEqual([{ id, base_url: url, models: ['local-model'] }]);
    } finally {
      await elsewhere.close();
    }
  });

  it('start --allow-endpoint: an endpoint whose key was stored while it ran keeps its definition and key after it stops; one without a key is removed', async () => {
    const key = 'sk-allow-endpoint-canary-41be';
    const keyed = await startServer((_req, res) => res.end());
    const keyless = await startServer((_req, res) => res.end());
    const root = makeTempDir();
    roots.push(root);
    const home = join(root, 'home');
    const workspace = join(root, 'ws');
    mkdirSync(workspace);
    try {
      const holder = startHolder(started, home, workspace, [
        '--allow-endpoint',
        `${keyed.origin}/v1`,
        '--allow-endpoint',
        `${keyless.origin}/v1`,
      ]);
      await holder.ready;
      const stored = await runCli(['secrets', 'set', idOf(keyed.origin), '--home', home], `${key}\n`);
      expect(stored.stderr).toContain(
        `bastion: stored the key for ${idOf(keyed.origin)} in auth.json (mode 0600) through the running Bastion`,
      );
      const exited = new Promise((resolve) => holder.child.once('exit', resolve));
      holder.child.kill('SIGTERM');
      await exited;
      const endpoints = JSON.parse(readFileSync(join(home, 'endpoints.json'), 'utf8')) as { endpoints: unknown[] };
      expect(endpoints.endpoints).toEqual([{ id: idOf(keyed.origin), base_url: `${keyed.origin}/v1` }]);
      const auth = JSON.parse(readFileSync(join(home, 'auth.json'), 'utf8')) as { entries: Record<string, unknown> };
      expect(auth.entries).toEqual({ [idOf(keyed.origin)]: { type: 'api', key } });
    } finally {
      await keyed.close();
      await keyless.close();
    }
  });

  it('run --endpoint without --model is a usage error', async () => {
    expect((await cli(['run', '--endpoint', 'http://127.0.0.1:1/v1', 'hi'])).code).toBe(2);
  });
});

describe('bastion secrets set', () => {
  it('reads the key from stdin, stores it 0600, and never prints it', async () => {
    const key = 'sk-cli-canary-0c5e';
    const result = await cli(['secrets', 'set', 'openai'], `${key}\n`);
    expect(result.code).toBe(0);
    const auth = join(result.home, 'auth.json');
    expect(statSync(auth).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(auth, 'utf8'))).toEqual({ version: 1, entries: { openai: { type: 'api', key } } });
    expect(result.stdout + result.stderr).not.toContain(key);
  });

  it('an unknown provider is refused with exit 2, naming the providers that take a key, and nothing is stored', async () => {
    const result = await cli(['secrets', 'set', 'not-a-provider'], 'sk-x-canary\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'SECRETS_PROVIDER_UNKNOWN: no provider not-a-provider takes a key here; give one of openai, anthropic, openrouter or the id of an endpoint you added',
    );
    expect(result.stdout + result.stderr).not.toContain('sk-x-canary');
    expect(existsSync(join(result.home, 'auth.json'))).toBe(false);
  });

  it('a malformed provider id is a usage error (exit 2) before any key is read, and nothing is stored', async () => {
    const result = await cli(['secrets', 'set', 'Open AI'], 'sk-x-canary\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "bastion: not a provider id: Open AI (lower-case letters, digits, '.', '_' and '-')",
    );
    expect(result.stderr).not.toContain('input hidden');
    expect(result.stdout + result.stderr).not.toContain('sk-x-canary');
    expect(existsSync(join(result.home, 'auth.json'))).toBe(false);
  });

  it('a key with a space in it is a usage error (exit 2) that does not print the key, and nothing is stored', async () => {
    const result = await cli(['secrets', 'set', 'openai'], 'sk-x canary\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('that is not an API key: a key is printable characters without spaces');
    expect(result.stdout + result.stderr).not.toContain('canary');
    expect(existsSync(join(result.home, 'auth.json'))).toBe(false);
  });
});
