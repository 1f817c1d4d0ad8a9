/// <reference lib="dom" />
/**
 * SEC-004 "Path-scoped window.bastion", in real Chromium: the bridge exposes nothing outside
 * /desktop, cannot be overwritten or extended by page script, and its history guard refuses
 * leaving /desktop and recovers when a non-desktop entry is reached anyway.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop, windowPathsHolding } from './support/browser.js';
import { BUILT_BRIDGE, fixtureApp } from './support/desktop-files.js';
import { startPagesServer, type PagesServer } from './support/pages-server.js';

let browser: Browser;
let host: TempHost;
let elsewhere: PagesServer;

const pageWithBridge = {
  type: 'text/html',
  body: '<!doctype html><script src="/bridge.js"></script><p>not a desktop page</p>',
};

beforeAll(async () => {
  [browser, host, elsewhere] = await Promise.all([
    launchChromium(),
    startTempHost({ desktopFiles: fixtureApp('csp-probe') }),
    startPagesServer({
      '/bridge.js': { type: 'text/javascript', body: readFileSync(BUILT_BRIDGE) },
      '/blog/post': pageWithBridge,
      '/desktopX': pageWithBridge,
      '/': pageWithBridge,
      '/desktop/': pageWithBridge,
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), host?.stop(), elsewhere?.close()]);
});

describe('bridge path scope', () => {
  for (const path of ['/blog/post', '/desktopX', '/']) {
    it(`defines nothing on a page at ${path}, even with the bridge script loaded`, async () => {
      const page = await browser.newPage();
      await page.goto(`${elsewhere.origin}${path}`);
      expect(await page.evaluate(() => 'bastion' in window)).toBe(false);
      expect(await page.evaluate(() => history.pushState === History.prototype.pushState)).toBe(true);
      await page.close();
    });
  }

  it('control: the same bridge bytes do define window.bastion under /desktop/', async () => {
    const page = await browser.newPage();
    await page.goto(`${elsewhere.origin}/desktop/`);
    expect(await page.evaluate(() => typeof window.bastion)).toBe('object');
    await page.close();
  });

  it('the UI server serves nothing outside /desktop: / redirects, other paths are 404 without a bridge', async () => {
    const page = await browser.newPage();
    const blog = await page.goto(`${host.uiOrigin}/blog/post`);
    expect(blog?.status()).toBe(404);
    expect(await page.evaluate(() => 'bastion' in window)).toBe(false);
    expect((await page.goto(`${host.uiOrigin}/desktopX`))?.status()).toBe(404);
    await page.goto(`${host.uiOrigin}/`);
    expect(new URL(page.url()).pathname).toBe('/desktop/');
    await page.close();
  });
});

describe('bridge immutability', () => {
  it('cannot be overwritten, deleted, redefined or extended by page script', async () => {
    const { context, page } = await openDesktop(browser, host);
    const outcome = await page.evaluate(() => {
      const original = window.bastion;
      const attempts: Record<string, string> = {};
      const attempt = (name: string, action: () => void) => {
        try {
          action();
          attempts[name] = 'no error';
        } catch (error) {
          attempts[name] = (error as Error).name;
        }
      };
      const w = window as unknown as Record<string, unknown>;
      // Reflect.set reports what a strict-mode assignment would throw on.
      const assign = (target: object, key: string, value: unknown) => {
        if (!Reflect.set(target, key, value)) throw new TypeError(`cannot assign ${key}`);
      };
      attempt('assign', () => assign(window, 'bastion', { fake: true }));
      attempt('delete', () => {
        if (!delete w.bastion) throw new TypeError('not deletable');
      });
      attempt('defineProperty', () => Object.defineProperty(window, 'bastion', { value: { fake: true } }));
      attempt('add key', () => Object.defineProperty(original, 'evil', { value: 1 }));
      attempt('replace method', () => Object.defineProperty(original?.sessions, 'list', { value: () => 1 }));
      attempt('replace nested method by assignment', () => assign(original?.agent ?? {}, 'run', () => 1));
      attempt('extend a function', () =>
        Object.defineProperty(Reflect.get(original ?? {}, 'handshake') as object, 'evil', { value: 1 }),
      );
      attempt('setPrototypeOf', () => {
        Object.setPrototypeOf(original, { evil: 1 });
      });
      const descriptor = Object.getOwnPropertyDescriptor(window, 'bastion');
      return {
        attempts,
        same: window.bastion === original,
        writable: descriptor?.writable,
        configurable: descriptor?.configurable,
        frozen: [
          original,
          original?.sessions,
          original?.agent,
          original?.secrets,
          original?.mcp,
          Reflect.get(original?.sessions ?? {}, 'list'),
        ].every((o) => Object.isFrozen(o)),
        keys: Object.keys(original ?? {}).sort(),
        secretKeys: Object.keys(original?.secrets ?? {}).sort(),
        agentKeys: Object.keys(original?.agent ?? {}).sort(),
        mcpKeys: Object.keys(original?.mcp ?? {}).sort(),
      };
    });
    expect(outcome.same).toBe(true);
    expect(outcome.writable).toBe(false);
    expect(outcome.configurable).toBe(false);
    expect(outcome.frozen).toBe(true);
    for (const [name, result] of Object.entries(outcome.attempts)) {
      expect(result, name).toBe('TypeError');
    }
    expect(outcome.keys).toEqual([
      'agent',
      'approvals',
      'asks',
      'chatgpt',
      'endpoints',
      'handshake',
      'mcp',
      'mode',
      'models',
      'policy',
      'prompts',
      'secrets',
      'sessions',
      'version',
      'workspaces',
    ]);
    // Secrets can be checked, set and deleted; there is no way to read one.
    expect(outcome.secretKeys).toEqual(['delete', 'has', 'set']);
    expect(outcome.agentKeys).toEqual(['abort', 'compact', 'rewind', 'run', 'stream', 'undo']);
    // MCP servers are the host's: listed, added, removed and restarted over host IPC, and their
    // prompts and resources offered to the person (catalog, prompt, resource), nothing more.
    expect(outcome.mcpKeys).toEqual(['add', 'catalog', 'list', 'prompt', 'remove', 'resource', 'restart']);
    await context.close();
  });

  it('holds no password anywhere on window', async () => {
    const { context, page } = await openDesktop(browser, host);
    await page.evaluate(() => window.bastion?.handshake());
    const password = host.supervisor.current?.password ?? '';
    expect(password.length).toBeGreaterThan(16);
    const hits = await windowPathsHolding(page, password);
    const found = await page.evaluate((secret) => {
      return {
        storage: JSON.stringify({ ...localStorage, ...sessionStorage }).includes(secret),
        cookie: document.cookie.includes(secret),
      };
    }, password);
    expect(hits).toEqual([]);
    expect(found).toEqual({ storage: false, cookie: false });
    await context.close();
  });
});

describe('history guard', () => {
  it('refuses pushState and replaceState to a non-desktop path and allows desktop paths', async () => {
    const { context, page } = await openDesktop(browser, host);
    const outcome = await page.evaluate(() => {
      const tryIt = (action: () => void) => {
        try {
          action();
          return 'ok';
        } catch (error) {
          return (error as Error).name;
        }
      };
      return {
        push: tryIt(() => history.pushState({}, '', '/blog')),
        replace: tryIt(() => history.replaceState({}, '', '/desktopX')),
        viaPrototype: tryIt(() => History.prototype.pushState.call(history, {}, '', '/x')),
        dotDot: tryIt(() => history.pushState({}, '', '/desktop/../blog')),
        overwrite: tryIt(() => Object.defineProperty(History.prototype, 'pushState', { value: () => undefined })),
        desktop: tryIt(() => history.pushState({}, '', '/desktop/settings')),
        path: location.pathname,
      };
    });
    expect(outcome).toEqual({
      push: 'SecurityError',
      replace: 'SecurityError',
      viaPrototype: 'SecurityError',
      dotDot: 'SecurityError',
      overwrite: 'TypeError',
      desktop: 'ok',
      path: '/desktop/settings',
    });
    await context.close();
  });

  it('recovers to /desktop/ when a non-desktop entry is reached through a pristine History from another realm', async () => {
    const { context, page } = await openDesktop(browser, host);
    await page.evaluate(() => {
      const frame = document.createElement('iframe');
      document.body.append(frame);
      const pristine = (frame.contentWindow as unknown as { History: typeof History }).History.prototype;
      Reflect.apply(Reflect.get(pristine, 'pushState') as () => void, history, [{}, '', '/blog/escaped']);
      history.pushState({}, '', '/desktop/after');
    });
    expect(new URL(page.url()).pathname).toBe('/desktop/after');
    const landed = page.waitForURL((url) => url.pathname === '/desktop/' && url.search === '');
    await page.goBack().catch(() => undefined);
    await landed;
    expect(await page.evaluate(() => typeof window.bastion)).toBe('object');
    await context.close();
  });
});
