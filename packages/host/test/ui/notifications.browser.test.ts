/// <reference lib="dom" />
/**
 * Notifications in the desktop app, in real Chromium against the real host and sidecar and the
 * scripted loopback endpoint, with the notifications permission granted to the page's origin.
 * Nothing of Bastion is stubbed; an init script wraps the browser's `Notification` to record what
 * the page shows, and stands in for the browser's own visibility (headless Chromium never hides a
 * page) so a test can put the tab in the background. Screenshots of the Settings card (light and
 * dark, 1280 and 420 px) go to test-output/ui/.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openDesktop } from './support/browser.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';
import { settleTouch, touchTurns } from './support/touch-turns.js';
import { openSettingsTab } from './support/settings.js';

const SETTLED = { timeout: 30_000 };
const TITLE = 'Release checklist';
/** Words of the messages, replies and provider errors: none may reach a notification. */
const CANARIES = ['MESSAGE-CANARY', 'REPLY-CANARY', 'ARGUMENT-CANARY', 'PROVIDER-CANARY'];
const SWITCH = 'Notify me when a run finishes or needs my approval while this tab is in the background';

interface Shown {
  title: string;
  body: string;
  tag: string;
}
declare global {
  interface Window {
    __shown?: Shown[];
    __clickShown?: (index: number) => void;
    __setHidden?: (hidden: boolean) => void;
  }
}

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let context: BrowserContext;
let page: Page;
let sessionId: string;
/** Lets a held scripted turn answer (the run of another session). */
let release: () => void = () => undefined;

const shown = () => page.evaluate(() => window.__shown ?? []);
const setHidden = (hidden: boolean) => page.evaluate((value) => window.__setHidden?.(value), hidden);
const listed = (title: string) => page.locator('li.session').filter({ hasText: title });
const card = (on: Page) => on.getByRole('region', { name: 'Notifications' });
const lastRunEnd = () => page.getByTestId('run-end').last();
/** Waits until the session list no longer marks the session as running (its read after the run). */
const listSettled = (title: string) => listed(title).locator('.session-running').waitFor({ state: 'detached' });

/** Records each notification the page makes, and lets a test say whether the tab is in the background. */
function recordNotifications(): void {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', {
    configurable: true,
    get: () => (hidden ? 'hidden' : 'visible'),
  });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
  window.__setHidden = (value: boolean) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  const Original = window.Notification;
  const made: Notification[] = [];
  const records: Shown[] = [];
  class Recorded extends Original {
    static override get permission() {
      return Original.permission;
    }
    static override requestPermission(...args: Parameters<typeof Original.requestPermission>) {
      return Original.requestPermission(...args);
    }
    constructor(title: string, options?: NotificationOptions) {
      super(title, options);
      records.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
      made.push(this);
    }
  }
  window.Notification = Recorded;
  window.__shown = records;
  window.__clickShown = (index: number) => made[index]?.dispatchEvent(new Event('click'));
}

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, 'sk-ui-notifications-test-key');
  ({ host, context, page, sessionId } = world);
  await host.client.request('PATCH', `/sessions/${sessionId}`, { title: TITLE });
  await context.grantPermissions(['notifications'], { origin: host.uiOrigin });
  await context.addInitScript(recordNotifications);
  await page.reload();
  await page.getByRole('heading', { name: TITLE }).waitFor(SETTLED);
}, 90_000);

afterAll(async () => {
  release();
  await world?.close();
});

