/// <reference lib="dom" />
/**
 * The page's keys for sessions, in real Chromium against the real host and the demo model:
 * Alt+Shift+N makes and opens a new session (as New session does), Alt+Shift+J and Alt+Shift+K
 * open the session below and above the open one in the list (nothing past either end), and
 * Alt+Shift+C takes the focus to the message box, and Alt+Shift+S shows the session list or folds it
 * away, as Sessions at the top does at the window's width. They do nothing while a dialog is open (/help,
 * which lists them) or in another text field (the session search box keeps its text and the
 * focus). The keys are pressed by code, as the page reads them.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import {
  createDemoSession,
  openDesktopWorld,
  storedSessions,
  useDesktopWorld,
  type DesktopWorld,
} from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';

const NEW_SESSION = 'Alt+Shift+KeyN';
const NEXT_SESSION = 'Alt+Shift+KeyJ';
const PREVIOUS_SESSION = 'Alt+Shift+KeyK';
const MESSAGE_BOX = 'Alt+Shift+KeyC';
const SESSION_LIST = 'Alt+Shift+KeyS';
/** For what waits on a session's page loading (its details, history and models), on a busy machine. */
const LOADING = { timeout: 10_000 };

let world: DesktopWorld | undefined;
let page: Page;

useDesktopWorld(openDesktopWorld, (opened) => {
  world = opened;
  ({ page } = opened);
});

const sidebar = () => page.getByRole('complementary', { name: 'Sessions' });
const composer = () => page.getByRole('combobox', { name: 'Message' });
const openSessionId = () => /\/desktop\/sessions\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];
/** The title of the row the list marks as the open session. */
const currentRowTitle = () => sidebar().locator('[aria-current="page"] .session-title').textContent();
const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);

/** Presses `key` and waits until the session `sessionId` is open, marked in the list as `title`, its message box focused. */
async function pressToOpen(key: string, sessionId: string, title: string): Promise<void> {
  await page.keyboard.press(key);
  await expect.poll(openSessionId, LOADING).toBe(sessionId);
  await expect.poll(currentRowTitle, LOADING).toBe(title);
  await expect.poll(focused, LOADING).toBe('composer-input');
}

let first: string;
let second: string;
let third: string;

