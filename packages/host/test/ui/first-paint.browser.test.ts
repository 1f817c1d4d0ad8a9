/// <reference lib="dom" />
/**
 * How the real desktop app loads, in real Chromium against the real host: a small entry, the app
 * and the markdown renderer as chunks that index.html preloads, Settings as a lazily loaded one —
 * every one of them under the nonce CSP with 'strict-dynamic' and no 'unsafe-eval', with no
 * violation reported. A session reopened while the markdown chunk is held back paints its reply
 * as the text it is, and the same rows become rendered markdown when the chunk arrives, with the
 * view still on the newest message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import {
  defineScriptedProvider,
  SCRIPTED_MODEL,
  startScriptedEndpoint,
  type ScriptedEndpoint,
} from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop } from './support/browser.js';
import { expectInViewport } from './support/layout.js';

const REPLY = ['## Plan\n\n', 'Here is **what** I found:\n\n', '```ts\nconst answer: number = 42;\n```\n'];
/** Within this many pixels of the end counts as "at the newest message" (the list's own slack). */
const AT_END_PX = 64;

let endpoint: ScriptedEndpoint;
let browser: Browser;
let host: TempHost;
let sessionId: string;

interface ViolationWindow {
  __violations?: string[];
}

/** A fresh page on the desktop that records every CSP violation it sees from its first script on. */
async function openRecording(): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await openDesktop(browser, host);
  await opened.page.addInitScript(() => {
    const violations: string[] = [];
    (window as ViolationWindow).__violations = violations;
    document.addEventListener('securitypolicyviolation', (event) =>
      violations.push(`${event.effectiveDirective} ${event.blockedURI}`),
    );
  });
  await opened.page.setViewportSize({ width: 1280, height: 800 });
  return opened;
}

const violations = (page: Page) => page.evaluate(() => (window as ViolationWindow).__violations ?? ['not recorded']);
const loadedScripts = (page: Page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .map((entry) => new URL(entry.name).pathname)
      .filter((path) => path.startsWith('/desktop/assets/') && path.endsWith('.js')),
  );
const distanceFromEnd = (page: Page) =>
  page.getByTestId('transcript').evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);

beforeAll(async () => {
  endpoint = await startScriptedEndpoint([{ kind: 'text', pieces: REPLY }]);
  [browser, host] = await Promise.all([launchChromium(), startTempHost({ allowEndpoints: [endpoint.baseUrl] })]);
  await defineScriptedProvider(host, endpoint, 'sk-first-paint-test');
  const created = await host.client.request<Session>('POST', '/sessions', { provider: 'local', model: SCRIPTED_MODEL });
  sessionId = created.body.id;
  const { context, page } = await openDesktop(browser, host);
  await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
  await page.getByLabel('Message').fill('Make a plan');
  await page.getByLabel('Message').press('Enter');
  await page.getByTestId('run-end').waitFor();
  await context.close();
}, 90_000);

afterAll(async () => {
  await Promise.all([browser?.close(), host?.stop(), endpoint?.close()]);
});

describe('loading the desktop app', () => {
  it('runs the entry, the app and markdown chunks index.html preloads, and the lazy Settings chunk under the nonce CSP, with no violation', async () => {
    const { context, page } = await openRecording();
    const response = await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("'strict-dynamic'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toContain('unsafe-inline');
    // rendered by the markdown chunk: a heading and highlighted code
    await page.locator('.markdown h2', { hasText: 'Plan' }).waitFor();
    expect(await page.locator('.markdown pre code.hljs .hljs-keyword').count()).toBeGreaterThan(0);
    const preloads = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')).map((link) => ({
        href: new URL(link.href).pathname,
        nonced: link.nonce !== '',
      })),
    );
    expect(preloads.map((link) => link.href.replace(/-[\w-]{8}\.js$/, ''))).toEqual(
      expect.arrayContaining(['/desktop/assets/app-root', '/desktop/assets/markdown-renderer']),
    );
    expect(preloads.every((link) => link.nonced)).toBe(true);
    expect(await loadedScripts(page)).not.toContainEqual(expect.stringContaining('settings-view'));

    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await loadedScripts(page)).toContainEqual(expect.stringContaining('/desktop/assets/settings-view-'));
    expect(await violations(page)).toEqual([]);
    await context.close();
  });

  it('paints a reopened session’s reply as its text while the markdown chunk is held back, then renders the same rows in place, the view still on the newest message', async () => {
    const { context, page } = await openRecording();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/desktop/assets/markdown-renderer-*.js', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    const prompt = page.getByTestId('user-bubble').filter({ hasText: 'Make a plan' });
    await expectInViewport(page, prompt, 'the newest prompt before the markdown chunk');
    const reply = page.locator('.bubble.assistant .markdown').last();
    expect(await reply.locator('.markdown-pending').allTextContents()).toEqual([
      '## Plan',
      'Here is **what** I found:',
      '```ts\nconst answer: number = 42;\n```',
    ]);
    expect(await reply.locator('h2').count()).toBe(0);
    expect(await distanceFromEnd(page)).toBeLessThanOrEqual(AT_END_PX);

    release();
    await reply.locator('h2', { hasText: 'Plan' }).waitFor();
    await reply.locator('pre code.hljs').waitFor();
    expect(await reply.locator('strong').textContent()).toBe('what');
    expect(await reply.locator('.markdown-pending').count()).toBe(0);
    await expect.poll(() => distanceFromEnd(page)).toBeLessThanOrEqual(AT_END_PX);
    await expectInViewport(page, prompt, 'the newest prompt after the markdown chunk');
    await expectInViewport(page, page.getByLabel('Message'), 'the composer');
    expect(await violations(page)).toEqual([]);
    await context.close();
  });
});
