/// <reference lib="dom" />
/**
 * The session list's New session and Delete, in real Chromium against the real host and the demo
 * model. New session on a session with no message yet makes no other one: that session stays open,
 * its message box focused, and its pane shows how to start (it was a blank pane, and every click
 * added an "Untitled session"); on a session with messages it makes and opens a new one. Delete's
 * "Confirm delete" stays armed only while nothing else happens: Esc, a click elsewhere, Rename and
 * a switch of session each disarm it (it used to stay armed through all of them).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Session, SessionListResponse } from '@bastion/protocol';
import { openDesktopWorld, useDesktopWorld, sendMessage, type DesktopWorld } from './support/desktop-world.js';

let world: DesktopWorld | undefined;
let page: Page;

useDesktopWorld(openDesktopWorld, (opened) => {
  world = opened;
  ({ page } = opened);
});

const sidebar = () => page.getByRole('complementary', { name: 'Sessions' });
const newSessionButton = () => sidebar().getByRole('button', { name: 'New session' });
const composer = () => page.getByRole('combobox', { name: 'Message' });
const storedSessions = async () =>
  (await world!.host.client.request<SessionListResponse>('GET', '/sessions?limit=100')).body.sessions;
const openSessionId = () => /\/desktop\/sessions\/([^/]+)$/.exec(new URL(page.url()).pathname)?.[1];

/** Clicks New session and waits until it is done (the button is enabled again). */
async function clickNewSession(): Promise<void> {
  await newSessionButton().click();
  await expect.poll(() => newSessionButton().isEnabled()).toBe(true);
}

async function createSession(title: string): Promise<string> {
  const created = await world!.host.client.request<Session>('POST', '/sessions', {
    title,
    provider: 'demo',
    model: 'demo',
  });
  return created.body.id;
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
    expect((await storedSessions()).map((session) => session.id)).toEqual([first]);
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
    expect(await storedSessions()).toHaveLength(2);
    await page.getByTestId('transcript').getByText('This session uses the offline demo model').waitFor();
  });
});

describe('Delete’s confirmation', () => {
  let alpha: string;
  let beta: string;
  const row = (title: string) => sidebar().locator('li.session').filter({ hasText: title });
  const armed = () => sidebar().getByRole('button', { name: 'Confirm delete' });
  /**
   * Clicks Delete on the row titled `title` until its Confirm delete shows holding the focus. A
   * re-read of the list that moves the rows (the page's own, after it opened a session) takes the
   * focus from the button, which disarms it, as a click elsewhere does: then it is armed again.
   */
  async function arm(title: string): Promise<Locator> {
    for (let attempt = 1; ; attempt += 1) {
      await row(title)
        .getByRole('button', { name: `Delete ${title}` })
        .click();
      const focused = await armed()
        .evaluate((button) => button === document.activeElement, undefined, { timeout: 5_000 })
        .catch(() => false);
      if (focused) return row(title);
      if (attempt === 3) throw new Error(`Confirm delete for ${title} did not keep the focus`);
    }
  }

  beforeAll(async () => {
    alpha = await createSession('Alpha notes');
    beta = await createSession('Beta notes');
    await page.goto(`${world!.host.uiOrigin}/desktop/sessions/${alpha}`);
    await row('Beta notes').waitFor();
  });

  it('Esc disarms it: the button reads Delete again, keeps the focus, and the session stays', async () => {
    const beta_ = await arm('Beta notes');
    await page.keyboard.press('Escape');
    await armed().waitFor({ state: 'detached' });
    const del = beta_.getByRole('button', { name: 'Delete Beta notes' });
    // The focus goes back to Delete as the button re-renders, which can land after the detach.
    await expect.poll(() => del.evaluate((button) => button === document.activeElement)).toBe(true);
    expect((await storedSessions()).some((session) => session.id === beta)).toBe(true);
  });

  it('a click elsewhere (the search box) disarms it', async () => {
    await arm('Beta notes');
    await sidebar().getByRole('searchbox').click();
    await armed().waitFor({ state: 'detached' });
  });

  it('Rename disarms it: the rename form shows with no Confirm delete in the list', async () => {
    await arm('Beta notes');
    await row('Alpha notes').getByRole('button', { name: 'Rename Alpha notes' }).click();
    await sidebar().getByLabel('Session title').waitFor();
    expect(await armed().count()).toBe(0);
    await sidebar().getByRole('button', { name: 'Cancel' }).click();
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
    expect((await storedSessions()).some((session) => session.id === alpha)).toBe(true);
  });
});
