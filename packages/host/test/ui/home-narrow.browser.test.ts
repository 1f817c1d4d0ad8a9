/// <reference lib="dom" />
/**
 * The home page's sessions list in a narrow window, in real Chromium against the real host and the
 * demo model: at 400 × 700, with more sessions than fit, the list shows more than one session at a
 * time and scrolls in its own box under Sessions, New session and the search box, which stay in
 * view and uncovered; its last session can be scrolled into view, uncovered, and opened with a
 * click; the message box stays in view. Screenshots (light and dark, 1280 and 400 px) go to
 * test-output/ui/.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createDemoSession, openDesktopWorld, useDesktopWorld, type DesktopWorld } from './support/desktop-world.js';
import { expectInViewport, expectUncoveredInView, shotAllModes, SHOTS } from './support/layout.js';

const NARROW = { width: 400, height: 700 };
/** Sessions enough to overflow the list many times over at 400 × 700. */
const SESSIONS = 14;

let world: DesktopWorld;
let page: Page;

useDesktopWorld(openDesktopWorld, (opened) => ({ page } = world = opened));

describe('the home page’s sessions list at 400 × 700', () => {
  it('shows at least two whole sessions, scrolls its last one into view uncovered under Sessions, New session and the search box (still in view), and opens it with a click', async () => {
    const ids: string[] = [];
    for (let index = 0; index < SESSIONS; index += 1) {
      ids.push(await createDemoSession(world.host, `Narrow home session ${index}`));
    }
    // Listed newest first: the first made is the last.
    const oldest = ids[0] as string;
    await page.goto(`${world.host.uiOrigin}/desktop/`);
    await page.setViewportSize(NARROW);
    const sidebar = page.getByRole('complementary', { name: 'Sessions' });
    const rows = sidebar.locator('li.session');
    await rows.nth(SESSIONS - 1).waitFor();
    await page.getByRole('heading', { name: 'Start a session' }).waitFor();

    // Whole sessions inside what shows of the list: its box, within the sidebar's and the window.
    const list = sidebar.locator('.session-list');
    const wholeInView = await list.evaluate((element) => {
      const [box, aside] = [element.getBoundingClientRect(), element.closest('aside')!.getBoundingClientRect()];
      const top = Math.max(box.top, aside.top, 0);
      const bottom = Math.min(box.bottom, aside.bottom, window.innerHeight);
      return Array.from(element.querySelectorAll('li.session')).filter((row) => {
        const at = row.getBoundingClientRect();
        return at.top >= top - 0.5 && at.bottom <= bottom + 0.5;
      }).length;
    });
    expect(wholeInView, 'whole sessions shown at once').toBeGreaterThanOrEqual(2);
    await shotAllModes(page, SHOTS, 'home-sessions-narrow', undefined, [{ width: 1280, height: 800 }, NARROW]);

    const last = rows.last();
    expect(await last.locator('.session-title').textContent()).toContain(`Narrow home session 0`);
    await last.scrollIntoViewIfNeeded();
    await expectUncoveredInView(page, last.locator('.session-title'), 'the last session’s title, scrolled to');
    await expectUncoveredInView(page, last.getByRole('button', { name: 'Delete' }), 'the last session’s Delete');
    await expectUncoveredInView(page, sidebar.getByRole('heading', { name: 'Sessions' }), 'the list’s heading');
    await expectUncoveredInView(page, sidebar.getByRole('button', { name: 'New session' }), 'New session');
    await expectUncoveredInView(page, sidebar.getByRole('searchbox'), 'the search box');
    await expectInViewport(page, page.getByRole('combobox', { name: 'Message' }), 'the message box');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `${SHOTS}/home-sessions-narrow-last-${scheme}-400.png` });
    }
    await page.emulateMedia({ colorScheme: 'light' });

    await last.locator('.session-open').click();
    await page.waitForURL(`**/desktop/sessions/${oldest}`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
