/// <reference lib="dom" />
/**
 * Custom endpoints from Settings, and the host-owned consent that grants them, in real Chromium:
 * with no terminal to ask, the host opens its own confirmation page on its own loopback origin
 * (the test plays the system browser: the opener hands the URL to a separate browser context).
 * Allow there grants the exact origin; the endpoint's models appear, its definition survives a
 * reload, Delete removes it. A desktop page script cannot answer its own request — not by fetch
 * (CSP), not by a request with the right token from the desktop origin (Origin refused), not by
 * framing the page. With nobody to ask, the page says so and gives the exact `--allow-endpoint`
 * command — never "denied in the terminal".
 */

import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { rawRequest } from '../support/raw-request.js';
import { startScriptedEndpoint, type ScriptedEndpoint } from '@bastion/test-support';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop } from './support/browser.js';
import { expectInViewport, shotAllModes, SHOTS } from './support/layout.js';

let browser: Browser;
let endpoint: ScriptedEndpoint;
let host: TempHost | undefined;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  [browser, endpoint] = await Promise.all([launchChromium(), startScriptedEndpoint([], ['llama3.2:latest'])]);
}, 60_000);
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
  await host?.stop();
  host = undefined;
});
afterAll(async () => {
  await Promise.all([browser?.close(), endpoint?.close()]);
});

/** A host whose consent opener records each confirmation URL (what xdg-open would receive). */
async function hostWithConsentPage(): Promise<{ urls: string[]; next: () => Promise<string> }> {
  const urls: string[] = [];
  const waiters: ((url: string) => void)[] = [];
  host = await startTempHost({
    consentOpener: (url) => {
      urls.push(url);
      waiters.shift()?.(url);
      return Promise.resolve(true);
    },
  });
  const next = () =>
    urls.length > 0 ? Promise.resolve(urls.shift() as string) : new Promise<string>((resolve) => waiters.push(resolve));
  return { urls, next };
}

async function desktop(): Promise<Page> {
  const opened = await openDesktop(browser, host!);
  contexts.push(opened.context);
  await opened.page.setViewportSize({ width: 1280, height: 900 });
  await opened.page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
  return opened.page;
}

/** The user's own browser window on the confirmation page. */
async function userBrowser(url: string): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

async function addEndpoint(page: Page, name: string, url: string): Promise<void> {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('URL').fill(url);
  await page.getByRole('button', { name: 'Add and approve' }).click();
}

const grantFor = (origin: string) => host!.network.snapshot.grants.find((grant) => grant.origin === origin);

