/// <reference lib="dom" />
/**
 * `@` in the message box, in real Chromium against the real host and the demo model: the list
 * shows the workspace's entries (read through the daemon's /workspaces/readdir), folders first and
 * dot names hidden; typing narrows it, and a longer name is also found in every folder (through
 * /workspaces/find); Tab goes into a folder, Enter or a click puts a file in; Esc closes it and
 * stops nothing (a run waiting for approval still waits); a folder that is not there says so. The
 * demo reads the mentioned file; the run names the project instructions it was given. The tab's
 * title says when a run waits for an answer. Screenshots (light and dark, 1280 and 420 px) go to
 * test-output/ui/.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import { openDesktopWorld, sendMessage, type DesktopWorld } from './support/desktop-world.js';
import { expectListAndComposerInView, shotAllModes, SHOTS } from './support/layout.js';

let world: DesktopWorld | undefined;
let page: Page;
let composer: Locator;
let workspace: string;

/** What the page shows after the host has done its part: under a loaded CI machine a run takes seconds. */
const SETTLED = { timeout: 30_000 };
const list = () => page.getByRole('listbox');
const options = () => list().getByRole('option').allTextContents();

beforeAll(async () => {
  world = await openDesktopWorld();
  const { host } = world;
  page = world.page;
  workspace = host.workspace;
  mkdirSync(join(host.workspace, 'src', 'util'), { recursive: true });
  mkdirSync(join(host.workspace, 'scripts'));
  writeFileSync(join(host.workspace, 'src', 'main.ts'), 'export const main = 1;\n');
  writeFileSync(join(host.workspace, 'src', 'util', 'strings.ts'), 'export {};\n');
  writeFileSync(join(host.workspace, 'README.md'), '# Mentions\n');
  writeFileSync(join(host.workspace, '.env.example'), 'TOKEN=\n');
  writeFileSync(join(host.workspace, 'AGENTS.md'), 'Run npm test before you finish.\n');
  const created = await host.client.request<Session>('POST', '/sessions', { provider: 'demo', model: 'demo' });
  await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
  composer = page.getByLabel('Message');
  await composer.waitFor();
}, 90_000);

afterAll(() => world?.close());

