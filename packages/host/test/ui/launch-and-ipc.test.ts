/// <reference lib="dom" />
/**
 * SEC-004 launch ticket and guarded host IPC, through the real UI server: a ticket works once
 * (replayed, unknown or doubled tickets get the "run bastion open for a new one" page and no cookie)
 * and redirects with the session's page key in the fragment; host IPC refuses a missing cookie, a
 * wrong Origin, a Referer outside /desktop or from a page not allowed the channel, a missing or
 * wrong page key, an unlisted channel and a wrong method — each with its code, and the channel
 * handler never runs. Every registered channel is a guarded() one and refuses the lot.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAttack } from '../../../../test/support/attack.js';
import type { Browser } from 'playwright-core';
import { HOST_IPC_MAX_BODY_BYTES } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { rawRequest } from '../support/raw-request.js';
import { launchDesktopSession, type DesktopSession } from '../support/desktop-session.js';
import { launchChromium } from './support/browser.js';
import { fixtureApp } from './support/desktop-files.js';

let host: TempHost;
let browser: Browser;
let session: DesktopSession;
/** Calls of the server-info handler's first step; a refused request must leave it unchanged. */
let handlerRuns = 0;

function uiRequest(path: string, headers: Record<string, string>, method = 'GET', body?: string) {
  return rawRequest({
    port: host.ui.port,
    method,
    path,
    headers: { host: `127.0.0.1:${host.ui.port}`, ...headers },
    body,
  });
}

async function launch(ticket: string) {
  return uiRequest(`/desktop/launch?ticket=${ticket}`, {});
}

