/// <reference lib="dom" />
/**
 * SEC-004 page key, in real Chromium against the real host, sidecar and app. Cookies do not
 * separate ports, so the browser hands the host-session cookie to any other 127.0.0.1 server the
 * person reaches (here by following a link out of the app). That server replays it from Node
 * with forged Origin and Referer: host IPC refuses it IPC_PAGE_KEY before any handler, because
 * the page key came to the page only in the launch redirect's fragment. The app itself still
 * works (a second tab too, and an earlier tab after a later launch); a tab without the key shows
 * a notice naming `bastion open`; the key leaves the address bar before the app runs, is on no
 * window property, and travels only in host IPC's header.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { HOST_IPC_PAGE_KEY_HEADER } from '@bastion/protocol';
import { describeAttack } from '../../../../test/support/attack.js';
import { rawRequest } from '../support/raw-request.js';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop, windowPathsHolding } from './support/browser.js';

/** Another loopback server, not Bastion: it logs every request's headers, as a local service might. */
interface RecordingServer {
  readonly origin: string;
  readonly seen: { url: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

async function startRecordingServer(): Promise<RecordingServer> {
  const seen: RecordingServer['seen'] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/landing') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>docs</p><img src="/pixel">');
      return;
    }
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://127.0.0.1:${address.port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let browser: Browser;
let host: TempHost;
let elsewhere: RecordingServer;
/** Calls of the server-info handler's first step; a refused request must leave it unchanged. */
let handlerRuns = 0;

beforeAll(async () => {
  [browser, host, elsewhere] = await Promise.all([launchChromium(), startTempHost(), startRecordingServer()]);
  const whenReady = host.supervisor.whenReady.bind(host.supervisor);
  host.supervisor.whenReady = () => {
    handlerRuns += 1;
    return whenReady();
  };
}, 90_000);
afterAll(async () => {
  await Promise.all([browser?.close(), host?.stop(), elsewhere?.close()]);
});

const policyFile = () => join(host.userData, 'host', 'policy.json');

/** What a local listener can send with only the cookie: every other header forged as the bridge's. */
function forged(cookie: string, channel: string, body: unknown, extra: Record<string, string> = {}) {
  return rawRequest({
    port: host.ui.port,
    path: `/_host/ipc/${channel}`,
    headers: {
      host: `127.0.0.1:${host.ui.port}`,
      cookie,
      origin: host.uiOrigin,
      referer: `${host.uiOrigin}/desktop/settings`,
      'content-type': 'application/json',
      ...extra,
    },
    body: JSON.stringify(body),
  });
}

/** The app's own host IPC calls from a page: the daemon link (agent.server-info) and the global rules. */
function appCalls(page: Page) {
  return page.evaluate(async () => {
    const bastion = window.bastion;
    if (!bastion) return 'no bridge';
    try {
      const handshake = await bastion.handshake();
      const listing = await bastion.policy.list(null);
      return { handshake: typeof handshake, global: Array.isArray(listing.global) };
    } catch (error) {
      return (error as { code?: string }).code ?? 'failed';
    }
  });
}

describeAttack('authentication', 'the host-session cookie replayed by another loopback server', () => {
  it('a cookie another loopback port got from a link click, replayed with forged Origin and Referer, is refused IPC_PAGE_KEY on agent.server-info and policy.add: no password, no handler, no policy.json, the log holds the refusal and not the cookie', async () => {
    const { context, page } = await openDesktop(browser, host);
    const pageKey = await page.evaluate(() => localStorage.getItem('bastion.page-key'));
    expect(pageKey).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The person follows a plain link out of the app to another loopback port.
    await page.evaluate((href) => {
      const link = document.createElement('a');
      link.id = 'leak-link';
      link.href = href;
      link.textContent = 'docs';
      document.body.append(link);
    }, `${elsewhere.origin}/landing`);
    await Promise.all([page.waitForURL(`${elsewhere.origin}/landing`), page.locator('#leak-link').click()]);
    await expect.poll(() => elsewhere.seen.some((request) => request.url === '/pixel')).toBe(true);
    const pixel = elsewhere.seen.find((request) => request.url === '/pixel');
    const stolen = new RegExp(`bastion_session_${host.ui.port}=[A-Za-z0-9_-]{43}`).exec(
      pixel?.headers.cookie ?? '',
    )?.[0];
    // The hole's premise: the cookie does reach the other server. The key never does.
    expect(stolen).toBeDefined();
    expect(JSON.stringify(elsewhere.seen)).not.toContain(pageKey);
    const cookie = stolen ?? '';

    const password = host.supervisor.current?.password ?? '';
    expect(password.length).toBeGreaterThan(16);
    expect(existsSync(policyFile())).toBe(false);
    const runsBefore = handlerRuns;
    const recordsBefore = host.records.length;

    const info = await forged(cookie, 'agent.server-info', {});
    const rule = { decision: 'allow', tools: ['run_command'], command: 'rm' };
    const added = await forged(cookie, 'policy.add', { workspace: null, rule });
    for (const response of [info, added]) {
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toEqual({
        code: 'IPC_PAGE_KEY',
        message: 'this page was not opened from a launch link; run bastion open and use the link it prints',
      });
      expect(response.body).not.toContain(password);
    }
    expect(handlerRuns).toBe(runsBefore);
    expect(existsSync(policyFile())).toBe(false);
    expect(host.policy.listing(null).global).toEqual([]);
    const records = host.records.slice(recordsBefore).filter((record) => record.event.startsWith('ipc.'));
    expect(records.map((record) => [record.event, record.fields.channel, record.fields.code])).toEqual([
      ['ipc.refused', 'agent.server-info', 'IPC_PAGE_KEY'],
      ['ipc.refused', 'policy.add', 'IPC_PAGE_KEY'],
    ]);
    const token = cookie.split('=')[1] ?? '-';
    expect(JSON.stringify(host.records)).not.toContain(token);
    expect(JSON.stringify(host.records)).not.toContain(pageKey);

    // Control: the very same forged request with the page key is served, so the key alone made
    // the difference.
    const withKey = await forged(cookie, 'agent.server-info', {}, { [HOST_IPC_PAGE_KEY_HEADER]: pageKey ?? '' });
    expect(withKey.status).toBe(200);
    expect(JSON.parse(withKey.body)).toMatchObject({ password });
    await context.close();
  });
});

describe('the app with its page key', () => {
  it('after a launch the page’s host IPC calls succeed; so do a second tab opened at /desktop/settings without a fragment, and the first tab after a later launch in the same browser', async () => {
    const { context, page } = await openDesktop(browser, host);
    const works = { handshake: 'object', global: true };
    expect(await appCalls(page)).toEqual(works);

    const second = await context.newPage();
    await second.goto(`${host.uiOrigin}/desktop/settings`);
    expect(await appCalls(second)).toEqual(works);
    await second.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await second.getByRole('alert').count()).toBe(0);

    // A later launch replaces both the cookie and the stored key; the earlier tab follows it.
    const later = await context.newPage();
    await later.goto(host.desktop.issueLaunchUrl());
    await later.waitForURL(`${host.uiOrigin}/desktop/`);
    expect(await appCalls(page)).toEqual(works);
    expect(await appCalls(later)).toEqual(works);
    await context.close();
  });

  it('a link straight to /desktop/#bastion-page-key=… or to /#bastion-page-key=… (any page can open one) stores no key: the launched tab and a new one keep working', async () => {
    const { context, page } = await openDesktop(browser, host);
    const works = { handshake: 'object', global: true };
    const stored = () => page.evaluate(() => localStorage.getItem('bastion.page-key'));
    const real = await stored();
    expect(real).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const planted = 'A'.repeat(43);
    for (const link of [
      `${host.uiOrigin}/desktop/#bastion-page-key=${planted}`,
      `${host.uiOrigin}/#bastion-page-key=${planted}`,
    ]) {
      const opened = await context.newPage();
      await opened.goto(link);
      await opened.waitForURL((url) => url.pathname === '/desktop/');
      expect(opened.url()).not.toContain(planted);
      await opened.close();
    }
    expect(await stored()).toBe(real);
    expect(await appCalls(page)).toEqual(works);
    const fresh = await context.newPage();
    await fresh.goto(`${host.uiOrigin}/desktop/settings`);
    expect(await appCalls(fresh)).toEqual(works);
    await context.close();
  });

  it('a tab whose browser has the cookie but not the page key shows the IPC_PAGE_KEY notice naming bastion open', async () => {
    const { context, page } = await openDesktop(browser, host);
    await page.evaluate(() => localStorage.clear());
    const bare = await context.newPage();
    await bare.goto(`${host.uiOrigin}/desktop/`);
    const notice = bare.getByRole('alert').filter({ hasText: 'Cannot reach the agent' });
    await notice.waitFor();
    expect(await notice.textContent()).toContain(
      'this page was not opened from a launch link; run bastion open and use the link it prints (IPC_PAGE_KEY)',
    );
    expect(await appCalls(bare)).toBe('IPC_PAGE_KEY');
    await context.close();
  });

  it('the page key is out of the address bar before the app runs, is on no window property (only in the origin’s localStorage), and is sent only to host IPC in its header, never in a URL or Referer', async () => {
    const context: BrowserContext = await browser.newContext();
    const page = await context.newPage();
    const requests: Promise<{ url: string; headers: Record<string, string> }>[] = [];
    const record = (request: Request): void => {
      requests.push(request.allHeaders().then((headers) => ({ url: request.url(), headers })));
    };
    context.on('request', record);
    const launch = page.waitForResponse((response) => response.url().includes('/desktop/launch?'));
    // The URL as the app's scripts find it: the document turns interactive after the bridge (a
    // classic script in <head>) ran and before the app's deferred module runs.
    await page.addInitScript(() => {
      document.addEventListener('readystatechange', () => {
        (window as unknown as { seenUrl?: string }).seenUrl ??= location.href;
      });
    });
    await page.goto(host.desktop.issueLaunchUrl());
    const redirect = (await (await launch).allHeaders()).location ?? '';
    const pageKey = /#bastion-page-key=([A-Za-z0-9_-]{43})$/.exec(redirect)?.[1] ?? '';
    expect(pageKey).not.toBe('');
    await page.getByRole('status', { name: 'Security posture' }).waitFor();
    expect(await appCalls(page)).toEqual({ handshake: 'object', global: true });

    expect(page.url()).toBe(`${host.uiOrigin}/desktop/`);
    expect(await page.evaluate(() => (window as unknown as { seenUrl?: string }).seenUrl)).toBe(
      `${host.uiOrigin}/desktop/`,
    );
    const hits = await windowPathsHolding(page, pageKey, true);
    const found = await page.evaluate((secret) => {
      return {
        href: location.href.includes(secret),
        url: document.URL.includes(secret),
        navigation: (
          window as unknown as { navigation: { currentEntry: { url: string } } }
        ).navigation.currentEntry.url.includes(secret),
        state: JSON.stringify(history.state ?? null).includes(secret),
        stored: Object.keys(localStorage).filter((name) => localStorage.getItem(name) === secret),
        session: JSON.stringify({ ...sessionStorage }).includes(secret),
      };
    }, pageKey);
    expect(hits).toEqual([]);
    expect(found).toEqual({
      href: false,
      url: false,
      navigation: false,
      state: false,
      stored: ['bastion.page-key'],
      session: false,
    });

    const sent = await Promise.all(requests);
    const ipc = sent.filter((request) => new URL(request.url).pathname.startsWith('/_host/ipc/'));
    expect(ipc.length).toBeGreaterThan(0);
    for (const request of sent) {
      const { [HOST_IPC_PAGE_KEY_HEADER]: header, ...others } = request.headers;
      expect(request.url, request.url).not.toContain(pageKey);
      expect(JSON.stringify(others), request.url).not.toContain(pageKey);
      expect(header, request.url).toBe(ipc.includes(request) ? pageKey : undefined);
    }
    // The page's polls go on meanwhile: each recorded since is read before the context closes,
    // whose closing would otherwise reject their headers' reading.
    context.off('request', record);
    await Promise.allSettled(requests);
    await context.close();
  });
});
