/// <reference lib="dom" />
/**
 * The session list after a read of it failed, in real Chromium against the real host (demo
 * model). The page's reads of the list fail while the test says so (aborted at the page's edge, as
 * while the agent is restarting or down), and its alert says it tries again; once they go through
 * the list is read again on its own, every UI_SESSION_LIST_POLL_MS, so it shows what was made
 * meanwhile and its alert goes, with nothing else happening on the page. Before, a failed read was never tried again unless a
 * run was going: the alert stayed up, and the list stayed as it was, until something else changed
 * a session in this tab.
 */
import { expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { createDemoSession, openDesktopWorld, useDesktopWorld, type DesktopWorld } from './support/desktop-world.js';

let world: DesktopWorld | undefined;
let page: Page;

useDesktopWorld(openDesktopWorld, (opened) => {
  world = opened;
  ({ page } = opened);
});

const sidebar = () => page.getByRole('complementary', { name: 'Sessions' });
const row = (title: string) => sidebar().locator('li.session').filter({ hasText: title });

it('a tab whose read of the session list failed reads it again on its own once it can: the session made meanwhile shows and the alert goes', async () => {
  const host = world!.host;
  const sessionId = await createDemoSession(host, 'Open here');
  await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
  await row('Open here').waitFor();

  let failing = true;
  let failed = 0;
  await page.route(
    (url) => url.pathname === '/sessions' && url.searchParams.get('limit') === '100',
    async (route: Route) => {
      if (!failing) return route.continue();
      failed += 1;
      return route.abort('connectionrefused');
    },
  );
  await page.reload();
  const alert = sidebar().getByRole('alert');
  await expect
    .poll(() => alert.textContent())
    .toBe('The sessions could not be read: the agent could not be reached (UNREACHABLE). Trying again…');
  expect(failed).toBeGreaterThan(0);
  expect(await row('Open here').count()).toBe(0);

  await createDemoSession(host, 'Made meanwhile');
  failing = false;
  await row('Made meanwhile').waitFor({ timeout: 20_000 });
  await row('Open here').waitFor();
  expect(await alert.count()).toBe(0);
  // Nothing in the tab asked for it: no message was sent, no session changed here.
  expect(await page.getByTestId('user-bubble').count()).toBe(0);
  await page.unrouteAll();
});