function ipcHeaders(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const headers: Record<string, string | undefined> = {
    ...session.headers,
    origin: host.uiOrigin,
    referer: `${host.uiOrigin}/desktop/`,
    'content-type': 'application/json',
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

beforeAll(async () => {
  [host, browser] = await Promise.all([startTempHost({ desktopFiles: fixtureApp('csp-probe') }), launchChromium()]);
  const whenReady = host.supervisor.whenReady.bind(host.supervisor);
  host.supervisor.whenReady = () => {
    handlerRuns += 1;
    return whenReady();
  };
  session = await launchDesktopSession(host);
});
afterAll(async () => {
  await Promise.all([host?.stop(), browser?.close()]);
});

describe('launch ticket', () => {
  it('exchanges a ticket once for an HttpOnly; SameSite=Strict; Path=/ cookie and a 303 to /desktop/ with the page key only in the fragment', async () => {
    const ticket = new URL(host.desktop.issueLaunchUrl()).searchParams.get('ticket') ?? '';
    expect(Buffer.from(ticket, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    const first = await launch(ticket);
    expect(first.status).toBe(303);
    const location = first.headers.location ?? '';
    expect(location).toMatch(/^\/desktop\/#bastion-page-key=[A-Za-z0-9_-]{43}$/);
    expect(first.headers['set-cookie']?.[0]).not.toContain(location.split('=')[1]);
    expect(first.headers['set-cookie']).toHaveLength(1);
    expect(first.headers['set-cookie']?.[0]).toMatch(
      new RegExp(`^bastion_session_${host.ui.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`),
    );
    const replay = await launch(ticket);
    expect(replay.status).toBe(403);
    expect(replay.headers['set-cookie']).toBeUndefined();
    expect(replay.body).toContain('Run bastion open in the terminal for a new one');
  });

  it('refuses an unknown ticket, two tickets at once and no ticket, with no cookie', async () => {
    const live = new URL(host.desktop.issueLaunchUrl()).searchParams.get('ticket') ?? '';
    for (const path of [
      `/desktop/launch?ticket=${'A'.repeat(43)}`,
      `/desktop/launch?ticket=${live}&ticket=${live}`,
      '/desktop/launch',
    ]) {
      const response = await uiRequest(path, {});
      expect(response.status, path).toBe(403);
      expect(response.headers['set-cookie'], path).toBeUndefined();
    }
  });

  it('in Chromium: the launch URL lands on /desktop/ with the app; the same URL replayed in a fresh browser does not', async () => {
    const url = host.desktop.issueLaunchUrl();
    const first = await browser.newContext();
    const page = await first.newPage();
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe('/desktop/');
    expect(await page.evaluate(() => typeof window.bastion)).toBe('object');
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const second = await browser.newContext();
    const thief = await second.newPage();
    const replay = await thief.goto(url);
    expect(replay?.status()).toBe(403);
    expect(await thief.textContent('body')).toContain('Run bastion open in the terminal for a new one');
    const app = await thief.goto(`${host.uiOrigin}/desktop/`);
    expect(app?.status()).toBe(401);
    expect(await thief.evaluate(() => 'bastion' in window)).toBe(false);
    await Promise.all([first.close(), second.close()]);
  });
});

describe('guarded host IPC', () => {
  it('answers agent.server-info with the current port and password for a proper desktop request', async () => {
    const before = handlerRuns;
    const response = await uiRequest('/_host/ipc/agent.server-info', ipcHeaders(), 'POST', '{}');
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({
      port: host.socketHost.port,
      password: host.supervisor.current?.password,
    });
    expect(handlerRuns).toBe(before + 1);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  /** The status each refusal answers with, written out here so a changed status fails this test. */
  const IPC_REFUSAL_STATUS = {
    IPC_SESSION: 403,
    IPC_PAGE_KEY: 403,
    IPC_ORIGIN: 403,
    IPC_REFERER: 403,
    IPC_PAGE: 403,
    IPC_CHANNEL: 404,
    IPC_METHOD: 405,
    IPC_BODY: 400,
    IPC_BODY_TOO_LARGE: 413,
  } as const;
  const refusals: {
    name: string;
    headers: Record<string, string | undefined>;
    code: keyof typeof IPC_REFUSAL_STATUS;
    method?: string;
    path?: string;
    body?: string;
  }[] = [
    { name: 'without the cookie', headers: { cookie: undefined }, code: 'IPC_SESSION' },
    { name: 'with an unknown session cookie', headers: { cookie: 'x' }, code: 'IPC_SESSION' },
    {
      name: 'with a wrong Origin (another loopback port)',
      headers: { origin: 'http://127.0.0.1:1' },
      code: 'IPC_ORIGIN',
    },
    { name: 'with a lookalike Origin', headers: { origin: 'http://127.0.0.1.evil.test' }, code: 'IPC_ORIGIN' },
    { name: 'without Origin', headers: { origin: undefined }, code: 'IPC_ORIGIN' },
    { name: 'with Origin null', headers: { origin: 'null' }, code: 'IPC_ORIGIN' },
    { name: 'without Referer', headers: { referer: undefined }, code: 'IPC_REFERER' },
    { name: 'with a Referer path outside /desktop', headers: { referer: 'REPLACE/blog/post' }, code: 'IPC_REFERER' },
    { name: 'with a Referer under /desktopX', headers: { referer: 'REPLACE/desktopX/' }, code: 'IPC_REFERER' },
    {
      name: 'with an encoded-traversal Referer',
      headers: { referer: 'REPLACE/desktop/%2e%2e/blog' },
      code: 'IPC_REFERER',
    },
    {
      name: 'with a Referer on another origin',
      headers: { referer: 'http://127.0.0.1:1/desktop/' },
      code: 'IPC_REFERER',
    },
    {
      name: 'from the launch page, which may use no channel',
      headers: { referer: 'REPLACE/desktop/launch' },
      code: 'IPC_PAGE',
    },
    { name: 'from an unknown desktop page', headers: { referer: 'REPLACE/desktop/assets/x.js' }, code: 'IPC_PAGE' },
    { name: 'with the cookie but no page key', headers: { 'x-bastion-page-key': undefined }, code: 'IPC_PAGE_KEY' },
    { name: 'with an empty page key', headers: { 'x-bastion-page-key': '' }, code: 'IPC_PAGE_KEY' },
    { name: 'with a wrong page key', headers: { 'x-bastion-page-key': 'A'.repeat(43) }, code: 'IPC_PAGE_KEY' },
    {
      name: 'with the page key of another live session',
      headers: { 'x-bastion-page-key': 'OTHER_SESSION_KEY' },
      code: 'IPC_PAGE_KEY',
    },
    { name: 'on an unlisted channel', headers: {}, code: 'IPC_CHANNEL', path: '/_host/ipc/secrets.get' },
    { name: 'on an empty channel name', headers: {}, code: 'IPC_CHANNEL', path: '/_host/ipc/' },
    { name: 'with GET', headers: {}, code: 'IPC_METHOD', method: 'GET' },
    { name: 'as a text/plain simple POST', headers: { 'content-type': 'text/plain' }, code: 'IPC_BODY' },
    { name: 'with unknown input fields', headers: {}, code: 'IPC_BODY', body: '{"x":1}' },
    {
      name: 'with an oversized body',
      headers: {},
      code: 'IPC_BODY_TOO_LARGE',
      body: JSON.stringify({ x: 'a'.repeat(HOST_IPC_MAX_BODY_BYTES) }),
    },
  ];
  describeAttack('cross-origin', 'guarded host IPC', () => {
    for (const refusal of refusals) {
      it(`refuses a call ${refusal.name} (${refusal.code}); the handler never runs`, async () => {
        const otherKey =
          refusal.headers['x-bastion-page-key'] === 'OTHER_SESSION_KEY' ? await launchDesktopSession(host) : undefined;
        const before = handlerRuns;
        const headers = Object.fromEntries(
          Object.entries(refusal.headers).map(([key, value]) => [
            key,
            value?.replace('REPLACE', host.uiOrigin).replace('OTHER_SESSION_KEY', otherKey?.pageKey ?? ''),
          ]),
        );
        const response = await uiRequest(
          refusal.path ?? '/_host/ipc/agent.server-info',
          ipcHeaders(headers),
          refusal.method ?? 'POST',
          refusal.body ?? '{}',
        );
        expect(JSON.parse(response.body)).toMatchObject({ code: refusal.code });
        expect(response.status).toBe(IPC_REFUSAL_STATUS[refusal.code]);
        expect(response.body).not.toContain(host.supervisor.current?.password ?? '-');
        expect(handlerRuns).toBe(before);
      });
    }
  });

  it('refuses a request whose Host is not exactly the UI address', async () => {
    const response = await rawRequest({
      port: host.ui.port,
      method: 'POST',
      path: '/_host/ipc/agent.server-info',
      headers: { ...ipcHeaders(), host: `localhost:${host.ui.port}` },
      body: '{}',
    });
    expect(response.status).toBe(421);
  });
});

describeAttack('policy-bypass', '"Always allow" through host IPC', () => {
  it('asks.answer takes no rule from the page: one in the body is refused (IPC_BODY), nothing is saved and the call stays held; `always-allow` saves only the host’s rule', async () => {
    const touch = { name: 'touch', args: ['ipc-marker'], cwd: host.workspace };
    // A page has just waited on the asks, so the host asks the desktop (nobody else is there).
    await host.asks.wait(undefined);
    const outcome = host.asks.ask(
      { tool: 'run_command', workspace_root: host.workspace, command: touch, rule_id: 'r1' },
      new AbortController().signal,
      { stage: 'command' },
    );
    const id = host.asks.list().asks[0]?.id ?? '';
    const broad = { decision: 'allow', tools: ['run_command'], command: 'rm' };
    const forged = await uiRequest(
      '/_host/ipc/asks.answer',
      ipcHeaders(),
      'POST',
      JSON.stringify({ id, answer: 'always-allow', rule: broad }),
    );
    expect(forged.status).toBe(400);
    expect(JSON.parse(forged.body)).toMatchObject({ code: 'IPC_BODY' });
    expect(host.policy.listing(host.workspace).project?.rules ?? []).toEqual([]);
    expect(host.asks.list().asks.map((ask) => ask.id)).toEqual([id]);

    const answered = await uiRequest(
      '/_host/ipc/asks.answer',
      ipcHeaders(),
      'POST',
      JSON.stringify({ id, answer: 'always-allow' }),
    );
    expect(answered.status).toBe(200);
    await expect(outcome).resolves.toBe('approved');
    const rules = host.policy.listing(host.workspace).project?.rules ?? [];
    expect(rules).toEqual([
      expect.objectContaining({ decision: 'allow', command: 'touch', argv_prefix: ['ipc-marker'] }),
    ]);
    expect(JSON.parse(answered.body)).toEqual({ answered: true, rule: rules[0] });
    host.policy.remove({ kind: 'project', root: host.workspace }, rules[0]?.id ?? '');
  });
});

describe('every host IPC handler goes through guarded()', () => {
  it('each registered channel refuses a missing cookie, a wrong Origin, a wrong Referer and a missing page key', async () => {
    const channels = host.desktop.ipc.channels();
    expect(channels).toContain('agent.server-info');
    for (const channel of channels) {
      for (const overrides of [
        { cookie: undefined },
        { origin: 'http://127.0.0.1:1' },
        { referer: `${host.uiOrigin}/blog/` },
        { 'x-bastion-page-key': undefined },
      ]) {
        const response = await uiRequest(`/_host/ipc/${channel}`, ipcHeaders(overrides), 'POST', '{}');
        expect(response.status, `${channel} ${JSON.stringify(overrides)}`).toBe(403);
      }
    }
  });

  it("host IPC's Origin and Referer checks are the daemon perimeter's guards, Origin without CORS", () => {
    const ipcSource = readFileSync(fileURLToPath(new URL('../../src/ui/host-ipc.ts', import.meta.url)), 'utf8');
    expect(ipcSource).toMatch(
      /import \{ originGuard, refererGuard, type PerimeterGuard \} from '@bastion\/daemon\/perimeter';/,
    );
    expect(ipcSource).toMatch(
      /originGuard\(\{ allowedOrigins: this\.#origins, cors: false, \.\.\.refusal\('IPC_ORIGIN'\) \}\)/,
    );
    expect(ipcSource).toMatch(/refererGuard\(\{ allowedOrigins: this\.#origins, \.\.\.refusal\('IPC_REFERER'\) \}\)/);
  });

  it('no host source registers a channel handler except through guarded()', () => {
    const src = fileURLToPath(new URL('../../src/', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          const text = readFileSync(path, 'utf8');
          // Only host-ipc.ts may touch the channel app or answer /_host/ paths itself.
          if (
            !path.endsWith('/ui/host-ipc.ts') &&
            /#app\.(use|all|on|post)\(|_host\/ipc/.test(text.replace(/HOST_IPC_PATH_PREFIX/g, ''))
          ) {
            offenders.push(path);
          }
          for (const call of text.matchAll(/\.ipc\.(\w+)\(|\bipc\.(\w+)\(/g)) {
            const method = call[1] ?? call[2];
            if (method !== 'guarded' && method !== 'channels' && method !== 'dispatch')
              offenders.push(`${path}: ipc.${method}`);
          }
        }
      }
    };
    walk(src);
    expect(offenders).toEqual([]);
    // And the channel app has exactly one writer, the guarded() method, whose route runs every
    // check before it serves.
    const ipcSource = readFileSync(join(src, 'ui/host-ipc.ts'), 'utf8');
    expect(ipcSource.match(/#app\.(use|all|on|post|get)\(/g)).toEqual(['#app.all(']);
    expect(ipcSource).toMatch(
      /guarded<C extends HostIpcChannel>\([^)]*\): void \{[\s\S]*?this\.#app\.all\(`\$\{HOST_IPC_PATH_PREFIX\}\$\{channel\}`, \(c\) => \{\s*for \(const guard of guards\) \{\s*const refusal = guard\(c\);\s*if \(refusal\) return refusal;\s*\}\s*return this\.#serve\(/,
    );
  });
});
