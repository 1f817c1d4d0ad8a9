/// <reference lib="dom" />
/**
 * A page whose Bastion stopped, in real Chromium against a real host the test stops: the posture
 * badge claims no sandbox any more ("Not connected"), a banner says to run `bastion start` again,
 * and Send is off and says why, what was typed staying in the box (Enter sends nothing). Before,
 * the badge stayed green ("Sandboxed · Shell available"), Send stayed on and failed with
 * UNREACHABLE, and the page said only "Reconnecting…", forever. Both in a session (its stream
 * drops) and on the home page (which has no stream: the page asks Bastion every few seconds).
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { launchChromium, openDesktop } from './support/browser.js';

let browser: Browser | undefined;
/** The host of the test going, until the test stops it. */
let running: TempHost | undefined;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

afterAll(() => browser?.close());

/** A page on a new host, showing its posture. */
async function openOnNewHost(): Promise<{ host: TempHost; page: Page }> {
  const host = await startTempHost();
  running = host;
  const { page } = await openDesktop(browser!, host);
  await page.getByRole('status', { name: 'Security posture' }).filter({ hasText: 'Sandboxed' }).waitFor();
  return { host, page };
}

async function stopHost(host: TempHost): Promise<void> {
  running = undefined;
  await host.stop();
}

/** What a stopped Bastion's page must show, `draft` still in the box after Enter. */
async function expectStoppedPage(page: Page, draft: string): Promise<void> {
  const posture = page.getByRole('status', { name: 'Security posture' });
  await posture.filter({ hasText: 'Not connected' }).waitFor();
  expect(await posture.textContent()).not.toMatch(/Sandboxed|Shell/);
  const banner = page.getByRole('alert').filter({ hasText: 'Bastion is not running' });
  expect(await banner.textContent()).toContain('Run bastion start in this project’s folder again');
  const send = page.getByRole('button', { name: 'Send' });
  expect(await send.isDisabled()).toBe(true);
  expect(await send.getAttribute('title')).toContain('nothing can be sent now');
  await page.getByText('Not connected to Bastion: nothing can be sent now. Your message stays here.').waitFor();
  const box = page.getByRole('combobox', { name: 'Message' });
  await box.press('Enter');
  expect(await box.inputValue()).toBe(draft);
}

describe('a page whose Bastion was stopped', () => {
  it('in a session: the badge says Not connected, the banner says to run bastion start again, Send is off and says why, the draft stays', async () => {
    const { host, page } = await openOnNewHost();
    const created = await host.client.request<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
    await page.getByRole('status', { name: 'Security posture' }).filter({ hasText: 'Sandboxed' }).waitFor();
    const box = page.getByRole('combobox', { name: 'Message' });
    await expect.poll(() => box.getAttribute('placeholder')).toContain('/ for commands');
    await box.fill('$ ls written before the stop');
    await stopHost(host);
    await expectStoppedPage(page, '$ ls written before the stop');
  });

  it('on the home page: the badge says Not connected, the banner says to run bastion start again, Send is off and says why, the draft stays', async () => {
    const { host, page } = await openOnNewHost();
    await page.getByRole('combobox', { name: 'Message' }).fill('read README.md');
    await stopHost(host);
    await expectStoppedPage(page, 'read README.md');
  });
});
