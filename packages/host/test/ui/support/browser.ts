/// <reference lib="dom" />
/**
 * Test support: the system Chromium through playwright-core, and helpers to open Bastion's UI
 * the way a person does (the launch URL from the host).
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { BastionHost } from '../../../src/bastion-host.js';
// window.bastion's type, for the code tests run inside pages.
import type {} from '@bastion/bridge';

export const CHROMIUM_PATH = '/usr/lib/chromium/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * `scrollbars`: show them taking room, as on Linux and Windows, for a test of what they move
 * (Playwright's headless Chromium hides them by default).
 */
export function launchChromium({ scrollbars = false } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
    ...(scrollbars && { ignoreDefaultArgs: ['--hide-scrollbars'] }),
  });
}

/** A fresh context whose page has exchanged a launch ticket and sits on /desktop/. */
export async function openDesktop(
  browser: Browser,
  host: BastionHost,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const response = await page.goto(host.desktop.issueLaunchUrl());
  if (response?.status() !== 200 || new URL(page.url()).pathname !== '/desktop/') {
    throw new Error(`launch did not land on /desktop/ (status ${response?.status()}, url ${page.url()})`);
  }
  return { context, page };
}

/**
 * The paths on the page's `window` (own property names, four levels deep) whose string value holds
 * `secret`; `skipStorage` leaves out localStorage and sessionStorage, for a test that checks them
 * itself.
 */
export function windowPathsHolding(page: Page, secret: string, skipStorage = false): Promise<string[]> {
  return page.evaluate(
    ([secret, skipStorage]) => {
      const seen = new Set<unknown>();
      const hits: string[] = [];
      const walk = (value: unknown, path: string, depth: number) => {
        if (depth > 4 || value === null || seen.has(value)) return;
        if (typeof value === 'string') {
          if (value.includes(secret)) hits.push(path);
          return;
        }
        if (typeof value !== 'object' && typeof value !== 'function') return;
        seen.add(value);
        for (const key of Object.getOwnPropertyNames(value)) {
          if (skipStorage && value === window && (key === 'localStorage' || key === 'sessionStorage')) continue;
          let child: unknown;
          try {
            child = (value as Record<string, unknown>)[key];
          } catch {
            continue;
          }
          walk(child, `${path}.${key}`, depth + 1);
        }
      };
      walk(window, 'window', 0);
      return hits;
    },
    [secret, skipStorage] as const,
  );
}
