/// <reference lib="dom" />
/**
 * The session list's New session and Delete, in real Chromium against the real host and the demo
 * model. New session on a session with no message yet makes no other one: that session stays open,
 * its message box focused, and its pane shows how to start (it was a blank pane, and every click
 * added an "Untitled session"); on a session with messages it makes and opens a new one. Delete's
 * "Confirm delete" stays armed only while nothing else happens: Esc, a click elsewhere, Rename and
 * a switch of session each disarm it (it used to stay armed through all of them), as does its
 * session deleted elsewhere. What the page does on its own leaves it armed: the open session's
 * details arriving late (the message box took the focus then, which disarmed it) and re-reads of
 * the list (a run's end, sessions made or renamed elsewhere).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import { openDesktop } from './support/browser.js';
import {
  createDemoSession,
  openDesktopWorld,
  sendMessage,
  storedSessions,
  useDesktopWorld,
  type DesktopWorld,
} from './support/desktop-world.js';
import { expectInViewport, expectUncoveredInView, shotAllModes, SHOTS } from './support/layout.js';

let world: DesktopWorld | undefined;
let page: Page;

useDesktopWorld(openDesktopWorld, (opened) => {
  world = opened;
  ({ page } = opened);
});

const sidebar = () => page.getByRole('complementary', { name: 'Sessions' });
const newSessionButton = () => sidebar().getByRole('button', { name: 'New session' });
const composer = () => page.getByRole('combobox', { name: 'Message' });
const openSessionId = () => /\/desktop\/sessions\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];

/** Clicks New session and waits until it is done (the button is enabled again). */
async function clickNewSession(): Promise<void> {
  await newSessionButton().click();
  await expect.poll(() => newSessionButton().isEnabled()).toBe(true);
}

describe('New session', () => {
  it('on a session with no message yet makes no other session: the same one stays open, its message box focused, its pane saying how to start', async () => {
    await clickNewSession();
    await expect.poll(openSessionId).toBeDefined();
    const first = openSessionId();
    const pane = page.getByTestId('transcript');
    await pane.getByText('This session uses the offline demo model, which is not an AI').waitFor();
    await pane.getByText('write notes.txt: hello').waitFor();

    await sidebar().getByRole('searchbox').focus();
    await clickNewSession();
    await clickNewSession();
    expect(openSessionId()).toBe(first);
    expect((await storedSessions(world!.host)).map((session) => session.id)).toEqual([first]);
    expect(await sidebar().locator('li.session').count()).toBe(1);
    await expect.poll(() => composer().evaluate((box) => box === document.activeElement)).toBe(true);
  });

  it('on a session with a message makes and opens a new one, which shows how to start', async () => {
    const first = openSessionId();
    await sendMessage(page, 'ls');
    await page
      .getByText(/^demo:/)
      .first()
      .waitFor();
    await page.getByTestId('activity').waitFor({ state: 'detached' });
    await clickNewSession();
    await expect.poll(openSessionId).not.toBe(first);
    expect(await storedSessions(world!.host)).toHaveLength(2);
    await page.getByTestId('transcript').getByText('This session uses the offline demo model').waitFor();
  });
});

