/**
 * SEC-004 one host a home, in process: the home lock refuses a second host (naming the holder)
 * before it touches anything, is free again after stop, and the control socket is 0600 and
 * answers only well-formed, bounded requests.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { CLI_SESSIONS_LISTED, CONTROL_MAX_REQUEST_BYTES, type Session } from '@bastion/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { startBastionHost, type BastionHost } from '../../src/bastion-host.js';
import { HomeInUseError } from '../../src/control/home-lock.js';
import { sessionMarkdownIn } from '../../src/control/workspace-sessions.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir } from '@bastion/test-support';

let host: TempHost | undefined;
let second: BastionHost | undefined;
afterEach(async () => {
  await second?.stop();
  await host?.stop();
  host = second = undefined;
});

function rawControl(path: string, payload: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('connect', () => socket.write(payload));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('home lock and control socket (real host)', () => {
  it('refuses a second host on the same home with HOME_IN_USE naming the holder, and the holder keeps serving', async () => {
    host = await startTempHost({ command: 'start' });
    const userData = join(host.root, 'home');
    const refused = await startBastionHost({ userData, stderr: 'none' }).then(
      (started) => {
        second = started;
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(HomeInUseError);
    expect((refused as HomeInUseError).code).toBe('HOME_IN_USE');
    expect((refused as HomeInUseError).holder).toEqual({
      ok: true,
      pid: process.pid,
      command: 'start',
      ui: `${host.uiOrigin}/desktop/`,
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      workspace: host.workspace,
    });
    expect(host.records.filter((record) => record.event === 'host.ready')).toHaveLength(1);
    expect((await host.client.request('POST', '/handshake')).status).toBe(200);
  });

  it('frees the home on stop: the next host on it starts', async () => {
    const userData = join(makeTempDir(), 'home');
    const first = await startBastionHost({ userData, stderr: 'none' });
    await first.stop();
    second = await startBastionHost({ userData, stderr: 'none' });
    expect((await second.client.request('POST', '/handshake')).status).toBe(200);
  });

  it('binds the control socket 0600 and answers malformed and oversized requests (a sessions page out of bounds too) with coded errors', async () => {
    host = await startTempHost();
    const path = join(host.root, 'home', 'host.sock');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await rawControl(path, 'not json\n'))).toMatchObject({ ok: false, code: 'CONTROL_BAD_REQUEST' });
    expect(JSON.parse(await rawControl(path, '{"op":"status","extra":1}\n'))).toMatchObject({
      ok: false,
      code: 'CONTROL_BAD_REQUEST',
    });
    expect(JSON.parse(await rawControl(path, 'x'.repeat(CONTROL_MAX_REQUEST_BYTES + 10)))).toMatchObject({
      ok: false,
      code: 'CONTROL_REQUEST_TOO_LARGE',
    });
    // `sessions` asks for at most CLI_SESSIONS_LISTED + 1: a larger page is refused, not answered.
    for (const limit of [CLI_SESSIONS_LISTED + 2, 0]) {
      expect(JSON.parse(await rawControl(path, `${JSON.stringify({ op: 'sessions', limit })}\n`))).toEqual({
        ok: false,
        code: 'CONTROL_BAD_REQUEST',
        message: expect.any(String),
      });
    }
    expect(JSON.parse(await rawControl(path, `${JSON.stringify({ op: 'sessions', limit: 1 })}\n`))).toEqual({
      ok: true,
      sessions: [],
    });
  });

  it('secrets.set and secrets.delete on the control socket: a malformed provider id or key is refused before the daemon, which stores nothing; a well-formed key goes through', async () => {
    host = await startTempHost();
    const path = join(host.root, 'home', 'host.sock');
    const auth = join(host.root, 'home', 'auth.json');
    const ask = async (request: object) =>
      JSON.parse(await rawControl(path, `${JSON.stringify(request)}\n`)) as unknown;
    const refused = [
      ...['Open AI', '../openai', 'p'.repeat(65)].flatMap((provider) => [
        { op: 'secrets.set', provider, key: 'sk-control-canary' },
        { op: 'secrets.delete', provider },
      ]),
      { op: 'secrets.set', provider: 'openai', key: 'sk control canary' },
      { op: 'secrets.set', provider: 'openai', key: 'sk-control-canary\n' },
    ];
    for (const request of refused) {
      expect(await ask(request), JSON.stringify(request)).toMatchObject({ ok: false, code: 'CONTROL_BAD_REQUEST' });
    }
    expect(existsSync(auth)).toBe(false);
    expect(host.records.filter((record) => record.event.startsWith('secrets.'))).toEqual([]);
    expect(await ask({ op: 'secrets.set', provider: 'openai', key: 'sk-control-canary' })).toMatchObject({
      ok: true,
      status: 200,
    });
    expect(readFileSync(auth, 'utf8')).toContain('sk-control-canary');
    expect(host.records.map((record) => record.event)).toContain('secrets.set');
  });

  it('models.default on the control socket: a malformed id is refused before the daemon, an unknown provider by it; the default stays', async () => {
    host = await startTempHost();
    const path = join(host.root, 'home', 'host.sock');
    const ask = async (request: object) =>
      JSON.parse(await rawControl(path, `${JSON.stringify(request)}\n`)) as unknown;
    const defaultNow = async () => ((await ask({ op: 'models' })) as { models: { default: unknown } }).models.default;
    expect(await defaultNow()).toEqual({ provider: 'demo', model: 'demo' });
    for (const provider of ['Open AI', '../x', 'p'.repeat(200)]) {
      expect(await ask({ op: 'models.default', provider, model: 'gpt-5' })).toMatchObject({
        ok: false,
        code: 'CONTROL_BAD_REQUEST',
      });
    }
    expect(host.records.filter((record) => record.event === 'models.default-set')).toEqual([]);
    expect(await ask({ op: 'models.default', provider: 'nobody', model: 'x' })).toMatchObject({
      ok: true,
      refused: { code: 'PROVIDER_UNKNOWN' },
    });
    expect(await defaultNow()).toEqual({ provider: 'demo', model: 'demo' });
    // A well-formed request does reach the daemon, and its record does reach this log.
    expect(await ask({ op: 'models.default', provider: 'demo', model: 'demo' })).toEqual({
      ok: true,
      default: { provider: 'demo', model: 'demo' },
    });
    await expect
      .poll(() => host?.records.some((record) => record.event === 'models.default-set'), { timeout: 10_000 })
      .toBe(true);
  });

  it('session.export on the control socket: the session as markdown; a malformed id refused before the daemon, an unknown one by it; over the bound, EXPORT_TOO_LARGE', async () => {
    host = await startTempHost();
    const path = join(host.root, 'home', 'host.sock');
    const ask = async (request: object) =>
      JSON.parse(await rawControl(path, `${JSON.stringify(request)}\n`)) as unknown;
    const session = await host.client.request<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
    const id = session.body.id;
    expect(await ask({ op: 'session.export', session_id: id })).toEqual({
      ok: true,
      markdown: expect.stringMatching(/^# .*\n\ndemo\/demo · /),
    });
    for (const sessionId of ['../x', 'ses_' + 'a'.repeat(300), 7]) {
      expect(await ask({ op: 'session.export', session_id: sessionId })).toMatchObject({
        ok: false,
        code: 'CONTROL_BAD_REQUEST',
      });
    }
    // Refused by the request's schema: only the well-formed export reached the handler.
    const handled = () =>
      host?.records.filter((record) => record.event === 'control.request' && record.fields.method === 'session.export')
        .length;
    expect(handled()).toBe(1);
    expect(await ask({ op: 'session.export', session_id: 'ses_NoSuchSession0' })).toMatchObject({
      ok: true,
      refused: { code: 'SESSION_NOT_FOUND' },
    });
    const whole = await sessionMarkdownIn(host.client, id, 1024 * 1024);
    expect(whole.ok).toBe(true);
    const markdown = (whole as { markdown: string }).markdown;
    const fits = Buffer.byteLength(JSON.stringify(markdown));
    expect(await sessionMarkdownIn(host.client, id, fits)).toEqual({ ok: true, markdown });
    expect(await sessionMarkdownIn(host.client, id, fits - 1)).toEqual({
      ok: false,
      error: { code: 'EXPORT_TOO_LARGE', message: expect.stringContaining('Export in the UI saves it') },
    });
  });
});