describe('notifications while the tab is in the background', () => {
  it('Settings: turning the switch on asks the browser, which grants it; the switch reads on and stays on after a reload', async () => {
    await openSettingsTab(page, 'General');
    const toggle = card(page).getByRole('checkbox', { name: SWITCH });
    await toggle.waitFor(SETTLED);
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click();
    await card(page).getByText('On in this browser.', { exact: false }).waitFor(SETTLED);
    expect(await toggle.isChecked()).toBe(true);
    await shotAllCard(page, '60-notifications-on');
    await page.reload();
    await card(page).getByRole('checkbox', { name: SWITCH }).waitFor(SETTLED);
    expect(await card(page).getByRole('checkbox', { name: SWITCH }).isChecked()).toBe(true);
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await page.getByRole('heading', { name: TITLE }).waitFor(SETTLED);
  });

  it('with the tab in view, a finished run shows no notification', async () => {
    turns.push({ kind: 'text', pieces: ['REPLY-CANARY one.'] });
    await sendMessage(page, 'MESSAGE-CANARY first');
    await lastRunEnd().waitFor(SETTLED);
    await listSettled(TITLE);
    expect(await shown()).toEqual([]);
  });

  it('with the tab in the background, a finished run shows one notification, "Bastion: <title> — done", tagged for its session, with nothing of the message or reply', async () => {
    await setHidden(true);
    turns.push({ kind: 'text', pieces: ['REPLY-CANARY two.'] });
    const ends = await page.getByTestId('run-end').count();
    await sendMessage(page, 'MESSAGE-CANARY second');
    await page.getByTestId('run-end').nth(ends).waitFor(SETTLED);
    await listSettled(TITLE);
    const notes = await shown();
    expect(notes).toEqual([
      {
        title: `Bastion: ${TITLE} — done`,
        body: 'The run finished. Click to open the session.',
        tag: `bastion-session-${sessionId}`,
      },
    ]);
    for (const canary of CANARIES) expect(JSON.stringify(notes)).not.toContain(canary);
  });

  it('with the tab in the background, a run waiting for approval shows one notification naming the tool and not its arguments; clicking it from Settings opens the session', async () => {
    turns.push(
      { kind: 'tool-call', name: 'run_command', input: { command: 'sh', args: ['-c', 'echo ARGUMENT-CANARY'] } },
      { kind: 'text', pieces: ['REPLY-CANARY denied.'] },
    );
    await sendMessage(page, 'MESSAGE-CANARY run something');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.waitFor(SETTLED);
    await expect.poll(async () => (await shown()).length, SETTLED).toBe(2);
    const notes = await shown();
    expect(notes[1]).toEqual({
      title: `Bastion: ${TITLE} — needs your approval: run_command`,
      body: 'A tool call waits for your answer. Click to open the session.',
      tag: `bastion-session-${sessionId}`,
    });
    for (const canary of CANARIES) expect(JSON.stringify(notes)).not.toContain(canary);

    await openSettingsTab(page, 'General');
    await card(page).waitFor(SETTLED);
    await page.evaluate(() => window.__clickShown?.(1));
    await approval.waitFor(SETTLED);
    expect(new URL(page.url()).pathname).toBe(`/desktop/sessions/${sessionId}`);

    // Answered in view: the run that goes on after the answer is not told.
    await setHidden(false);
    await approval.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('REPLY-CANARY denied.').waitFor(SETTLED);
    await listSettled(TITLE);
    expect(await shown()).toHaveLength(2);
  });

  it('with the tab in the background, a run the person stops shows no notification', async () => {
    await setHidden(true);
    turns.push({
      kind: 'text',
      pieces: Array.from({ length: 400 }, (_, index) => `REPLY-CANARY${index} `),
      delayMs: 40,
    });
    await sendMessage(page, 'MESSAGE-CANARY talk for long');
    // Stopped once the reply streams, so the endpoint has used this turn and the next test gets its own.
    await page.getByText('REPLY-CANARY0', { exact: false }).first().waitFor(SETTLED);
    await page.getByRole('button', { name: 'Stop' }).click();
    await lastRunEnd().getByText('Stopped').waitFor(SETTLED);
    await listSettled(TITLE);
    expect(await shown()).toHaveLength(2);
  });

  it('with the tab in the background, a failed run shows one notification saying the provider failed in fixed words, not the provider’s message', async () => {
    turns.push({ kind: 'status', status: 400, message: 'PROVIDER-CANARY bad request' });
    await sendMessage(page, 'MESSAGE-CANARY fail please');
    await page.locator('.run-error').last().waitFor(SETTLED);
    await expect.poll(async () => (await shown()).length, SETTLED).toBe(3);
    const notes = await shown();
    expect(notes[2]?.title).toBe(`Bastion: ${TITLE} — failed`);
    expect(notes[2]?.tag).toBe(`bastion-session-${sessionId}`);
    expect(notes[2]?.body).toBe('The model provider failed. Click to open the session.');
    for (const canary of CANARIES) expect(JSON.stringify(notes)).not.toContain(canary);
  });

  it('with the tab in the background, a run of another session that ends while this one is open shows one notification naming that session', async () => {
    await setHidden(false);
    const other = await host.client.request<Session>('POST', '/sessions', {
      provider: 'local',
      model: 'scripted-model',
      title: 'Other work',
    });
    turns.push({
      kind: 'text',
      pieces: ['REPLY-CANARY other.'],
      hold: new Promise<void>((resolve) => (release = resolve)),
    });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${other.body.id}`);
    await page.getByRole('heading', { name: 'Other work' }).waitFor(SETTLED);
    await sendMessage(page, 'MESSAGE-CANARY other');
    await page.getByTestId('activity').filter({ hasText: 'Working…' }).waitFor(SETTLED);
    await listed(TITLE).locator('.session-open').click();
    await page.getByRole('heading', { name: TITLE }).waitFor(SETTLED);
    await listed('Other work').locator('.session-running').waitFor(SETTLED);
    const before = (await shown()).length;
    await setHidden(true);
    release();
    await expect.poll(async () => (await shown()).length, SETTLED).toBe(before + 1);
    await listSettled('Other work');
    const notes = await shown();
    expect(notes).toHaveLength(before + 1);
    expect(notes[before]).toEqual({
      title: 'Bastion: Other work — done',
      body: 'The run finished. Click to open the session.',
      tag: `bastion-session-${other.body.id}`,
    });
    await page.evaluate((index) => window.__clickShown?.(index), before);
    await page.getByRole('heading', { name: 'Other work' }).waitFor(SETTLED);
    expect(new URL(page.url()).pathname).toBe(`/desktop/sessions/${other.body.id}`);
    await setHidden(false);
  });

  it('with the tab in the background, the host’s own question about a call (a policy ask) shows one notification naming the session and the tool, not its arguments; the run answered in view is not told', async () => {
    const marker = 'ARGUMENT-CANARY-host';
    host.policy.add({ kind: 'global' }, { decision: 'ask', command: 'touch', argv_prefix: [marker] });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${sessionId}`);
    await page.getByRole('heading', { name: TITLE }).waitFor(SETTLED);
    const before = (await shown()).length;
    await setHidden(true);
    turns.push(...touchTurns(marker));
    await sendMessage(page, 'MESSAGE-CANARY touch it');
    const region = page.getByRole('region', { name: 'The host asks' });
    await region.getByText(`touch ${marker}`).waitFor(SETTLED);
    await expect.poll(async () => (await shown()).length, SETTLED).toBe(before + 1);
    const notes = await shown();
    expect(notes[before]).toEqual({
      title: `Bastion: ${TITLE} — needs your approval: run_command`,
      body: 'A tool call waits for your answer. Click to open the session.',
      tag: `bastion-session-${sessionId}`,
    });
    for (const canary of CANARIES) expect(JSON.stringify(notes)).not.toContain(canary);

    await setHidden(false);
    await region.getByRole('button', { name: 'Deny' }).click();
    await settleTouch(page, region, marker);
    await listSettled(TITLE);
    expect(await shown()).toHaveLength(before + 1);
  });

  it('with notifications denied by the browser, turning the switch on leaves it off and says the browser blocks them', async () => {
    const denied = await openDesktop(world!.browser, host);
    try {
      await denied.page.setViewportSize({ width: 1280, height: 800 });
      await denied.page.goto(`${host.uiOrigin}/desktop/settings#general`);
      const toggle = card(denied.page).getByRole('checkbox', { name: SWITCH });
      await toggle.waitFor(SETTLED);
      await toggle.click();
      await card(denied.page)
        .getByRole('alert')
        .getByText('The browser blocks notifications for this page')
        .waitFor(SETTLED);
      expect(await toggle.isChecked()).toBe(false);
      expect(await denied.page.evaluate(() => window.localStorage.getItem('bastion.notify-in-background'))).toBeNull();
      await shotAllCard(denied.page, '60-notifications-denied');
    } finally {
      await denied.context.close();
    }
  });
});

/** The Settings page in light and dark at 1280 and 420 px, its Notifications card scrolled into view. */
function shotAllCard(on: Page, name: string): Promise<void> {
  return shotAllModes(on, SHOTS, name, card(on));
}