describe('New session left untouched', () => {
  let kept: string;
  let worked: string;
  const row = (title: string) => sidebar().locator('li.session').filter({ hasText: title });
  const storedIds = async () => (await storedSessions(world!.host)).map((session) => session.id);
  /** The DELETE /sessions/… requests the page made since the test began. */
  const deleted: string[] = [];
  /** Clicks New session on the session open now, `from`, and returns the session it opened. */
  async function newSessionFrom(from: string): Promise<string> {
    await clickNewSession();
    await expect.poll(openSessionId).not.toBe(from);
    return openSessionId()!;
  }
  /**
   * Leaves the session `stays` for Worked notes, waiting for the page's look at it (GET
   * /sessions/…) unless `kept` (the page kept it before: it does not look), then makes an untouched
   * session and leaves it for Kept notes: the untouched one is removed (the look at `stays` is over
   * by then), while `stays` is still stored and the page sent no DELETE for it.
   */
  async function leaveAndExpectStays(stays: string, kept = false): Promise<void> {
    const looked = kept
      ? undefined
      : page.waitForResponse(
          (response) =>
            new URL(response.url()).pathname === `/sessions/${stays}` && response.request().method() === 'GET',
        );
    await row('Worked notes').locator('button.session-open').click();
    await looked;
    const untouched = await newSessionFrom(worked);
    await row('Kept notes').locator('button.session-open').click();
    await expect.poll(storedIds).not.toContain(untouched);
    expect(await storedIds()).toContain(stays);
    expect(deleted).not.toContain(`/sessions/${stays}`);
  }

  beforeAll(async () => {
    page.on('request', (request) => {
      if (request.method() === 'DELETE') deleted.push(new URL(request.url()).pathname);
    });
    kept = await createDemoSession(world!.host, 'Kept notes');
    worked = await createDemoSession(world!.host, 'Worked notes');
    const run = await world!.host.client.request('POST', '/agent/run', { session_id: worked, message: 'ls' });
    expect(run.status).toBeLessThan(300);
  });

  it('is removed once another session is opened: the list keeps no empty session, and an empty one made elsewhere stays', async () => {
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${worked}`);
    const made = await newSessionFrom(worked);
    await row('Kept notes').locator('button.session-open').click();
    await expect.poll(openSessionId).toBe(kept);
    await expect.poll(storedIds).not.toContain(made);
    await expect.poll(() => sidebar().locator('li.session').count()).toBe((await storedIds()).length);
    expect(await storedIds()).toContain(kept);
    await shotAllModes(page, SHOTS, '99-new-session-left');
  });

  it('clicked three times makes one session, removed when left for the home page', async () => {
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${worked}`);
    const before = await storedIds();
    const made = await newSessionFrom(worked);
    await clickNewSession();
    await clickNewSession();
    expect(openSessionId()).toBe(made);
    expect((await storedIds()).filter((id) => !before.includes(id))).toEqual([made]);
    await page.getByRole('link', { name: 'Bastion' }).click();
    await expect.poll(storedIds).toEqual(before);
  });

  it('stays with a draft typed in its box (kept for the daemon as it is typed): leaving it sends no DELETE, while the next untouched one left is removed', async () => {
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${worked}`);
    const drafted = await newSessionFrom(worked);
    await composer().fill('half a thought');
    // Typing keeps it, for the daemon too: it is no longer provisional there.
    await expect
      .poll(async () => (await storedSessions(world!.host)).find((session) => session.id === drafted)?.provisional)
      .toBeUndefined();
    await leaveAndExpectStays(drafted, true);
    // Newest first: the drafted one is above the earlier tests' untitled session (which has a message).
    await row('Untitled session').locator('button.session-open').first().click();
    await expect.poll(openSessionId).toBe(drafted);
    expect(await composer().inputValue()).toBe('half a thought');
  });
  it('stays when left while its first message is on its way (the daemon has no run of it yet): no DELETE, and the message is stored', async () => {
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${worked}`);
    const sent = await newSessionFrom(worked);
    // The run's request is held until the session has been left and looked at.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = (url: URL) => url.pathname === '/agent/run';
    // The held request's continuing, awaited before the route goes: unrouting while it is pending
    // handles the request first, and its continue() then fails as already handled.
    let continued: Promise<void> | undefined;
    await page.route(held, (route) => (continued = released.then(() => route.continue())));
    try {
      await composer().fill('ls');
      await page.keyboard.press('Enter');
      // Sending took it off the sessions New session made, so leaving it does not look at it.
      await expect
        .poll(() => page.evaluate(() => window.sessionStorage.getItem('bastion.new-sessions') ?? ''))
        .not.toContain(sent);
      await row('Kept notes').locator('button.session-open').click();
      await expect.poll(openSessionId).toBe(kept);
      await page.getByRole('heading', { name: 'Kept notes' }).waitFor();
    } finally {
      release();
      await continued;
      await page.unroute(held);
    }
    await expect
      .poll(async () => (await storedSessions(world!.host)).find((session) => session.id === sent)?.last_run?.status)
      .toBe('finished');
    expect(deleted).not.toContain(`/sessions/${sent}`);
  });

  it('stays while another tab of the browser shows it: leaving it sends no DELETE, while the next untouched one left is removed', async () => {
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${worked}`);
    const shown = await newSessionFrom(worked);
    const other = await world!.context.newPage();
    try {
      await other.goto(`${world!.host.uiOrigin}/desktop/sessions/${shown}`);
      await other.getByRole('combobox', { name: 'Message' }).waitFor();
      await leaveAndExpectStays(shown);
    } finally {
      await other.close();
    }
  });

  it('stays with a mode the person chose, as the daemon stores it: leaving it sends no DELETE', async () => {
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${worked}`);
    const chosen = await newSessionFrom(worked);
    await page.getByLabel('Mode', { exact: true }).selectOption('read-only');
    await expect
      .poll(async () => (await storedSessions(world!.host)).find((session) => session.id === chosen)?.mode)
      .toBe('read-only');
    await leaveAndExpectStays(chosen);
  });
});

