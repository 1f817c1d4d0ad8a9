/// <reference lib="dom" />
/**
 * Finding a session by what was said in it, in real Chromium against the real host and the offline
 * demo model: the sidebar's search box asks the daemon (`GET /sessions?search=`), so a word only a
 * session's prompt holds finds it, as does a title's word in another case; the list says in words
 * while it searches, when nothing matches and when the daemon refuses; Escape or an empty box
 * brings every session back. A slow answer to an earlier text never replaces a later text's
 * results. Rename and delete work on the results, older matches page in, and at 420 px (the list
 * behind the "Sessions" button) a result opens its session. Screenshots (light and dark, 1280 and
 * 420 px) go to test-output/ui/.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page, Request } from 'playwright-core';
import { SESSION_SEARCH_MAX_CHARS, type Session } from '@bastion/protocol';
import type { TempHost } from '../support/temp-host.js';
import { createDemoSession, openDesktopWorld, type DesktopWorld } from './support/desktop-world.js';
import { expectInViewport, expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

/** What the page shows after the host has done its part: under a loaded CI machine a run takes seconds. */
const SETTLED = { timeout: 30_000 };
/** In the prompt of one session only; never in a title. */
const PROMPT_WORD = 'zebrafish';
/** More sessions titled so than one page of results holds. */
const BULK = 55;

let world: DesktopWorld | undefined;
let host: TempHost;
let page: Page;
let box: Locator;
/** Release checklist: its prompt, not its title, names the zebrafish. */
let checklistId: string;
let budgetId: string;

const sidebar = () => page.getByRole('complementary', { name: 'Sessions' });
const status = () => sidebar().getByRole('search', { name: 'Search sessions' }).getByRole('status');
const titles = () => sidebar().locator('li.session .session-title').allTextContents();
const allTitles = ['Team lunch ideas', 'Quarterly Budget Review', 'Release checklist'];

/** Resolves once `check` holds; fails after SETTLED's time (expect.poll is for inside a test only). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + SETTLED.timeout;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends `message` in the session through the daemon and waits for the demo's answer to finish. */
async function runPrompt(sessionId: string, message: string): Promise<void> {
  const started = await host.client.request('POST', '/agent/run', { session_id: sessionId, message });
  expect(started.status).toBeLessThan(300);
  await until(
    async () =>
      (await host.client.request<Session>('GET', `/sessions/${sessionId}`)).body.last_run?.status === 'finished',
    'the demo to answer',
  );
}

/** Whether the request is the page's search for `text`. */
const searchFor = (text: string) => (request: Request) => {
  const url = new URL(request.url());
  return url.pathname === '/sessions' && url.searchParams.get('search') === text;
};

beforeAll(async () => {
  world = await openDesktopWorld();
  ({ host, page } = world);
  checklistId = await createDemoSession(host, 'Release checklist');
  await runPrompt(checklistId, `Before the release, feed the ${PROMPT_WORD} in the lab tank.`);
  budgetId = await createDemoSession(host, 'Quarterly Budget Review');
  await runPrompt(await createDemoSession(host, 'Team lunch ideas'), 'Where shall the team eat on Friday?');
  await page.goto(`${host.uiOrigin}/desktop/`);
  box = page.getByRole('searchbox', { name: 'Search sessions by title, prompt or reply' });
  await until(async () => JSON.stringify(await titles()) === JSON.stringify(allTitles), 'the three sessions');
}, 120_000);

afterAll(() => world?.close());

