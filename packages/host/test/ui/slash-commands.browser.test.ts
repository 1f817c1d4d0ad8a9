/// <reference lib="dom" />
/**
 * Slash commands in the message box, in real Chromium against the real host and the scripted
 * loopback endpoint: `/` lists the commands, typing narrows them, the current mode's is shown as
 * not runnable; Enter runs one instead of sending it (`/mode read-only` changes the session's mode
 * with no run started, `/mode auto` asks for consent first, `/undo` opens the undo confirmation of
 * the last run that changed a file, `/compact` has the model summarise the older turns, `/init`
 * sends the message asking for the project's AGENTS.md, `/new`
 * opens a new session, where `/compact` is refused in words, `/help` lists the keys, opening at its top); text that
 * starts no command is sent to the agent as typed. Screenshots (light and dark, 1280 and 420 px)
 * go to test-output/ui/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { INIT_INSTRUCTIONS_PROMPT, type Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { SESSION_COMMANDS } from './support/session-commands.js';
import {
  openScriptedDesktopWorld,
  useDesktopWorld,
  sendMessage,
  type ScriptedDesktopWorld,
} from './support/desktop-world.js';
import { expectListAndComposerInView, shotAllModes, SHOTS } from './support/layout.js';

/** What the page shows after the host has done its part: under a loaded CI machine a run takes seconds. */
const SETTLED = { timeout: 30_000 };

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let page: Page;
/** The message box. */
let composer: Locator;
const list = () => page.getByRole('listbox', { name: 'Commands' });
const names = () => list().locator('.command-name').allTextContents();
const session = async (id: string) => (await host.client.request<Session>('GET', `/sessions/${id}`)).body;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-ui-slash-test-key'),
  (opened) => {
    world = opened;
    ({ host, page } = opened);
    composer = page.getByRole('combobox', { name: 'Message' });
  },
);