describe('@ mentions in the message box', () => {
  it('lists the workspace’s entries, folders first and dot names hidden; typing narrows; Tab goes into a folder', async () => {
    // The session (and with it its folder) is read after the page's first paint.
    await expect
      .poll(() => composer.getAttribute('placeholder'), SETTLED)
      .toBe('Ask the agent… (@ for files, / for commands)');
    await composer.pressSequentially('read @');
    await page.getByRole('listbox', { name: 'Files and folders in the workspace' }).waitFor();
    await expect.poll(options, SETTLED).toEqual(['scripts/', 'src/', 'AGENTS.md', 'README.md']);
    expect(await composer.getAttribute('aria-expanded')).toBe('true');

    await composer.pressSequentially('sr');
    await expect.poll(options, SETTLED).toEqual(['src/']);
    await composer.press('Tab');
    expect(await composer.inputValue()).toBe('read @src/');
    await page.getByRole('listbox', { name: 'Files and folders in src/' }).waitFor();
    await expect.poll(options, SETTLED).toEqual(['util/', 'main.ts']);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');
  });

  it('moves with the arrows (the active option is the one aria-activedescendant names); Enter puts the file in with a space', async () => {
    await composer.press('ArrowDown');
    const active = list().getByRole('option', { selected: true });
    expect(await active.textContent()).toBe('main.ts');
    expect(await composer.getAttribute('aria-activedescendant')).toBe(await active.getAttribute('id'));

    await shotAllModes(page, SHOTS, 'mention-list');
    await expectListAndComposerInView(page, list(), composer);

    await composer.press('Enter');
    expect(await composer.inputValue()).toBe('read @src/main.ts ');
    await list().waitFor({ state: 'detached' });
    expect(await composer.getAttribute('aria-expanded')).toBe('false');
  });

  it('sends the message with the mention, and the demo reads the file it names; the run shows the project instructions it was given', async () => {
    await composer.press('Enter');
    await page.getByTestId('run-end').last().waitFor();
    await page.getByText('demo: read src/main.ts').waitFor();
    expect(await composer.inputValue()).toBe('');
    const instructions = page.locator('.instructions-read');
    expect(await instructions.allTextContents()).toEqual(['Project instructions: AGENTS.md']);
    await shotAllModes(page, SHOTS, 'instructions-read', instructions);
  });

  it('a click puts an entry in; Esc closes the list, keeps the text, and the list stays closed until the mention is left', async () => {
    await composer.pressSequentially('ls @R');
    await expect.poll(options, SETTLED).toEqual(['README.md']);
    await list().getByRole('option', { name: 'README.md' }).click();
    expect(await composer.inputValue()).toBe('ls @README.md ');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-input');

    await composer.fill('');
    await composer.pressSequentially('ls @s');
    await list().waitFor();
    await composer.press('Escape');
    await list().waitFor({ state: 'detached' });
    expect(await composer.inputValue()).toBe('ls @s');
    await composer.pressSequentially('c');
    expect(await list().count()).toBe(0);
    await composer.pressSequentially(' @');
    await list().waitFor();
  });

  it('a name of two characters or more is also found in the workspace’s folders; choosing one puts its whole path in', async () => {
    await composer.fill('');
    await composer.pressSequentially('read @stri');
    await expect.poll(options, SETTLED).toEqual(['src/util/strings.ts']);
    await page.getByRole('listbox', { name: 'Files and folders in the workspace and its folders' }).waitFor();
    await shotAllModes(page, SHOTS, 'mention-found');
    await composer.press('Enter');
    expect(await composer.inputValue()).toBe('read @src/util/strings.ts ');
    await composer.pressSequentially('and @READ');
    // The root's own README.md, once: the search in the folders finds it too.
    await expect.poll(options, SETTLED).toEqual(['README.md']);
    await composer.press('Escape');
    await composer.fill('');
  });

  it('a folder that is not there says so, and lists nothing', async () => {
    await composer.fill('');
    await composer.pressSequentially('ls @nope/');
    await page.locator('.list-heading').getByText('Nothing in nope/').waitFor();
    expect(await options()).toEqual([]);
    await composer.press('Escape');
    await composer.fill('');
  });

  it('while a run waits for approval, Esc with the list open closes only the list: the run still waits, and Allow runs the command', async () => {
    const ends = page.getByTestId('run-end');
    const before = await ends.count();
    await composer.pressSequentially('$ touch made.txt');
    await composer.press('Enter');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.waitFor();
    await composer.click();
    await composer.pressSequentially('@');
    await list().waitFor();
    await composer.press('Escape');
    await list().waitFor({ state: 'detached' });
    await approval.getByRole('button', { name: 'Allow', exact: true }).click();
    await expect.poll(() => ends.count(), SETTLED).toBe(before + 1);
    expect(await ends.last().textContent()).not.toContain('Stopped');
    expect(existsSync(join(workspace, 'made.txt'))).toBe(true);
  });

  it('the tab’s title puts "Approval needed" before the session’s title while an answer is awaited, and is the page’s own again outside the session', async () => {
    await expect.poll(() => page.title(), SETTLED).toBe('read @src/main.ts · Bastion');
    await sendMessage(page, '$ touch denied.txt');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.waitFor();
    await expect.poll(() => page.title(), SETTLED).toBe('Approval needed · read @src/main.ts · Bastion');
    await approval.getByRole('button', { name: 'Deny' }).click();
    await approval.waitFor({ state: 'detached' });
    await expect.poll(() => page.title(), SETTLED).toBe('read @src/main.ts · Bastion');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    await expect.poll(() => page.title(), SETTLED).toBe('Bastion');
  });
});
