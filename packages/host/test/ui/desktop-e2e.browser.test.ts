/// <reference lib="dom" />
/**
 * The desktop app end to end in real Chromium, with the demo model, the real host (srt posture),
 * the real sidecar and the per-command sandbox: open the launch URL → a message on the home page
 * starts a session → new session → `$ ls` runs
 * without asking → `$ touch x` asks → Allow → x exists → `$ touch y` → Deny → y does not exist.
 * API keys are set and deleted from Settings but never come back to the page. The app follows a
 * sidecar restart (new password) without a reload. Screenshots of the main screens go to
 * test-output/ui/. Each test starts from a fresh launch of the app at 1280 × 800 and makes the
 * session it needs, so the tests hold in any order.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { startTempHost, type TempHost } from '../support/temp-host.js';
import { makeTempDir } from '@bastion/test-support';
import { launchChromium, openDesktop } from './support/browser.js';
import { expectInViewport, shotAllModes, SHOTS, textContrast } from './support/layout.js';
import { sendMessage } from './support/desktop-world.js';

const KEY_CANARY = 'sk-test-CANARY-5f0e2b7c9d1a';

let browser: Browser;
let host: TempHost;
let context: BrowserContext;
let page: Page;
/** Every response body the page received from the daemon or host IPC, for the key canary. */
const bodies: string[] = [];

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A new session with the demo model, opened. */
async function newSession(): Promise<void> {
  await page.getByRole('button', { name: 'New session' }).click();
  await page.waitForURL(/\/desktop\/sessions\/ses_/);
  await page.locator('.chat-meta').getByText('offline demo model').waitFor();
}

/** The newest tool card's status line once it reads `expected`. */
async function lastToolStatus(expected: string): Promise<void> {
  await page.locator('[data-testid="tool-status"]').last().filter({ hasText: expected }).waitFor();
}

beforeAll(async () => {
  const home = makeTempDir('bastion-ui-home-');
  [browser, host] = await Promise.all([launchChromium(), startTempHost({ home })]);
  expect(host.capabilities).toMatchObject({ sandbox: 'srt', shell: true });
  writeFileSync(join(host.workspace, 'hello.txt'), 'hello\n');
  ({ context, page } = await openDesktop(browser, host));
  page.on('response', (response) => {
    const url = response.url();
    if (url.startsWith(`http://127.0.0.1:${host.socketHost.port}/`) || url.includes('/_host/ipc/')) {
      void response
        .text()
        .then((text) => bodies.push(text))
        .catch(() => undefined);
    }
  });
}, 90_000);

beforeEach(async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(host.desktop.issueLaunchUrl());
  await page.waitForURL((url) => url.pathname === '/desktop/');
});

afterAll(async () => {
  await context?.close();
  await Promise.all([browser?.close(), host?.stop()]);
});