describe('New session’s session that nothing shows', () => {
  const storedIds = async () => (await storedSessions(world!.host)).map((session) => session.id);
  /** Makes a provisional session no page ever shows; once the daemon removed it, its look at every session came after the grace period. */
  async function unshownSession(): Promise<string> {
    const made = await world!.host.client.request<Session>('POST', '/sessions', {
      provider: 'demo',
      model: 'demo',
      provisional: true,
    });
    expect(made.body.provisional).toBe(true);
    return made.body.id;
  }
  /** `tab`'s New session, from the home page: the session it opened, once its stream is open. */
  async function newSessionIn(tab: Page): Promise<string> {
    await tab.goto(`${world!.host.uiOrigin}/desktop/`);
    const streamed = tab.waitForResponse((response) => new URL(response.url()).pathname.startsWith('/agent/stream/'));
    await tab.getByRole('complementary', { name: 'Sessions' }).getByRole('button', { name: 'New session' }).click();
    await streamed;
    const id = /\/desktop\/sessions\/([^/]+)$/.exec(new URL(tab.url()).pathname)?.[1];
    expect((await storedSessions(world!.host)).find((session) => session.id === id)?.provisional).toBe(true);
    return id!;
  }
  const removedByDaemon = () =>
    world!.host.records.filter((record) => record.event === 'sessions.untouched-removed').length;

  it('a tab closed on a fresh New session (no page removes it: no unload handler) is removed by the daemon once nothing shows it, and the next load lists it no more', async () => {
    const tab = await world!.context.newPage();
    const deletes: string[] = [];
    tab.on('request', (request) => {
      if (request.method() === 'DELETE') deletes.push(request.url());
    });
    const closed = await newSessionIn(tab);
    const before = removedByDaemon();
    await tab.close();
    await expect.poll(storedIds, { timeout: 60_000, interval: 1_000 }).not.toContain(closed);
    expect(deletes).toEqual([]);
    expect(removedByDaemon()).toBeGreaterThan(before);
    await page.goto(`${world!.host.uiOrigin}/desktop/`);
    await expect.poll(() => sidebar().locator('li.session').count()).toBe((await storedIds()).length);
    expect(await storedIds()).not.toContain(closed);
  });

  it('one shown in a second browser context stays: the first leaving it is refused SESSION_IN_USE (409), and the daemon, which meanwhile removed an unshown one, keeps it', async () => {
    const second = await openDesktop(world!.browser, world!.host);
    try {
      const shown = await newSessionIn(page);
      await second.page.goto(`${world!.host.uiOrigin}/desktop/sessions/${shown}`);
      await second.page.getByRole('combobox', { name: 'Message' }).waitFor();
      await expect.poll(() => second.page.url()).toContain(shown);
      const refused = page.waitForResponse(
        (response) =>
          new URL(response.url()).pathname === `/sessions/${shown}` && response.request().method() === 'DELETE',
      );
      await page.getByRole('link', { name: 'Bastion' }).click();
      expect(await (await refused).json()).toMatchObject({ code: 'SESSION_IN_USE' });
      const unshown = await unshownSession();
      await expect.poll(storedIds, { timeout: 60_000, interval: 1_000 }).not.toContain(unshown);
      expect(await storedIds()).toContain(shown);
      expect((await storedSessions(world!.host)).find((session) => session.id === shown)?.provisional).toBe(true);
    } finally {
      await second.context.close();
    }
  });
});

