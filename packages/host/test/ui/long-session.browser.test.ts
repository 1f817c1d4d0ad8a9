/// <reference lib="dom" />
/**
 * A long session stays whole in real Chromium: 4 100 turns (more than 4 000 stored messages, where
 * user prompts used to render as empty bubbles) open on the newest prompt and reply, every prompt
 * has its text (the oldest too, after scrolling up), and the transcript is virtualized — only a
 * window of rows is in the DOM, not one per item. The newest page of the log loads first; older
 * pages come in front as the reader scrolls up, without moving what is in view; find says what it
 * cannot search until they are in.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TempHost } from '../support/temp-host.js';
import { makeTempDir } from '@bastion/test-support';
import { openDesktopWorld, type DesktopWorld } from './support/desktop-world.js';
import { expectInViewport } from './support/layout.js';
import { seedLongSession } from './support/long-session.js';

const TURNS = 4_100;
let world: DesktopWorld | undefined;
let host: TempHost;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  const userData = join(makeTempDir('bastion-long-'), 'home');
  ({ sessionId } = seedLongSession(userData, TURNS));
  world = await openDesktopWorld({ userData });
  ({ host, page } = world);
}, 120_000);

afterAll(() => world?.close());

describe('a session of more than 4 000 messages', () => {
  it('opens on the newest prompt and reply, with the prompt’s text (no empty bubble)', async () => {
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    const newest = page.getByTestId('user-bubble').filter({ hasText: `prompt ${TURNS - 1}` });
    await newest.waitFor({ timeout: 60_000 });
    await expectInViewport(page, page.getByText(`reply ${TURNS - 1}`, { exact: true }), 'the newest reply');
    await page.getByText('Loading message').waitFor({ state: 'detached', timeout: 60_000 });
    for (const text of await page.getByTestId('user-bubble').allTextContents()) expect(text).toMatch(/^prompt \d+$/);
  });

  it('find says older turns are not loaded yet, so a prompt only they hold is not found, and closes with Escape', async () => {
    await page.getByLabel('Message').click();
    await page.keyboard.press('Control+f');
    const bar = page.getByRole('search', { name: 'Find in this session' });
    await bar.getByText('Older turns are not loaded: scroll up to search them too.').waitFor();
    await bar.getByRole('textbox').fill('prompt 0');
    await expect.poll(() => bar.getByRole('status').textContent()).toBe('No matches');
    await bar.getByRole('textbox').press('Escape');
    await bar.waitFor({ state: 'detached' });
  });

  it('keeps the rows in view where they were when an older page is put in front', async () => {
    const transcript = page.getByTestId('transcript');
    const listHeight = () => page.locator('ol.transcript').evaluate((list) => (list as HTMLElement).offsetHeight);
    const scrollTo = (top: number) =>
      transcript.evaluate((element, value) => {
        element.scrollTop = value;
      }, top);
    const scrollTop = () => transcript.evaluate((element) => element.scrollTop);
    // short of where older pages are asked for (800 px from the top), with room for the few
    // pixels rows measured on the way move the view, and settled there
    await scrollTo(900);
    await page.waitForTimeout(500);
    const from = await scrollTop();
    expect(from).toBeGreaterThan(800);
    const before = await listHeight();
    const bubble = page.getByTestId('user-bubble').nth(2);
    const text = await bubble.textContent();
    const top = (await bubble.boundingBox())?.y ?? Number.NaN;
    await scrollTo(800 - 20);
    await expect.poll(listHeight, { timeout: 30_000 }).toBeGreaterThan(before);
    const same = page.getByTestId('user-bubble').filter({ hasText: new RegExp(`^${text}$`) });
    // moved by the pixels scrolled, not by the height of the page put in front
    await expect.poll(async () => (await same.boundingBox())?.y).toBeCloseTo(top + from - 780, -1);
  });

  it('keeps only a window of rows in the DOM (virtualized), and pages back to the oldest prompt as the reader scrolls up', async () => {
    const rows = await page.locator('.transcript-row').count();
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(100);
    const oldest = page.getByTestId('user-bubble').filter({ hasText: /^prompt 0$/ });
    await expect
      .poll(
        async () => {
          await page.getByTestId('transcript').evaluate((element) => {
            element.scrollTop = 0;
          });
          return oldest.count();
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(1);
    expect(await page.locator('.transcript-row').count()).toBeLessThan(100);
    for (const text of await page.getByTestId('user-bubble').allTextContents()) expect(text).toMatch(/^prompt \d+$/);
  });
});