describe('slash commands in the message box', () => {
  it('/ lists every command; typing narrows them; the current mode’s is listed as the mode now and Enter on it does nothing', async () => {
    await expect.poll(() => composer.getAttribute('placeholder'), SETTLED).toContain('/ for commands');
    await composer.pressSequentially('/');
    await list().waitFor();
    expect(await names()).toEqual(SESSION_COMMANDS);
    expect(await composer.getAttribute('aria-controls')).toBe('composer-list');
    expect(
      await list()
        .getByRole('option', { name: /^\/undo/ })
        .textContent(),
    ).toBe('/undo no run here changed a file');

    await composer.pressSequentially('mode a');
    await expect.poll(names).toEqual(['/mode accept-edits', '/mode auto']);
    const current = list().getByRole('option', { selected: true });
    expect(await current.textContent()).toBe('/mode accept-edits the mode now');
    expect(await current.getAttribute('aria-disabled')).toBe('true');
    await composer.press('Enter');
    expect(await composer.inputValue()).toBe('/mode a');
    expect((await session(world!.sessionId)).last_run).toBeNull();

    await shotAllModes(page, SHOTS, '43-slash-commands');
    await expectListAndComposerInView(page, list(), composer);
  });

  it('Enter on /mode read-only switches the session’s mode without starting a run and empties the box', async () => {
    await composer.fill('/mode r');
    await expect.poll(names).toEqual(['/mode read-only']);
    await composer.press('Enter');
    await expect.poll(async () => (await session(world!.sessionId)).mode, SETTLED).toBe('read-only');
    expect(await composer.inputValue()).toBe('');
    await expect.poll(() => page.locator('#mode').inputValue(), SETTLED).toBe('read-only');
    expect((await session(world!.sessionId)).last_run).toBeNull();
  });

  it('/mode auto asks for consent first: Keep (naming the mode now) leaves the mode, confirming switches to auto and records the consent', async () => {
    await composer.fill('/mode auto');
    await composer.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Let the agent run every command?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Keep read-only' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await session(world!.sessionId)).mode).toBe('read-only');

    await composer.fill('/mode auto');
    await composer.press('Enter');
    await dialog.getByRole('button', { name: 'I understand, switch to auto' }).click();
    await expect.poll(async () => (await session(world!.sessionId)).mode, SETTLED).toBe('auto');
    expect((await session(world!.sessionId)).auto_consent).not.toBeNull();
    await composer.fill('/mode accept-edits');
    await composer.press('Enter');
    await expect.poll(async () => (await session(world!.sessionId)).mode, SETTLED).toBe('accept-edits');
  });

  it('/model puts the focus on the session’s Model list, where the arrow keys choose', async () => {
    await composer.fill('/model');
    await expect.poll(names).toEqual(['/model']);
    await composer.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('session-model');
    expect(await composer.inputValue()).toBe('');
    await composer.focus();
  });

  it('text that starts no command (a path) lists nothing and is sent to the agent as typed', async () => {
    turns.push({ kind: 'text', pieces: ['It holds host names.'] });
    await composer.fill('/etc/hosts holds what?');
    expect(await list().count()).toBe(0);
    expect(await composer.getAttribute('aria-expanded')).toBe('false');
    await composer.press('Enter');
    await page.getByText('It holds host names.').waitFor(SETTLED);
    await page.locator('.bubble.user', { hasText: '/etc/hosts holds what?' }).waitFor();
  });

  it('/undo opens the undo confirmation of the last run that changed a file; Send on a whole command name runs it too', async () => {
    writeFileSync(join(host.workspace, 'notes.md'), 'alpha\n');
    turns.push(
      { kind: 'tool-call', name: 'write_file', input: { path: 'notes.md', content: 'beta\n' } },
      { kind: 'text', pieces: ['Rewrote notes.md.'] },
    );
    await sendMessage(page, 'Rewrite the notes');
    await page.getByText('Rewrote notes.md.').waitFor(SETTLED);
    await page.getByTestId('run-end').last().getByText('Files changed (1)').waitFor(SETTLED);
    await composer.fill('/undo');
    await page.getByRole('button', { name: 'Send' }).click();
    const dialog = page.getByRole('dialog', { name: 'Undo this run?' });
    await dialog.getByText('notes.md — put back as it was before the run').waitFor(SETTLED);
    expect(await composer.inputValue()).toBe('');
    await dialog.getByRole('button', { name: 'Undo 1 file' }).click();
    await page.getByTestId('run-undone').waitFor(SETTLED);
    expect(readFileSync(join(host.workspace, 'notes.md'), 'utf8')).toBe('alpha\n');
    await composer.fill('/u');
    expect(await list().getByRole('option').textContent()).toBe('/undo no run here changed a file');
    await composer.fill('');
  });

  it('/compact has the session’s model summarise the turns before the last exchange now: a refused summary fails with no Retry; a summary made is marked, the context meter going until a run measures again', async () => {
    await expect.poll(() => page.getByTestId('context-meter').count(), SETTLED).toBe(1);
    // A summary the provider refuses fails the run in words, with no Retry: it had no prompt to send again.
    turns.push({ kind: 'status', status: 400, message: 'summary refused' });
    await composer.fill('/compact');
    await composer.press('Enter');
    const failed = page.locator('.run-error').filter({ hasText: 'CONTEXT_COMPACTION_FAILED' });
    await failed.waitFor(SETTLED);
    expect(await failed.getByRole('button', { name: 'Retry' }).count()).toBe(0);

    turns.push({ kind: 'text', pieces: ['The user asked about /etc/hosts.'] });
    await composer.fill('/compact');
    await composer.press('Enter');
    // Six: both exchanges before the undo's note to the model (a user message), which is kept.
    await page.getByRole('status').filter({ hasText: 'Older turns (6 messages) were summarised' }).waitFor(SETTLED);
    expect(await composer.inputValue()).toBe('');
    await expect.poll(() => page.getByTestId('context-meter').count(), SETTLED).toBe(0);
    const summaryCall = world!.endpoint.seen.at(-1);
    expect(summaryCall?.system?.startsWith('You summarise')).toBe(true);
    expect(JSON.stringify(summaryCall?.body.messages)).toContain('/etc/hosts holds what?');
  });

  it('/init sends the message that asks the agent to write the project’s AGENTS.md, as the user’s message', async () => {
    turns.push({ kind: 'text', pieces: ['I will study the project first.'] });
    await composer.fill('/init');
    await composer.press('Enter');
    await page.getByText('I will study the project first.').waitFor(SETTLED);
    await page.locator('.bubble.user', { hasText: INIT_INSTRUCTIONS_PROMPT }).waitFor();
    expect(JSON.stringify(world!.endpoint.seen.at(-1)?.body.messages)).toContain(INIT_INSTRUCTIONS_PROMPT);
  });

  it('/help opens at its top with the focus on the dialog, taller than the window; Tab reaches Close, Esc closes it and the focus is back in the box', async () => {
    await composer.fill('/help');
    await composer.press('Enter');
    const help = page.getByRole('dialog', { name: 'Keys and commands' });
    await help.waitFor();
    const opened = await help.evaluate((dialog) => ({
      scrollTop: dialog.scrollTop,
      overflows: dialog.scrollHeight > dialog.clientHeight,
      focused: document.activeElement === dialog,
    }));
    expect(opened).toEqual({ scrollTop: 0, overflows: true, focused: true });
    await page.keyboard.press('Tab');
    expect(
      await help.getByRole('button', { name: 'Close' }).evaluate((button) => button === document.activeElement),
    ).toBe(true);
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'detached' });
    expect(await composer.evaluate((box) => box === document.activeElement)).toBe(true);
  });

  it('/help lists the keys and the commands; /new opens a new session, where /compact is refused in words', async () => {
    await composer.fill('/he');
    await composer.press('Tab');
    expect(await composer.inputValue()).toBe('/help');
    await composer.press('Enter');
    const help = page.getByRole('dialog', { name: 'Keys and commands' });
    await help.waitFor();
    expect(await help.locator('th code').allTextContents()).toEqual(SESSION_COMMANDS);
    expect(await help.locator('th kbd').allTextContents()).toContain('Shift+Enter');
    await shotAllModes(page, SHOTS, '44-help', help);
    await help.getByRole('button', { name: 'Close' }).click();
    await help.waitFor({ state: 'detached' });

    const before = world!.sessionId;
    await composer.fill('/new');
    await composer.press('Enter');
    await expect.poll(() => page.url(), SETTLED).not.toContain(before);
    const opened = /\/desktop\/sessions\/([^/?#]+)/.exec(page.url())?.[1];
    expect(opened).toBeDefined();
    expect((await session(opened!)).last_run).toBeNull();
    await page.getByRole('heading', { name: 'Untitled session' }).waitFor(SETTLED);
    await composer.fill('/compact');
    await composer.press('Enter');
    await page
      .getByRole('alert')
      .filter({ hasText: 'there are no older turns to summarise yet (CONTEXT_NOTHING_TO_COMPACT)' })
      .waitFor(SETTLED);
    expect((await session(opened!)).last_run).toBeNull();
  });
});
