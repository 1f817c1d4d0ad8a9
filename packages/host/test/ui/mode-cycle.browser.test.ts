/// <reference lib="dom" />
/**
 * Alt+Shift+M in the message box switches the session's mode, in real Chromium with the real host
 * and sidecar (scripted model): read-only ↔ accept-edits, shown in the Mode list and said in a
 * status, focus and text staying in the box. It never switches to `auto`, which asks for consent
 * first (it leaves auto for read-only). While an approval waits the mode stays, and Shift+Tab
 * still moves focus back, reaching the question. `/help` lists the key.
 */

import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PermissionMode, Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import {
  openScriptedDesktopWorld,
  useDesktopWorld,
  sendMessage,
  type ScriptedDesktopWorld,
} from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';

/** The key as Playwright presses it (by code, as the page reads it). */
const MODE_KEY = 'Alt+Shift+KeyM';

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let page: Page;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-mode-cycle-test-key'),
  (opened) => {
    world = opened;
    ({ host, page } = opened);
  },
);

/** The session's mode as the daemon has it. */
async function storedMode(): Promise<PermissionMode> {
  return (await host.client.request<Session>('GET', `/sessions/${world?.sessionId}`)).body.mode;
}

/** Alt+Shift+M in the box, then the Mode list, the status and the daemon all have `mode`. */
async function cycleTo(mode: PermissionMode, label: string): Promise<void> {
  await page.keyboard.press(MODE_KEY);
  await expect.poll(() => page.getByLabel('Mode', { exact: true }).inputValue()).toBe(mode);
  await page
    .getByRole('status')
    .filter({ hasText: `Mode: ${label}` })
    .waitFor({ state: 'attached' });
  expect(await storedMode()).toBe(mode);
}

describe('Alt+Shift+M in the message box', () => {
  it('switches accept-edits → read-only → accept-edits: the Mode list shows it, a status says it, the session has it; focus and text stay in the box', async () => {
    const composer = page.getByLabel('Message');
    await composer.fill('half a thought');
    await composer.focus();
    expect(await storedMode()).toBe('accept-edits');
    await cycleTo('read-only', 'read-only: changes nothing');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
    expect(await composer.inputValue()).toBe('half a thought');
    await shotAllModes(page, SHOTS, '67-mode-cycled-read-only');
    await cycleTo('accept-edits', 'accept-edits: edits files, asks before other changes');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
    await composer.fill('');
  });

  it('never switches to auto, which asks for consent first: from accept-edits it goes to read-only, no dialog opens; from auto (consented in the Mode list) it goes to read-only', async () => {
    const composer = page.getByLabel('Message');
    await composer.focus();
    await cycleTo('read-only', 'read-only: changes nothing');
    await cycleTo('accept-edits', 'accept-edits: edits files, asks before other changes');
    await cycleTo('read-only', 'read-only: changes nothing');
    expect(await page.locator('dialog[open]').count()).toBe(0);

    await page.getByLabel('Mode', { exact: true }).selectOption('auto');
    await page.getByRole('button', { name: 'I understand, switch to auto' }).click();
    await expect.poll(storedMode).toBe('auto');
    await composer.focus();
    await cycleTo('read-only', 'read-only: changes nothing');
    await cycleTo('accept-edits', 'accept-edits: edits files, asks before other changes');
  });

  it('while an approval waits, leaves the mode as it is, and Shift+Tab moves focus back out of the box on to the approval’s Always allow…', async () => {
    turns.push(
      { kind: 'tool-call', name: 'run_command', input: { command: 'touch', args: ['mode-cycle-marker'] } },
      { kind: 'text', pieces: ['Done with mode-cycle-marker.'] },
    );
    await sendMessage(page, 'Touch mode-cycle-marker');
    const region = page.getByRole('region', { name: 'Approval needed' });
    await region.getByText('touch mode-cycle-marker').waitFor();
    const composer = page.getByLabel('Message');
    await composer.focus();
    await page.keyboard.press(MODE_KEY);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
    await page.keyboard.press('Shift+Tab');
    // The approval's last answer: Attach image, before the box, is disabled (this model takes no images).
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Always allow…');
    expect(await page.getByLabel('Mode', { exact: true }).inputValue()).toBe('accept-edits');
    expect(await storedMode()).toBe('accept-edits');
    await region.getByRole('button', { name: 'Deny' }).click();
    await region.waitFor({ state: 'detached' });
    await page.getByText('Done with mode-cycle-marker.').waitFor();
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached' });
  });

  it('is listed in /help', async () => {
    const composer = page.getByLabel('Message');
    await composer.fill('/help');
    await composer.press('Enter');
    const help = page.getByRole('dialog', { name: 'Keys and commands' });
    await help.getByRole('rowheader', { name: 'Alt+Shift+M (⌥⇧M)', exact: true }).waitFor();
    expect(await help.getByRole('row').filter({ hasText: 'Alt+Shift+M' }).textContent()).toContain(
      'switch the mode: read-only ↔ accept-edits',
    );
    await help.getByRole('button', { name: 'Close' }).click();
  });
});