describe('Delete’s confirmation', () => {
  let alpha: string;
  let beta: string;
  const row = (title: string) => sidebar().locator('li.session').filter({ hasText: title });
  const armed = () => sidebar().getByRole('button', { name: 'Confirm delete' });
  const hasFocus = (locator: Locator) => locator.evaluate((element) => element === document.activeElement);
  /** Clicks Delete on the row titled `title`: its Confirm delete shows, holding the focus. */
  async function arm(title: string): Promise<Locator> {
    await row(title)
      .getByRole('button', { name: `Delete ${title}` })
      .click();
    await armed().waitFor();
    expect(await hasFocus(armed())).toBe(true);
    return row(title);
  }
  /** Esc on the armed button: it reads Delete again on the row titled `title`, with the focus. */
  async function disarmWithEsc(title: string): Promise<void> {
    await page.keyboard.press('Escape');
    await armed().waitFor({ state: 'detached' });
    expect(await hasFocus(row(title).getByRole('button', { name: `Delete ${title}` }))).toBe(true);
  }
  /** A run of the open session's, started elsewhere (another tab, `bastion run`): its end makes the page read the list again. */
  async function runElsewhere(sessionId: string): Promise<void> {
    await world!.host.client.request('POST', '/agent/run', { session_id: sessionId, message: 'ls' });
  }

  beforeAll(async () => {
    alpha = await createDemoSession(world!.host, 'Alpha notes');
    beta = await createDemoSession(world!.host, 'Beta notes');
  });

  it('stays armed, holding the focus, when the open session’s details arrive after Delete was armed: the message box does not take the focus; Esc then disarms it', async () => {
    // The session's details are held until Delete is armed, as a busy page can answer them after
    // the list: the message box took the focus when they came, which disarmed Confirm delete.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = (url: URL) => url.pathname === `/sessions/${alpha}`;
    await page.route(held, async (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      await released;
      return route.continue();
    });
    try {
      await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${alpha}`);
      await arm('Beta notes');
      expect(await page.getByLabel('Mode', { exact: true }).count()).toBe(0);
      release();
      // The Mode list shows once the details are in, in the same render that focused the box.
      await page.getByLabel('Mode', { exact: true }).waitFor();
    } finally {
      release();
      await page.unroute(held);
    }
    expect(await armed().count()).toBe(1);
    expect(await hasFocus(armed())).toBe(true);
    await disarmWithEsc('Beta notes');
    expect((await storedSessions(world!.host)).some((session) => session.id === beta)).toBe(true);
  });

  it('Esc disarms it: the button reads Delete again, keeps the focus, and the session stays', async () => {
    await arm('Beta notes');
    await disarmWithEsc('Beta notes');
    expect((await storedSessions(world!.host)).some((session) => session.id === beta)).toBe(true);
  });

  it('stays armed, holding the focus, through a re-read of the list that shows a session made elsewhere and a title changed elsewhere; Esc then disarms it', async () => {
    await arm('Beta notes');
    await createDemoSession(world!.host, 'Gamma notes');
    await world!.host.client.request('PATCH', `/sessions/${alpha}`, { title: 'Alpha notes (renamed elsewhere)' });
    await runElsewhere(alpha);
    await row('Gamma notes').waitFor();
    await row('Alpha notes (renamed elsewhere)').waitFor();
    expect(await armed().count()).toBe(1);
    expect(await hasFocus(armed())).toBe(true);
    expect(await row('Beta notes').getByRole('button', { name: 'Confirm delete' }).count()).toBe(1);
    await disarmWithEsc('Beta notes');
  });

  it('a session deleted elsewhere while armed disarms: at the next re-read its row goes and no row shows Confirm delete', async () => {
    const gamma = (await storedSessions(world!.host)).find((session) => session.title === 'Gamma notes')!.id;
    await arm('Gamma notes');
    await world!.host.client.request('DELETE', `/sessions/${gamma}`);
    await runElsewhere(alpha);
    await row('Gamma notes').waitFor({ state: 'detached' });
    expect(await armed().count()).toBe(0);
  });

  it('a click elsewhere (the search box) disarms it', async () => {
    await arm('Beta notes');
    await sidebar().getByRole('searchbox').click();
    await armed().waitFor({ state: 'detached' });
  });

  it('Confirm delete of a session that is not open gives the focus to the row that takes its place, not the page', async () => {
    await createDemoSession(world!.host, 'Delta notes');
    await runElsewhere(alpha);
    await row('Delta notes').waitFor();
    const place = await sidebar()
      .locator('li.session')
      .evaluateAll((rows) => rows.findIndex((item) => item.textContent?.includes('Delta notes')));
    await arm('Delta notes');
    await armed().click();
    await row('Delta notes').waitFor({ state: 'detached' });
    await expect
      .poll(() =>
        page.evaluate(() => {
          const focused = document.activeElement;
          return focused?.classList.contains('session-open') === true
            ? Array.from(document.querySelectorAll('.session-list .session-open')).indexOf(focused)
            : focused?.tagName;
        }),
      )
      .toBe(place);
  });

  it('Rename disarms it: the rename form shows with no Confirm delete in the list', async () => {
    await arm('Beta notes');
    await row('Alpha notes').getByRole('button', { name: 'Rename Alpha notes' }).click();
    await sidebar().getByLabel('Session title').waitFor();
    expect(await armed().count()).toBe(0);
    await sidebar().getByRole('button', { name: 'Cancel' }).click();
  });

  it('Esc in the rename box gives up the new title: the form closes, the stored title is unchanged and Rename has the focus again', async () => {
    const before = (await storedSessions(world!.host)).find((session) => session.id === alpha)?.title;
    const rename = row('Alpha notes').getByRole('button', { name: /^Rename Alpha notes/ });
    await rename.click();
    const title = sidebar().getByLabel('Session title');
    await title.fill('Gamma notes');
    await page.keyboard.press('Escape');
    await title.waitFor({ state: 'detached' });
    expect(await hasFocus(rename)).toBe(true);
    expect((await storedSessions(world!.host)).find((session) => session.id === alpha)?.title).toBe(before);
  });

  it('Enter in the rename box saves the title: the form closes, the stored title is the new one and Rename has the focus again', async () => {
    const rename = row('Alpha notes').getByRole('button', { name: /^Rename Alpha notes/ });
    await rename.click();
    const title = sidebar().getByLabel('Session title');
    await title.fill('Alpha notes (saved here)');
    await page.keyboard.press('Enter');
    await title.waitFor({ state: 'detached' });
    await expect
      .poll(async () => (await storedSessions(world!.host)).find((session) => session.id === alpha)?.title)
      .toBe('Alpha notes (saved here)');
    await row('Alpha notes (saved here)').waitFor();
    expect(await hasFocus(row('Alpha notes (saved here)').getByRole('button', { name: /^Rename Alpha notes/ }))).toBe(
      true,
    );
  });

  it('the rename form shows the title box the row’s width with Save and Cancel side by side under it, at its right, as Rename and Delete were', async () => {
    await row('Alpha notes')
      .getByRole('button', { name: /^Rename Alpha notes/ })
      .click();
    const form = sidebar().locator('form.rename');
    const box = async (locator: Locator) => (await locator.boundingBox())!;
    const [whole, title, save, cancel] = await Promise.all([
      box(form),
      box(form.getByLabel('Session title')),
      box(form.getByRole('button', { name: 'Save' })),
      box(form.getByRole('button', { name: 'Cancel' })),
    ]);
    await shotAllModes(page, SHOTS, 'session-rename-form', form, [{ width: 1280, height: 800 }]);
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(title.width, 'the title box takes the form’s width').toBeCloseTo(whole.width, 0);
    expect(save.y, 'Save under the title box').toBeGreaterThanOrEqual(title.y + title.height);
    expect(cancel.y, 'Cancel beside Save').toBeCloseTo(save.y, 0);
    expect(cancel.x + cancel.width, 'Cancel at the form’s right').toBeCloseTo(whole.x + whole.width, 0);
  });

  it('shows Confirm delete in view and uncovered, light and dark, at 1280 × 800 and at 400 × 560 (the list opened by Sessions)', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [width, height] of [
        [1280, 800],
        [400, 560],
      ] as const) {
        await page.setViewportSize({ width, height });
        const toggle = page.getByRole('button', { name: 'Sessions', exact: true });
        if (width === 400 && (await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
        await arm('Beta notes');
        await expectUncoveredInView(page, armed(), `Confirm delete at ${width} px`);
        await page.screenshot({ path: `${SHOTS}/84-session-list-confirm-delete-${scheme}-${width}.png` });
        await disarmWithEsc('Beta notes');
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('switching sessions disarms it, even when the focus stays on it (Back in the browser)', async () => {
    await row('Beta notes')
      .getByRole('button', { name: /^Beta notes/ })
      .click();
    await expect.poll(openSessionId).toBe(beta);
    await arm('Alpha notes');
    await page.goBack();
    await expect.poll(openSessionId).toBe(alpha);
    await armed().waitFor({ state: 'detached' });
    expect((await storedSessions(world!.host)).some((session) => session.id === alpha)).toBe(true);
  });
});

describe('the list opened by Sessions in a small window', () => {
  it('at 400 × 560 shows its first session whole, without scrolling the list, with the message box in view', async () => {
    const id = await createDemoSession(world!.host, 'Small window notes');
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${id}`);
    await page.setViewportSize({ width: 400, height: 560 });
    const toggle = page.getByRole('button', { name: 'Sessions', exact: true });
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await sidebar().evaluate((list) => list.scrollTo(0, 0));
    const listBox = await sidebar().boundingBox();
    const first = sidebar().locator('li.session').first();
    await first.waitFor();
    const firstBox = await first.boundingBox();
    expect(listBox).not.toBeNull();
    expect(firstBox).not.toBeNull();
    if (!listBox || !firstBox) return;
    expect(firstBox.y + firstBox.height, 'the first session’s bottom against the list’s').toBeLessThanOrEqual(
      listBox.y + listBox.height,
    );
    await expectInViewport(page, composer(), 'the message box under the opened list');
    await page.screenshot({ path: `${SHOTS}/85-session-list-opened-400x560.png` });
    await toggle.click();
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('at 400 × 560 Esc in the opened list folds it and gives Sessions the focus; the empty search box does not keep the key', async () => {
    const id = await createDemoSession(world!.host, 'Folded by Esc');
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${id}`);
    await page.setViewportSize({ width: 400, height: 560 });
    const toggle = page.getByRole('button', { name: 'Sessions', exact: true });
    if ((await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
    await sidebar().getByRole('searchbox').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await toggle.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('the list folded away by Sessions in a wide window', () => {
  it('at 1280 × 800 Sessions folds the list away and the session takes the window’s width, folded still after a reload and at 1000 px; at 400 px the list shows on demand as before; Sessions again shows it; the home page always shows it', async () => {
    const id = await createDemoSession(world!.host, 'Wide notes');
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${id}`);
    await page.getByRole('heading', { name: 'Wide notes' }).waitFor();
    const toggle = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Sessions' });
    const content = page.locator('#content');
    const contentWidth = () => content.evaluate((element) => (element as HTMLElement).offsetWidth);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await sidebar().isVisible()).toBe(true);
    const beside = await contentWidth();

    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await sidebar().isVisible()).toBe(false);
    expect(await contentWidth()).toBe(1280);
    expect(beside).toBeLessThan(1280 - 200);
    await shotAllModes(page, SHOTS, '86-session-list-folded');

    await page.reload();
    await page.getByRole('heading', { name: 'Wide notes' }).waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await sidebar().isVisible()).toBe(false);
    await page.setViewportSize({ width: 1000, height: 800 });
    expect(await sidebar().isVisible()).toBe(false);
    expect(await contentWidth()).toBe(1000);

    // Narrow, the list is shown on demand whatever the wide window keeps.
    await page.setViewportSize({ width: 400, height: 560 });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await sidebar().waitFor();
    await toggle.click();
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await sidebar().isVisible()).toBe(false);

    await page.goto(`${world!.host.uiOrigin}/desktop/`);
    await page.getByRole('heading', { name: 'Start a session' }).waitFor();
    expect(await sidebar().isVisible()).toBe(true);

    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${id}`);
    await page.getByRole('heading', { name: 'Wide notes' }).waitFor();
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await sidebar().isVisible()).toBe(true);
    expect(await contentWidth()).toBe(beside);
    expect(await page.evaluate(() => window.localStorage.getItem('bastion.sessions-folded'))).toBeNull();
  });
});
