/// <reference lib="dom" />
/**
 * Find in a session, in real Chromium against the real host: Ctrl+F opens the session's find bar
 * (the browser's own find cannot see rows the virtualized list keeps out of the DOM), a text held
 * only by a row far above the view is found and brought into view with the text marked, Enter and
 * Shift+Enter step through several matches wrapping at the ends, and Escape closes the bar and
 * gives the message box its focus back. Screenshots (light and dark, 1280 and 420 px) go to
 * test-output/ui/.
 */

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeTempDir } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openDesktopWorld, type DesktopWorld } from './support/desktop-world.js';
import { expectInViewport, shotAllModes, SHOTS } from './support/layout.js';
import { seedLongSession } from './support/long-session.js';

/** Turns that fit the first page of the log, and far more rows than the view shows. */
const TURNS = 40;

let world: DesktopWorld | undefined;
let host: TempHost;
let page: Page;
let sessionId: string;

beforeAll(async () => {
  const userData = join(makeTempDir('bastion-find-'), 'home');
  ({ sessionId } = seedLongSession(userData, TURNS));
  world = await openDesktopWorld({ userData });
  ({ host, page } = world);
}, 120_000);

afterAll(() => world?.close());

const findBox = () => page.getByRole('textbox', { name: 'Find in this session' });
const found = () => page.getByRole('search', { name: 'Find in this session' }).getByRole('status');
/** How many ranges the page has marked as found. */
const marked = () =>
  page.evaluate(
    () => (CSS as unknown as { highlights: Map<string, Set<Range>> }).highlights.get('bastion-find')?.size ?? 0,
  );

describe('Find in a session', () => {
  it('Ctrl+F finds text only a row far above the view holds, brings it into view and marks it', async () => {
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await page.getByText(`reply ${TURNS - 1}`, { exact: true }).waitFor();
    // The tool result of turn 4 is far above the view: not in the DOM, so a browser's find misses it.
    expect(await page.getByText('file-4.txt').count()).toBe(0);

    await page.getByLabel('Message').click();
    await page.keyboard.press('Control+f');
    await expect.poll(() => findBox().evaluate((box) => box === document.activeElement)).toBe(true);
    await findBox().fill('FILE-4.txt');
    await expect.poll(() => found().textContent()).toBe('1 of 1');
    const row = page.locator('.transcript-row.find-current');
    await row.getByText('file-4.txt').waitFor();
    await expectInViewport(page, row, 'the found row');
    await expect.poll(marked).toBeGreaterThan(0);
    await shotAllModes(page, SHOTS, '48-find');
  });

  it('steps through several matches with Enter and Shift+Enter, wrapping at the ends, and says when nothing matches', async () => {
    // "prompt 1" is in prompt 1 and prompts 10–19: eleven, the last shown first.
    await findBox().fill('prompt 1');
    await expect.poll(() => found().textContent()).toBe('11 of 11');
    await page.locator('.transcript-row.find-current').getByText('prompt 19', { exact: true }).waitFor();
    await findBox().press('Shift+Enter');
    await expect.poll(() => found().textContent()).toBe('10 of 11');
    await page.locator('.transcript-row.find-current').getByText('prompt 18', { exact: true }).waitFor();
    await findBox().press('Enter');
    await findBox().press('Enter');
    await expect.poll(() => found().textContent()).toBe('1 of 11');
    const first = page.locator('.transcript-row.find-current');
    await first.getByText('prompt 1', { exact: true }).waitFor();
    await expectInViewport(page, first, 'the first match');

    await findBox().fill('no such text anywhere');
    await expect.poll(() => found().textContent()).toBe('No matches');
    expect(await page.getByRole('button', { name: 'Next match' }).isDisabled()).toBe(true);
    await expect.poll(marked).toBe(0);
  });

  it('Escape closes the bar, drops the marks and gives the message box its focus back', async () => {
    await findBox().fill('reply');
    await expect.poll(marked).toBeGreaterThan(0);
    await findBox().press('Escape');
    await findBox().waitFor({ state: 'detached' });
    await expect.poll(marked).toBe(0);
    expect(await page.getByLabel('Message').evaluate((box) => box === document.activeElement)).toBe(true);
  });
});
