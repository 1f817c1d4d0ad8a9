/// <reference lib="dom" />
/**
 * The message box's height in real Chromium against the real host, on the home page and in a
 * session: empty, one line and a few lines it is as tall as its text (nothing to scroll, so no
 * scrollbar); past UI_COMPOSER_MAX_HEIGHT_PX it stops there and scrolls. The box used to be sized
 * to its scrollHeight, which leaves out its 1 px borders: it was 2 px short at every size and
 * always showed a scrollbar. A change of the window's width rewraps the text, and the box fits it
 * again (it used to keep the height it had, so a narrowed window showed one line of wrapped text).
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { UI_COMPOSER_MAX_HEIGHT_PX, type Session } from '@bastion/protocol';
import { openDesktopWorld, useDesktopWorld, type DesktopWorld } from './support/desktop-world.js';

let world: DesktopWorld | undefined;
let page: Page;

useDesktopWorld(openDesktopWorld, (opened) => {
  world = opened;
  ({ page } = opened);
});

/** The box's heights (its own, its view of the text, its text's) and whether it may scroll. */
const measure = (box: Locator) =>
  box.evaluate((element: HTMLTextAreaElement) => ({
    offsetHeight: element.offsetHeight,
    clientHeight: element.clientHeight,
    scrollHeight: element.scrollHeight,
    overflowY: getComputedStyle(element).overflowY,
  }));

/** Types `lines` lines into the box (Shift+Enter between them) after emptying it. */
async function typeLines(box: Locator, lines: number): Promise<void> {
  await box.fill('');
  for (let line = 1; line <= lines; line += 1) {
    if (line > 1) await box.press('Shift+Enter');
    await box.pressSequentially(`line ${line}`);
  }
}

async function expectFitsItsText(box: Locator, what: string): Promise<void> {
  const size = await measure(box);
  expect(size.scrollHeight, `${what}: ${JSON.stringify(size)}`).toBeLessThanOrEqual(size.clientHeight);
  expect(size.overflowY, what).toBe('hidden');
}

async function expectEveryHeight(box: Locator): Promise<void> {
  await expectFitsItsText(box, 'empty');
  const empty = await measure(box);
  await typeLines(box, 1);
  await expectFitsItsText(box, 'one line');
  expect((await measure(box)).offsetHeight).toBe(empty.offsetHeight);
  await typeLines(box, 3);
  await expectFitsItsText(box, 'three lines');
  expect((await measure(box)).offsetHeight).toBeGreaterThan(empty.offsetHeight);
  await typeLines(box, 40);
  const full = await measure(box);
  expect(full.offsetHeight).toBe(UI_COMPOSER_MAX_HEIGHT_PX);
  expect(full.scrollHeight).toBeGreaterThan(full.clientHeight);
  expect(full.overflowY).toBe('auto');
  await box.fill('');
  await expectFitsItsText(box, 'emptied again');
}

describe('the message box’s height', () => {
  it('on the home page: as tall as its text empty, at one line and at three (nothing to scroll), and at most UI_COMPOSER_MAX_HEIGHT_PX, scrolling, at forty', async () => {
    await expectEveryHeight(page.getByRole('combobox', { name: 'Message' }));
  });

  it('in a session: as tall as its text empty, at one line and at three (nothing to scroll), and at most UI_COMPOSER_MAX_HEIGHT_PX, scrolling, at forty', async () => {
    const created = await world!.host.client.request<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${created.body.id}`);
    const box = page.getByRole('combobox', { name: 'Message' });
    await expect.poll(() => box.getAttribute('placeholder')).toContain('/ for commands');
    await expectEveryHeight(box);
  });

  it('after the window narrows from 1280 to 400 px, as tall as its rewrapped text (nothing to scroll), and as short again when it widens', async () => {
    const box = page.getByRole('combobox', { name: 'Message' });
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await box.fill('');
      await box.pressSequentially(
        'a sentence long enough to wrap onto several lines once the window is only four hundred pixels wide',
      );
      await expectFitsItsText(box, 'wide');
      const wide = await measure(box);
      await page.setViewportSize({ width: 400, height: 800 });
      await expect.poll(async () => (await measure(box)).offsetHeight).toBeGreaterThan(wide.offsetHeight);
      await expectFitsItsText(box, 'narrowed');
      await page.setViewportSize({ width: 1280, height: 800 });
      await expect.poll(async () => (await measure(box)).offsetHeight).toBe(wide.offsetHeight);
      await expectFitsItsText(box, 'widened again');
    } finally {
      await box.fill('');
    }
  });
});