describe('finding a session by what was said in it', () => {
  it('a word only a prompt holds lists only that session; opening it marks it the current one', async () => {
    // The daemon kept the title given: the word is in the prompt only.
    expect((await host.client.request<Session>('GET', `/sessions/${checklistId}`)).body.title).toBe(
      'Release checklist',
    );
    expect(await box.getAttribute('placeholder')).toBe('Search sessions');
    expect(await box.getAttribute('maxlength')).toBe(String(SESSION_SEARCH_MAX_CHARS));
    await box.fill(PROMPT_WORD);
    await expect.poll(() => status().textContent(), SETTLED).toBe(`1 session mentions “${PROMPT_WORD}”.`);
    expect(await titles()).toEqual(['Release checklist']);

    await sidebar()
      .getByRole('button', { name: /^Release checklist/ })
      .click();
    await page.waitForURL((url) => url.pathname === `/desktop/sessions/${checklistId}`);
    await page.getByRole('heading', { name: 'Release checklist' }).waitFor();
    const current = sidebar().locator('li.session.selected');
    expect(await current.locator('.session-title').textContent()).toBe('Release checklist');
    expect(await current.locator('.session-open').getAttribute('aria-current')).toBe('page');
    // The search stays, with its results, while the session is open.
    expect(await box.inputValue()).toBe(PROMPT_WORD);
    expect(await titles()).toEqual(['Release checklist']);
    // The text searched for went to no log record of the host or its daemon (whose records are there).
    expect(host.records.some((record) => record.event === 'run.started')).toBe(true);
    expect(JSON.stringify(host.records)).not.toContain(PROMPT_WORD);

    // Narrow, the list is behind the "Sessions" button: the results and the message box both show.
    await page.setViewportSize({ width: 420, height: 860 });
    const toggle = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Sessions' });
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await expectInViewport(page, box, 'the search box at 420 px');
    await expectInViewport(page, current, 'the found session at 420 px');
    await expectInViewport(page, page.getByRole('combobox', { name: 'Message' }), 'the message box at 420 px');
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '56-session-search-results');
    await page.setViewportSize({ width: 420, height: 860 });
    await expectNoHorizontalOverflow(page);
  });

  it('a title’s word is found in any ASCII case, and at 420 px a result opens its session and folds the list away', async () => {
    const toggle = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Sessions' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await box.fill('BUDGET');
    await expect.poll(titles, SETTLED).toEqual(['Quarterly Budget Review']);
    expect(await status().textContent()).toBe('1 session mentions “BUDGET”.');
    await box.fill('quarterly budget');
    await expect.poll(() => status().textContent(), SETTLED).toBe('1 session mentions “quarterly budget”.');
    expect(await titles()).toEqual(['Quarterly Budget Review']);

    // The keyboard: Tab goes from the box to the result, Enter opens it.
    await box.focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('li.session')?.textContent)).toContain(
      'Quarterly Budget Review',
    );
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === `/desktop/sessions/${budgetId}`);
    await page.getByRole('heading', { name: 'Quarterly Budget Review' }).waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(await sidebar().isVisible()).toBe(false);
    await expectInViewport(page, page.getByRole('combobox', { name: 'Message' }), 'the message box at 420 px');
    await expectNoHorizontalOverflow(page);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('says so when no session mentions the text; Escape, an emptied box and one letter bring every session back', async () => {
    await box.fill('no-such-word-anywhere');
    await expect.poll(() => status().textContent(), SETTLED).toBe('No session mentions “no-such-word-anywhere”.');
    expect(await titles()).toEqual([]);
    // At 420 px the list is shown by its button, to be in the screenshots there.
    await page.setViewportSize({ width: 420, height: 860 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Sessions' }).click();
    await page.setViewportSize({ width: 1280, height: 800 });
    await shotAllModes(page, SHOTS, '56-session-search-none');

    await box.press('Escape');
    expect(await box.inputValue()).toBe('');
    await expect.poll(titles).toEqual(allTitles);
    expect(await status().textContent()).toBe('');

    await box.fill(PROMPT_WORD);
    await expect.poll(titles, SETTLED).toEqual(['Release checklist']);
    await box.fill('');
    await expect.poll(titles).toEqual(allTitles);

    // One letter is in nearly everything: the box asks for one more, and lists every session.
    await box.fill('z');
    expect(await status().textContent()).toBe('Type 2 characters or more to search.');
    await page.waitForTimeout(500);
    expect(await titles()).toEqual(allTitles);
    await box.fill('');
  });

  it('says in words when the daemon refuses the search, instead of a blank list', async () => {
    // The box stops at the daemon's limit; text set past it by script is sent whole and refused.
    const tooLong = 'x'.repeat(SESSION_SEARCH_MAX_CHARS + 1);
    await box.evaluate((input: HTMLInputElement, value: string) => {
      // React tracks the value it set; the prototype's setter goes around that, as typing does.
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(input, value);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, tooLong);
    const alert = sidebar().getByRole('alert');
    await alert.waitFor(SETTLED);
    expect(await alert.textContent()).toMatch(/^Could not search the sessions: .+ \(BAD_REQUEST\)$/);
    expect(await titles()).toEqual([]);
    await box.press('Escape');
    await expect.poll(titles).toEqual(allTitles);
    expect(await alert.count()).toBe(0);
  });

  it('a slow answer to an earlier text never replaces the results of the text typed after it', async () => {
    // The daemon's answer to "lunch" is held back until the answer to the text typed after it is shown.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const isLunch = searchFor('lunch');
    await page.route(
      (url) => url.pathname === '/sessions' && url.searchParams.get('search') === 'lunch',
      async (route) => {
        if (route.request().method() === 'GET') await held;
        await route.continue();
      },
    );
    try {
      const lunchAsked = page.waitForRequest((request) => isLunch(request) && request.method() === 'GET');
      const lunchAnswered = page.waitForResponse(
        (response) => isLunch(response.request()) && response.request().method() === 'GET',
      );
      await box.fill('lunch');
      await lunchAsked;
      expect(await status().textContent()).toBe('Searching for “lunch”…');
      expect(await sidebar().locator('ul.session-list').getAttribute('aria-busy')).toBe('true');
      await box.fill(PROMPT_WORD);
      await expect.poll(titles, SETTLED).toEqual(['Release checklist']);
      release();
      await lunchAnswered;
      // Long enough for the page to have shown the late answer, had it taken it.
      await page.waitForTimeout(500);
      expect(await titles()).toEqual(['Release checklist']);
      expect(await status().textContent()).toBe(`1 session mentions “${PROMPT_WORD}”.`);
    } finally {
      release();
      await page.unrouteAll({ behavior: 'wait' });
    }

    // Typed fast, with nothing held back: what shows in the end is the last text's answer.
    await box.fill('');
    await box.pressSequentially('team lunch', { delay: 30 });
    await box.fill('checklist');
    await expect.poll(() => status().textContent(), SETTLED).toBe('1 session mentions “checklist”.');
    await page.waitForTimeout(500);
    expect(await titles()).toEqual(['Release checklist']);
    await box.fill('');
    await expect.poll(titles).toEqual(allTitles);
  });

  it('renames and deletes from the results; older matches page in, newest first', async () => {
    for (let index = 1; index <= BULK; index += 1) await createDemoSession(host, `Bulk note ${index}`);
    await box.fill(PROMPT_WORD);
    await expect.poll(titles, SETTLED).toEqual(['Release checklist']);
    await sidebar().getByRole('button', { name: 'Rename Release checklist' }).click();
    const title = sidebar().getByRole('textbox', { name: 'Session title' });
    await title.fill('Aquarium checklist');
    await title.press('Enter');
    // Still found by its prompt, under its new name.
    await expect.poll(titles, SETTLED).toEqual(['Aquarium checklist']);
    expect((await host.client.request<Session>('GET', `/sessions/${checklistId}`)).body.title).toBe(
      'Aquarium checklist',
    );

    await box.fill('bulk note 7');
    await expect.poll(titles, SETTLED).toEqual(['Bulk note 7']);
    await sidebar().getByRole('button', { name: 'Delete Bulk note 7' }).click();
    await sidebar().getByRole('button', { name: 'Confirm delete' }).click();
    await expect.poll(() => status().textContent(), SETTLED).toBe('No session mentions “bulk note 7”.');
    expect(await titles()).toEqual([]);

    await box.fill('BULK NOTE');
    await expect.poll(() => status().textContent(), SETTLED).toBe('The 50 newest sessions that mention “BULK NOTE”.');
    const newest = Array.from({ length: BULK }, (_, index) => `Bulk note ${BULK - index}`).filter(
      (name) => name !== 'Bulk note 7',
    );
    expect(await titles()).toEqual(newest.slice(0, 50));
    await sidebar().getByRole('button', { name: 'Show older matches' }).click();
    await expect.poll(() => status().textContent(), SETTLED).toBe(`${BULK - 1} sessions mention “BULK NOTE”.`);
    expect(await titles()).toEqual(newest);
    expect(await sidebar().getByRole('button', { name: 'Show older matches' }).count()).toBe(0);
    await expectNoHorizontalOverflow(page);
    await box.press('Escape');
    await expect.poll(async () => (await titles()).length).toBe(BULK - 1 + 3);
  });
});