describe('desktop app with the demo model', () => {
  it('shows the posture and the empty state, which names the demo model and leads to Settings for a real one', async () => {
    await page.getByRole('status', { name: 'Security posture' }).filter({ hasText: 'Sandboxed (srt)' }).waitFor();
    await page.getByRole('heading', { name: 'Start a session' }).waitFor();
    const empty = page.locator('section.empty');
    await empty.getByText('New sessions use the offline demo model, which is not an AI').waitFor();
    expect(await empty.locator('.hint code').allTextContents()).toEqual([
      'ls',
      'read README.md',
      '$ ls -la',
      'write notes.txt: hello',
    ]);
    await shotAllModes(page, SHOTS, '01-empty-state');
    await empty.getByRole('button', { name: 'Settings' }).click();
    await page.waitForURL((url) => url.pathname === '/desktop/settings');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('names the demo model one way, "offline demo model": the home page and its picker, a new session’s empty state, header, list entry and picker, and Settings’ default picker', async () => {
    /** The text of the option `picker` shows, and of every option and group it offers. */
    const picked = (picker: string) =>
      page.locator(picker).evaluate((select: HTMLSelectElement) => ({
        shown: select.selectedOptions[0]?.textContent,
        offered: Array.from(select.querySelectorAll('option, optgroup')).map(
          (element) => element.getAttribute('label') ?? element.textContent,
        ),
      }));
    await page.locator('section.empty').getByText('New sessions use the offline demo model,').waitFor();
    await page.locator('#home-model').waitFor();
    expect(await picked('#home-model')).toEqual({
      shown: 'offline demo model',
      offered: ['Built in', 'offline demo model'],
    });

    await newSession();
    await page.locator('.session-start').getByText('This session uses the offline demo model,').waitFor();
    expect(await page.locator('.chat-meta .chat-stats').textContent()).toBe('offline demo model');
    expect(await page.locator('li.session.selected .session-meta').textContent()).toMatch(/ · offline demo model$/);
    await page.locator('#session-model').waitFor();
    expect((await picked('#session-model')).shown).toBe('offline demo model');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Model for new sessions').waitFor();
    expect((await picked('#default-model')).shown).toBe('offline demo model');
  });

  it('at 1280 × 800 a session’s header is three lines: the title; the model with Export, Changes and Host record; Model, Mode and Ask before file edits on one row', async () => {
    await newSession();
    const head = page.locator('.chat-head');
    await head.getByLabel('Model', { exact: true }).waitFor();
    await head.locator('.chat-meta').getByRole('button', { name: 'Host record' }).waitFor();
    // One row: each control's middle within a few pixels of the first's (they differ in height).
    const middles = await head.locator('.chat-controls > *').evaluateAll((controls) =>
      controls.map((control) => {
        const box = control.getBoundingClientRect();
        return box.top + box.height / 2;
      }),
    );
    expect(middles.length).toBeGreaterThanOrEqual(3);
    for (const middle of middles)
      expect(Math.abs(middle - (middles[0] ?? 0)), `middles ${middles.join(', ')}`).toBeLessThan(4);
    expect((await head.boundingBox())?.height).toBeLessThanOrEqual(120);
  });

  it('the small buttons (the header’s Export, Changes and Host record; a reply’s Copy reply; a session’s Rename and Delete) are each at least 24 px tall, the minimum target size', async () => {
    await newSession();
    await sendMessage(page, 'ls');
    await page.getByRole('button', { name: 'Copy reply' }).last().waitFor();
    const heights = await page
      .locator('button.small')
      .evaluateAll((buttons) =>
        buttons
          .filter((button) => button.getClientRects().length > 0)
          .map((button) => ({ name: button.textContent, height: button.getBoundingClientRect().height })),
      );
    for (const name of ['Export', 'Host record', 'Copy reply', 'Rename', 'Delete'])
      expect(heights.some((button) => button.name?.startsWith(name))).toBe(true);
    for (const button of heights) expect(button.height, `${button.name}`).toBeGreaterThanOrEqual(24);
  });

  it('text in the link colour reads at 4.5:1 or more in light and dark: the home page’s Settings link, a run’s changed-file link, and Settings in the header while Settings is open', async () => {
    /** Fails unless `text` reads at 4.5:1 or more against what is behind it, in light and in dark. */
    const expectReadable = async (text: Locator, what: string) => {
      await text.waitFor();
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await textContrast(text), `${what} in ${scheme}`).toBeGreaterThanOrEqual(4.5);
      }
      await page.emulateMedia({ colorScheme: 'light' });
    };
    await expectReadable(
      page.locator('section.empty').getByRole('button', { name: 'Settings' }),
      'the home page’s Settings link',
    );
    await newSession();
    await sendMessage(page, 'write link-colour.txt: hello');
    await expectReadable(
      page.getByTestId('run-end').last().getByRole('button', { name: 'link-colour.txt' }),
      'the changed-file link',
    );
    const settings = page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' });
    await settings.click();
    await page.getByRole('tablist', { name: 'Settings sections' }).waitFor();
    await expectReadable(settings, 'the header’s Settings, Settings open');
  });

  it('keeps each prompt the empty states suggest on one line, on the home page and in a new session, at 1280 × 800 and 400 × 560', async () => {
    const hintLines = () =>
      page
        .locator('.hint code')
        .evaluateAll((codes) => codes.map((code) => [code.textContent, code.getClientRects().length]));
    for (const place of ['home', 'session'] as const) {
      if (place === 'session') await newSession();
      await page.locator('.hint code').first().waitFor();
      for (const [width, height] of [
        [1280, 800],
        [400, 560],
      ] as const) {
        await page.setViewportSize({ width, height });
        const lines = await hintLines();
        expect(lines.length, `hints on the ${place} page`).toBeGreaterThan(0);
        expect(
          lines.filter(([, rects]) => rects !== 1),
          `hints broken over lines on the ${place} page at ${width} px`,
        ).toEqual([]);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('a message typed on the home page starts a session on the default model with it sent, listed and opened; the box is empty after', async () => {
    const home = page.getByRole('combobox', { name: 'Message' });
    await expect.poll(() => home.getAttribute('placeholder'), { timeout: 30_000 }).toContain('@ for files');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
    await home.fill('read hello.txt');
    await home.press('Enter');
    await page.waitForURL(/\/desktop\/sessions\/ses_/);
    const sessionId = /sessions\/(ses_[^/?#]+)/.exec(page.url())?.[1];
    await page.locator('.bubble.user', { hasText: 'read hello.txt' }).waitFor();
    await page.getByText('demo: read hello.txt').waitFor();
    await page.locator('li.session', { hasText: 'read hello.txt' }).waitFor();
    const session = await host.client.request<{ provider: string; last_run: { status: string } | null }>(
      'GET',
      `/sessions/${sessionId}`,
    );
    expect(session.body.provider).toBe('demo');
    expect(session.body.last_run).not.toBeNull();
    await page.goto(host.desktop.issueLaunchUrl());
    await page.waitForURL((url) => url.pathname === '/desktop/');
    expect(await page.getByRole('combobox', { name: 'Message' }).inputValue()).toBe('');
  });

  it('creates a session and runs `$ ls` without asking', async () => {
    await newSession();
    await sendMessage(page, '$ ls');
    await lastToolStatus('exit 0');
    await page.locator('pre').filter({ hasText: 'hello.txt' }).first().waitFor();
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    await shotAllModes(page, SHOTS, '02-run-command');
  });

  it('`write notes.txt: hello`, as the empty state suggests, writes the file, shows its diff and Undo this run removes it', async () => {
    await newSession();
    await sendMessage(page, 'write notes.txt: hello');
    const end = page.getByTestId('run-end').last();
    await end.getByText('Files changed (1)').waitFor();
    expect(readFileSync(join(host.workspace, 'notes.txt'), 'utf8')).toBe('hello\n');
    await page.locator('.tool-card').last().getByText('+hello').waitFor();
    await end.getByRole('button', { name: 'Undo this run' }).click();
    await page.getByRole('dialog', { name: 'Undo this run?' }).getByRole('button', { name: 'Undo 1 file' }).click();
    await page.getByTestId('run-undone').waitFor();
    expect(existsSync(join(host.workspace, 'notes.txt'))).toBe(false);
  });

  it('asks before `$ touch x`; Allow runs it and x exists', async () => {
    await newSession();
    await sendMessage(page, '$ touch x');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByText('touch x').waitFor();
    expect(existsSync(join(host.workspace, 'x'))).toBe(false);
    await shot('03-approval');
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await lastToolStatus('exit 0');
    await approval.waitFor({ state: 'detached' });
    expect(existsSync(join(host.workspace, 'x'))).toBe(true);
  });

  it('asks before `$ touch y`; Deny keeps y from existing and the agent says so', async () => {
    await newSession();
    await sendMessage(page, '$ touch y');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByText('touch y').waitFor();
    await approval.getByLabel(/Reason/).fill('not in this test');
    await approval.getByRole('button', { name: 'Deny' }).click();
    await approval.waitFor({ state: 'detached' });
    await page
      .locator('.bubble.assistant')
      .filter({ hasText: /denied/i })
      .last()
      .waitFor();
    expect(existsSync(join(host.workspace, 'y'))).toBe(false);
    await shot('04-denied');
  });

  it('says on the command’s card that a repository it created was neutralised, and where the originals went', async () => {
    await newSession();
    await sendMessage(page, '$ sh -c "git init -q made && git -C made config core.pager less"');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await lastToolStatus('exit 0');
    const notice = page.getByRole('note').filter({ hasText: join(host.workspace, 'made', '.git') });
    await notice.waitFor();
    expect(await notice.textContent()).toContain(join(host.userData, 'host', 'quarantine'));
    await expectInViewport(page, notice, 'the created-repository notice');
    await shotAllModes(page, SHOTS, '08-created-repository-notice');
  });

  it('asks for informed consent before auto mode, and keeps accept-edits when declined', async () => {
    await newSession();
    await page.getByLabel('Mode', { exact: true }).selectOption('auto');
    const dialog = page.getByRole('dialog', { name: 'Let the agent run every command?' });
    await dialog.waitFor();
    await shot('05-auto-consent');
    await dialog.getByRole('button', { name: 'Keep accept-edits' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Mode', { exact: true }).inputValue()).toBe('accept-edits');
  });

  it('read-only mode, chosen from the Mode select, refuses `$ touch z` without asking and z never exists', async () => {
    await newSession();
    await page.getByLabel('Mode', { exact: true }).selectOption('read-only');
    await expect
      .poll(() => page.getByLabel('Mode', { exact: true }).inputValue(), { timeout: 30_000 })
      .toBe('read-only');
    await sendMessage(page, '$ touch z');
    await page.locator('.tool-card.tool-error').filter({ hasText: 'read-only' }).last().waitFor();
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    expect(existsSync(join(host.workspace, 'z'))).toBe(false);
    await shot('05b-read-only');
    await page.getByLabel('Mode', { exact: true }).selectOption('accept-edits');
    await expect
      .poll(() => page.getByLabel('Mode', { exact: true }).inputValue(), { timeout: 30_000 })
      .toBe('accept-edits');
  });

  it('follows a restarted sidecar (new password) without a reload', async () => {
    await newSession();
    const before = host.supervisor.current?.password;
    await page.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });
    await host.supervisor.restart('ui-test');
    expect(host.supervisor.current?.password).not.toBe(before);
    await sendMessage(page, '$ pwd');
    await page.locator('pre').filter({ hasText: host.workspace }).last().waitFor();
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  });

  it('sets and deletes an API key; the key never comes back to the page', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    await page.waitForURL(/\/desktop\/settings$/);
    const row = page.locator('form.key-row').filter({ has: page.getByTestId('key-state-openai') });
    const state = row.getByTestId('key-state-openai');
    await state.filter({ hasText: 'not configured' }).waitFor();
    await page.getByLabel('OpenAI').fill(KEY_CANARY);
    await row.getByRole('button', { name: 'Save', exact: true }).click();
    await state.filter({ hasText: /^configured$/ }).waitFor();
    expect(await page.getByLabel('OpenAI').inputValue()).toBe('');
    expect(readFileSync(join(host.userData, 'auth.json'), 'utf8')).toContain(KEY_CANARY);
    await shotAllModes(page, SHOTS, '06-settings-keys');
    await row.getByRole('button', { name: 'Replace', exact: true }).waitFor();
    await row.getByRole('button', { name: 'Delete', exact: true }).click();
    await state.filter({ hasText: 'not configured' }).waitFor();
    expect(readFileSync(join(host.userData, 'auth.json'), 'utf8')).not.toContain(KEY_CANARY);
    // Never read back: not in the page, not in any answer the page received, not on window.
    expect(await page.content()).not.toContain(KEY_CANARY);
    expect(bodies.length).toBeGreaterThan(5);
    expect(bodies.join('\n')).not.toContain(KEY_CANARY);
    expect(await page.evaluate((key) => JSON.stringify(Object.keys(window)).includes(key), KEY_CANARY)).toBe(false);
    expect(JSON.stringify(host.records)).not.toContain(KEY_CANARY);
  });

  it('renames and deletes a session from the list', async () => {
    await newSession();
    const sessionId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    const item = page.locator('li.session.selected');
    await item.getByRole('button', { name: /^Rename/ }).click();
    await item.getByLabel('Session title').fill('Scratch work');
    await item.getByRole('button', { name: 'Save' }).click();
    await page.locator('li.session').filter({ hasText: 'Scratch work' }).waitFor();
    const stored = await host.client.request<{ title: string }>('GET', `/sessions/${sessionId}`);
    expect(stored.body.title).toBe('Scratch work');
    const renamed = page.locator('li.session').filter({ hasText: 'Scratch work' });
    await renamed.getByRole('button', { name: /^Delete/ }).click();
    await renamed.getByRole('button', { name: 'Confirm delete' }).click();
    await renamed.waitFor({ state: 'detached' });
    await page.waitForURL((url) => url.pathname === '/desktop/');
    expect((await host.client.request('GET', `/sessions/${sessionId}`)).status).toBe(404);
  });

  it('is usable at 800 px wide and reachable by keyboard', async () => {
    await newSession();
    await sendMessage(page, '$ ls');
    await lastToolStatus('exit 0');
    await page.setViewportSize({ width: 800, height: 900 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('07-narrow-chat');
    // From the top of the page, Tab reaches New session and then the composer.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    const reached = new Set<string>();
    // Bounded well above the stops a page of this test's sessions and cards has (the list's Rename and Delete, each output's Copy).
    for (let i = 0; i < 100 && !(reached.has('New session') && reached.has('composer-input')); i += 1) {
      await page.keyboard.press('Tab');
      reached.add(
        await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || ''),
      );
    }
    expect(reached.has('New session')).toBe(true);
    expect(reached.has('composer-input')).toBe(true);
  });
});