describe('custom endpoints and the host-owned consent page', () => {
  it('adds an endpoint; the host’s own page (another origin) asks, Allow grants it; probe, reload and delete work', async () => {
    const { next } = await hostWithConsentPage();
    const page = await desktop();
    await addEndpoint(page, 'Ollama', endpoint.baseUrl);
    const consentUrl = await next();
    const consentOrigin = new URL(consentUrl).origin;
    expect(consentOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(consentOrigin).not.toBe(host!.uiOrigin);
    await page.getByText('Waiting for your approval: Bastion asks in the terminal').waitFor();
    expect(grantFor(endpoint.origin)).toBeUndefined();
    const confirm = await userBrowser(consentUrl);
    await confirm.getByRole('heading', { name: 'Allow provider requests to this custom endpoint?' }).waitFor();
    await confirm.getByText(endpoint.origin, { exact: true }).waitFor();
    await expectInViewport(confirm, confirm.getByRole('button', { name: 'Allow' }), 'the consent page’s Allow');
    await shotAllModes(confirm, SHOTS, '20-consent-page');
    await confirm.getByRole('button', { name: 'Allow' }).click();
    await confirm.getByRole('heading', { name: 'Allowed.' }).waitFor();
    await page.getByText(`Approved: ${endpoint.origin}`).waitFor();
    expect(grantFor(endpoint.origin)).toBeDefined();

    const row = page.getByTestId('endpoint-ollama');
    await row.getByText('approved', { exact: true }).waitFor();
    await row.getByRole('button', { name: 'Probe' }).click();
    await row.getByText('Models: llama3.2:latest').waitFor();
    await page.getByLabel('Model for new sessions').locator('option', { hasText: 'llama3.2:latest' }).waitFor({
      state: 'attached',
    });
    await shotAllModes(page, SHOTS, '21-settings-endpoints', row);
    await page.reload();
    await page.getByTestId('endpoint-ollama').getByText(endpoint.baseUrl).waitFor();
    await page.getByTestId('endpoint-ollama').getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('endpoint-ollama').waitFor({ state: 'detached' });
    const listed = await host!.client.request<{ endpoints: unknown[] }>('POST', '/providers/endpoints/list', {});
    expect(listed.body.endpoints).toEqual([]);
  });

  it('a desktop page script cannot approve its own request: fetch blocked, right token from the desktop origin refused, no frame', async () => {
    const { next } = await hostWithConsentPage();
    const page = await desktop();
    await addEndpoint(page, 'sneaky', endpoint.baseUrl);
    const consentUrl = await next();
    const target = new URL(consentUrl);
    // 1. The page's own script POSTs Allow (even knowing the token): its CSP has no such connect-src.
    const fetched = await page.evaluate(async (url) => {
      try {
        await fetch(url, {
          method: 'POST',
          mode: 'no-cors',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'decision=allow',
        });
        return 'sent';
      } catch {
        return 'blocked';
      }
    }, consentUrl);
    expect(fetched).toBe('blocked');
    // 2. The same answer sent with the desktop origin (what any page but the consent page carries): refused.
    const forged = await rawRequest({
      port: Number(target.port),
      path: target.pathname,
      headers: {
        host: target.host,
        origin: host!.uiOrigin,
        'sec-fetch-site': 'same-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'decision=allow',
    });
    expect(forged.status).toBe(403);
    // 3. A frame of the page: refused by its headers (and the desktop CSP's frame-src).
    const page403 = await rawRequest({
      port: Number(target.port),
      method: 'GET',
      path: target.pathname,
      headers: { host: target.host },
    });
    expect(page403.status).toBe(200);
    expect(page403.headers['x-frame-options']).toBe('DENY');
    expect(String(page403.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    const framed = await page.evaluate(async (url) => {
      const frame = document.createElement('iframe');
      frame.src = url;
      document.body.append(frame);
      await new Promise((resolve) => setTimeout(resolve, 500));
      try {
        return frame.contentDocument?.body?.textContent ?? 'unreadable';
      } catch {
        return 'unreadable';
      }
    }, consentUrl);
    expect(framed).not.toContain('Allow');
    // Nothing was granted; the question is still open for the person, who denies it.
    expect(grantFor(endpoint.origin)).toBeUndefined();
    const confirm = await userBrowser(consentUrl);
    await confirm.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('declined on Bastion’s confirmation page').waitFor();
    expect(grantFor(endpoint.origin)).toBeUndefined();
    expect(host!.records.some((record) => record.event === 'consent.page-refused')).toBe(true);
  });

  it('with nobody to ask, says so and gives the exact --allow-endpoint command (never "denied in the terminal")', async () => {
    host = await startTempHost();
    const page = await desktop();
    await addEndpoint(page, 'nobody', `${endpoint.baseUrl}/`);
    const notice = page.getByText('Nobody could be asked');
    await notice.waitFor();
    expect(await notice.textContent()).toContain(`bastion start --allow-endpoint ${endpoint.baseUrl}`);
    expect(await page.getByText(/denied in the terminal/i).count()).toBe(0);
    expect(grantFor(endpoint.origin)).toBeUndefined();
    await notice.scrollIntoViewIfNeeded();
    await shotAllModes(page, SHOTS, '22-settings-endpoint-unavailable');
  });
});
