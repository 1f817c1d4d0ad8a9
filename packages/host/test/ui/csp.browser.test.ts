/// <reference lib="dom" />
/**
 * SEC-004 "CSP-strict /desktop/* routes", in real Chromium: the UI server's nonce CSP lets the
 * app's own scripts run and blocks an injected inline script, a script with a wrong nonce, a
 * script without one, inline event-handler attributes (parsed and injected later) and eval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop } from './support/browser.js';
import { fixtureApp } from './support/desktop-files.js';

interface Probe {
  ran: string[];
  violations: string[];
  evalResult: string;
  functionResult: string;
  bridge: string;
}

let browser: Browser;
let host: TempHost;

beforeAll(async () => {
  [browser, host] = await Promise.all([launchChromium(), startTempHost({ desktopFiles: fixtureApp('csp-probe') })]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), host?.stop()]);
});

describe('desktop CSP in Chromium', () => {
  it('runs the nonce-bearing scripts and blocks every injected form of script', async () => {
    const { context, page } = await openDesktop(browser, host);
    await page.waitForFunction(
      () =>
        (window as unknown as { probe?: Probe }).probe?.violations.filter((v) => v === 'script-src-attr').length === 2,
    );
    const probe = await page.evaluate(() => (window as unknown as { probe: Probe }).probe);
    // The bridge ran first (window.bastion existed when the app script started), then the app.
    expect(probe.bridge).toBe('object');
    expect(probe.ran).toEqual(['app-script', 'inline-with-nonce']);
    expect(probe.ran).not.toContain('injected-inline');
    expect(probe.ran).not.toContain('wrong-nonce');
    expect(probe.ran).not.toContain('script-without-nonce');
    expect(probe.ran).not.toContain('onerror-attribute');
    expect(probe.ran).not.toContain('injected-onerror');
    expect(probe.evalResult).toBe('EvalError');
    expect(probe.functionResult).toBe('EvalError');
    expect(probe.violations.filter((v) => v === 'script-src-elem').length).toBeGreaterThanOrEqual(3);
    await context.close();
  });

  it('sends a fresh nonce and the full header set with every HTML response', async () => {
    const { context, page } = await openDesktop(browser, host);
    const first = await page.reload();
    const second = await page.reload();
    const [a, b] = [first, second].map((response) => response?.headers() ?? {});
    const nonceOf = (csp: string | undefined) => /'nonce-([^']+)'/.exec(csp ?? '')?.[1];
    expect(nonceOf(a?.['content-security-policy'])).toBeDefined();
    expect(nonceOf(a?.['content-security-policy'])).not.toBe(nonceOf(b?.['content-security-policy']));
    expect(a?.['content-security-policy']).toContain(`connect-src 'self' http://127.0.0.1:${host.socketHost.port};`);
    expect(a).toMatchObject({
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
      'cache-control': 'no-store',
    });
    // The nonce in the page is this response's nonce, on the bridge first of all.
    const bridgeNonce = await page.evaluate(() => document.querySelector('script')?.nonce);
    const bridgeSrc = await page.evaluate(() => document.querySelector('script')?.getAttribute('src'));
    expect(bridgeSrc).toBe('/desktop/bridge.js');
    expect(bridgeNonce).toBe(nonceOf(b?.['content-security-policy']));
    await context.close();
  });
});