beforeAll(async () => {
  // Listed newest first: Third, Second, First. Second has a message, so New session makes another.
  first = await createDemoSession(world!.host, 'First notes');
  second = await createDemoSession(world!.host, 'Second notes');
  third = await createDemoSession(world!.host, 'Third notes');
  await world!.host.client.request('POST', '/agent/run', { session_id: second, message: 'ls' });
  await vi.waitFor(async () => {
    const run = (await storedSessions(world!.host)).find((session) => session.id === second)?.last_run;
    if (run?.status !== 'finished') throw new Error(`the run of Second notes is ${run?.status}`);
  }, LOADING);
  await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${second}`);
  await vi.waitFor(async () => {
    if ((await focused()) !== 'composer-input') throw new Error('the message box has not the focus yet');
  }, LOADING);
});

describe('Alt+Shift+N', () => {
  it('in the message box of a session with a message makes and opens a new session, listed first, its message box focused; New session names the key', async () => {
    const button = sidebar().getByRole('button', { name: 'New session' });
    expect(await button.getAttribute('aria-keyshortcuts')).toBe('Alt+Shift+N');
    expect(await button.getAttribute('title')).toBe('New session (Alt+Shift+N)');
    await page.keyboard.press(NEW_SESSION);
    await expect.poll(async () => (await storedSessions(world!.host)).length, LOADING).toBe(4);
    const made = (await storedSessions(world!.host))[0]!.id;
    expect([first, second, third]).not.toContain(made);
    await expect.poll(openSessionId, LOADING).toBe(made);
    await expect.poll(currentRowTitle, LOADING).toBe('Untitled session');
    await expect.poll(focused, LOADING).toBe('composer-input');
  });
});

describe('Alt+Shift+J and Alt+Shift+K', () => {
  it('open the session below and above the open one in the list, its message box focused; past either end they do nothing', async () => {
    const made = openSessionId()!;
    // A draft keeps the session Alt+Shift+N made: left untouched, it would be removed (new-sessions.ts).
    await composer().fill('a draft');
    await page.keyboard.press(PREVIOUS_SESSION);
    await pressToOpen(NEXT_SESSION, third, 'Third notes');
    await pressToOpen(NEXT_SESSION, second, 'Second notes');
    await pressToOpen(NEXT_SESSION, first, 'First notes');
    await page.keyboard.press(NEXT_SESSION);
    await pressToOpen(PREVIOUS_SESSION, second, 'Second notes');
    await pressToOpen(PREVIOUS_SESSION, third, 'Third notes');
    await pressToOpen(PREVIOUS_SESSION, made, 'Untitled session');
    // The presses past the ends (the first K, the fourth J) opened nothing: each key above moved one row.
    await page.keyboard.press(PREVIOUS_SESSION);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(openSessionId()).toBe(made);
    expect(await storedSessions(world!.host)).toHaveLength(4);
  });

  it('pressed many times in a row, they open no more than one wait on the host’s held calls (asks.wait) at a time, and the last session opens with its Mode list and its message box focused', async () => {
    // Each session's view used to open a wait of its own, which the host holds open for up to
    // 25 s: a few quick switches used up the browser's six connections to the host, and the page
    // then waited on every host request (a session's own, to the daemon, starts with one).
    let open = 0;
    let most = 0;
    const isWait = (url: string) => new URL(url).pathname === '/_host/ipc/asks.wait';
    const started = (request: { url(): string }) => {
      if (isWait(request.url())) most = Math.max(most, ++open);
    };
    const ended = (request: { url(): string }) => {
      if (isWait(request.url())) open -= 1;
    };
    page.on('request', started);
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    try {
      await pressToOpen(NEXT_SESSION, third, 'Third notes');
      for (let round = 0; round < 6; round += 1) {
        await page.keyboard.press(NEXT_SESSION);
        await expect.poll(openSessionId, LOADING).toBe(second);
        await page.keyboard.press(PREVIOUS_SESSION);
        await expect.poll(openSessionId, LOADING).toBe(third);
      }
      await pressToOpen(NEXT_SESSION, second, 'Second notes');
      await page.getByLabel('Mode', { exact: true }).waitFor();
    } finally {
      page.off('request', started);
      page.off('requestfinished', ended);
      page.off('requestfailed', ended);
    }
    expect(most).toBeLessThanOrEqual(1);
  });
});

describe('Alt+Shift+C', () => {
  it('takes the focus to the message box from the session list; the box names the key', async () => {
    await sidebar()
      .getByRole('button', { name: /^Third notes/ })
      .focus();
    await page.keyboard.press(MESSAGE_BOX);
    await expect.poll(focused, LOADING).toBe('composer-input');
    expect(await composer().getAttribute('aria-keyshortcuts')).toBe('Alt+Shift+C');
  });
});

describe('Alt+Shift+S', () => {
  it('from the message box folds the session list away at 1280 px and shows it again, and at 400 px shows it and folds it, as Sessions does there; Sessions names the key', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    const sessions = () => nav.getByRole('button', { name: 'Sessions' });
    expect(await sessions().getAttribute('aria-keyshortcuts')).toBe('Alt+Shift+S');
    expect(await sessions().getAttribute('title')).toBe('Sessions (Alt+Shift+S)');
    await composer().focus();
    await page.keyboard.press(SESSION_LIST);
    await sidebar().waitFor({ state: 'hidden' });
    expect(await sessions().getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press(SESSION_LIST);
    await sidebar().waitFor();
    expect(await sessions().getAttribute('aria-expanded')).toBe('true');

    await page.setViewportSize({ width: 400, height: 560 });
    await sidebar().waitFor({ state: 'hidden' });
    await composer().focus();
    await page.keyboard.press(SESSION_LIST);
    await sidebar().waitFor();
    expect(await sessions().getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press(SESSION_LIST);
    await sidebar().waitFor({ state: 'hidden' });
    expect(await sessions().getAttribute('aria-expanded')).toBe('false');
    await page.setViewportSize({ width: 1280, height: 800 });
    await sidebar().waitFor();
  });
});

describe('where the keys do nothing', () => {
  it('while a dialog is open (/help, which lists each key): no session is made or opened, the dialog stays', async () => {
    const open = openSessionId();
    await composer().fill('/help');
    await composer().press('Enter');
    const help = page.getByRole('dialog', { name: 'Keys and commands' });
    for (const [key, what] of [
      ['Alt+Shift+N (⌥⇧N)', 'start a new session'],
      ['Alt+Shift+J (⌥⇧J)', 'open the next session in the list (the one below)'],
      ['Alt+Shift+K (⌥⇧K)', 'open the previous session in the list (the one above)'],
      ['Alt+Shift+C (⌥⇧C)', 'go to the message box'],
      ['Alt+Shift+S (⌥⇧S)', 'show the session list, or fold it away'],
    ] as const) {
      const row = help.getByRole('row').filter({ has: page.getByRole('rowheader', { name: key, exact: true }) });
      expect(await row.getByRole('cell').textContent()).toContain(what);
    }
    await shotAllModes(page, SHOTS, '85-help-session-keys', help.getByRole('rowheader', { name: 'Alt+Shift+C (⌥⇧C)' }));
    for (const key of [NEW_SESSION, NEXT_SESSION, PREVIOUS_SESSION, MESSAGE_BOX, SESSION_LIST])
      await page.keyboard.press(key);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(await help.isVisible()).toBe(true);
    expect(await sidebar().isVisible()).toBe(true);
    expect(openSessionId()).toBe(open);
    expect(await storedSessions(world!.host)).toHaveLength(4);
    await help.getByRole('button', { name: 'Close' }).click();
    await help.waitFor({ state: 'detached' });
  });

  it('in another text field (the session search box): no session is made or opened, the text and the focus stay there', async () => {
    const open = openSessionId();
    const search = sidebar().getByRole('searchbox');
    await search.fill('notes');
    for (const key of [NEW_SESSION, NEXT_SESSION, PREVIOUS_SESSION, MESSAGE_BOX, SESSION_LIST]) await search.press(key);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(openSessionId()).toBe(open);
    expect(await sidebar().isVisible()).toBe(true);
    expect(await storedSessions(world!.host)).toHaveLength(4);
    expect(await search.inputValue()).toBe('notes');
    expect(await focused()).toBe('session-search');
    await search.fill('');
  });
});
