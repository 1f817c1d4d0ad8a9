/// <reference lib="dom" />
/**
 * A long session stays whole in real Chromium: 4 100 turns (more than 4 000 stored messages, where
 * user prompts used to render as empty bubbles) open on the newest prompt and reply, every prompt
 * has its text (the oldest too, after scrolling up), and the transcript is virtualized — only a
 * window of rows is in the DOM, not one per item.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { makeTempDir, startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop } from './support/browser.js';
import { expectInViewport } from './support/layout.js';
import { seedLongSession } from './support/long-session.js';

const TURNS = 4_100;
let browser: Browser;
let host: TempHost;
let context: BrowserContext;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  const userData = join(makeTempDir('bastion-long-'), 'home');
  ({ sessionId } = seedLongSession(userData, TURNS));
  [browser, host] = await Promise.all([launchChromium(), startTempHost({ userData })]);
  ({ context, page } = await openDesktop(browser, host));
  await page.setViewportSize({ width: 1280, height: 800 });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await Promise.all([browser?.close(), host?.stop()]);
});

describe('a session of more than 4 000 messages', () => {
  it('opens on the newest prompt and reply, with the prompt’s text (no empty bubble)', async () => {
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    const newest = page.getByTestId('user-bubble').filter({ hasText: `prompt ${TURNS - 1}` });
    await newest.waitFor({ timeout: 60_000 });
    await expectInViewport(page, page.getByText(`reply ${TURNS - 1}`, { exact: true }), 'the newest reply');
    await page.getByText('Loading message').waitFor({ state: 'detached', timeout: 60_000 });
    for (const text of await page.getByTestId('user-bubble').allTextContents()) expect(text).toMatch(/^prompt \d+$/);
  });

  it('keeps only a window of rows in the DOM (virtualized), and the oldest prompt is there after scrolling up', async () => {
    const rows = await page.locator('.transcript-row').count();
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(100);
    await page.getByTestId('transcript').evaluate((element) => {
      element.scrollTop = 0;
    });
    await page
      .getByTestId('user-bubble')
      .filter({ hasText: /^prompt 0$/ })
      .waitFor();
    expect(await page.locator('.transcript-row').count()).toBeLessThan(100);
  });
});
