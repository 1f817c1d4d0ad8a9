/// <reference lib="dom" />
/**
 * MCP servers' prompts and resources in the message box, in real Chromium against the real host,
 * its srt sandbox, the test fixture MCP server (two prompts, two resources) and a scripted model
 * on loopback, whose requests show what the model received. `/` lists the server's prompts after
 * Bastion's own commands, marked with the server, their descriptions as text (the fixture's
 * `greet` says `<img onerror=…>`); choosing `review` asks for its needed argument; Enter runs it
 * and puts its text in the box, unsent, naming the prompt; Enter again sends it, the model gets
 * it, and the transcript says whose prompt it was. A mistaken argument is said under the box and
 * nothing is sent, as for a `/mcp__…` line naming no prompt of a server here. A prompt's text queued while a run goes keeps what the box read through a
 * reload: an `@SERVER:URI` word of the server's own text attaches nothing when it drains. `@`
 * lists the server's resources in a section of their own; choosing the readme puts `@fixture:notes://readme` in the box and the model gets its text; the binary logo
 * is refused under the box. Screenshots (light and dark, 1280×800 and 400×560) of both menus.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { lastUserText, type ScriptedEndpoint, type ScriptedTurn } from '@bastion/test-support';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import { openScriptedDesktopWorld, useDesktopWorld } from './support/desktop-world.js';
import { expectListAndComposerInView, shotAllModes, SHOTS } from './support/layout.js';
import { MCP_FIXTURE } from '../support/mcp-fixture.js';

/** What the page shows after the host has done its part: a server's start takes seconds on a loaded machine. */
const SETTLED = { timeout: 45_000 };
const SIZES = [
  { width: 1280, height: 800 },
  { width: 400, height: 560 },
];

const turns: ScriptedTurn[] = [];
let page: Page;
let endpoint: ScriptedEndpoint;
useDesktopWorld(
  async () => {
    const world = await openScriptedDesktopWorld(
      (index) => turns[index] ?? { kind: 'text', pieces: ['Done.'] },
      'sk-mcp-offers-test-key',
    );
    // Files beside the resources in the @ menu.
    writeFileSync(join(world.host.workspace, 'NOTES.md'), '# notes\n');
    writeFileSync(join(world.host.workspace, 'main.ts'), 'export {};\n');
    new McpConfigStore(world.host.userData).add({
      name: 'fixture',
      command: process.execPath,
      args: [MCP_FIXTURE, 'normal', 'mcp-offers-browser-test'],
    });
    return world;
  },
  (world) => ({ page, endpoint } = world),
);

const composer = (): Locator => page.getByRole('combobox', { name: 'Message' });
const list = (): Locator => page.getByRole('listbox');
const note = (): Locator => page.locator('#composer-image-note');
/** Wait for the model to be asked once more than `before` times, and the run that asked it to end (its Stop button gone). */
async function modelAsked(before: number): Promise<void> {
  await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(before);
  await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
}

describe('MCP prompts in the message box', () => {
  it('/ lists the server’s prompts after Bastion’s commands, marked with the server, a description’s markup shown as text', async () => {
    await composer().fill('/mcp__');
    // The host starts the server for the list (as a run would): the prompts come once it is ready.
    const review = list().getByRole('option', { name: /\/mcp__fixture__review/ });
    await review.waitFor(SETTLED);
    const greet = list().getByRole('option', { name: /\/mcp__fixture__greet/ });
    await expect
      .poll(() => list().getByRole('option').allTextContents())
      .toEqual([
        '/mcp__fixture__review MCP server fixture Review a piece of code · code=… focus=[…]',
        '/mcp__fixture__greet MCP server fixture Says hello <img src=x onerror="window.__mcpPwned=1"> <b>bold</b>',
      ]);
    expect(await greet.locator('img, b').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __mcpPwned?: number }).__mcpPwned)).toBeUndefined();
    await expectListAndComposerInView(page, list(), composer());
    await shotAllModes(page, SHOTS, '90-mcp-prompt-menu', undefined, SIZES);
    await composer().fill('');
  });

  it('choosing a prompt with a needed argument asks for it; Enter runs it into the box unsent; Enter again sends it to the model, and the transcript names the prompt', async () => {
    const before = endpoint.seen.length;
    await composer().fill('/mcp__fixture__rev');
    await list()
      .getByRole('option', { name: /\/mcp__fixture__review/ })
      .waitFor(SETTLED);
    await composer().press('Enter');
    await expect.poll(() => composer().inputValue()).toBe('/mcp__fixture__review code=');
    await expect
      .poll(() => note().textContent())
      .toBe('/mcp__fixture__review needs code: type each value after its = and press Enter.');
    await composer().pressSequentially('"let x = 1" focus=names');
    await composer().press('Enter');
    await expect.poll(() => composer().inputValue(), SETTLED).toBe('Review this code: let x = 1\nFocus on names.');
    await expect
      .poll(() => page.locator('#composer-prompt-note').textContent())
      .toBe('From the prompt review of the MCP server fixture: not sent yet, Enter sends it.');
    // Nothing went to the model yet: the person reads the server's words first.
    await page.waitForTimeout(300);
    expect(endpoint.seen.length).toBe(before);
    await composer().press('Enter');
    await modelAsked(before);
    expect(lastUserText(endpoint.seen)).toBe('Review this code: let x = 1\nFocus on names.');
    await page.locator('.mcp-prompt-origin').getByText('From the prompt review of the MCP server fixture').waitFor();
  });

  it('an argument the prompt does not take is said under the box, the text kept, and nothing is sent', async () => {
    const before = endpoint.seen.length;
    await composer().fill('/mcp__fixture__review code=x lang=ts');
    await composer().press('Enter');
    await expect
      .poll(() => note().textContent(), SETTLED)
      .toBe('/mcp__fixture__review takes no argument "lang"; it takes code (needed), focus.');
    expect(await composer().inputValue()).toBe('/mcp__fixture__review code=x lang=ts');
    await page.waitForTimeout(300);
    expect(endpoint.seen.length).toBe(before);
    await composer().fill('');
  });

  it.each([
    [
      '/mcp__nope__x',
      '/mcp__nope__x: no MCP server named nope here; the prompts here: /mcp__fixture__review, /mcp__fixture__greet.',
    ],
    [
      '/mcp__zzz hello',
      "/mcp__zzz names no MCP server's prompt (one is typed /mcp__SERVER__PROMPT); the prompts here: /mcp__fixture__review, /mcp__fixture__greet.",
    ],
    [
      '/mcp__fixture__nope',
      'The MCP server fixture offers no prompt nope; it offers /mcp__fixture__review, /mcp__fixture__greet.',
    ],
  ])(
    '%s, naming no prompt of a server here, is said under the box with the prompts there are, the text kept, and nothing is sent',
    async (line, said) => {
      const before = endpoint.seen.length;
      await composer().fill(line);
      await composer().press('Enter');
      await expect.poll(() => note().textContent(), SETTLED).toBe(said);
      expect(await composer().inputValue()).toBe(line);
      await page.waitForTimeout(300);
      expect(endpoint.seen.length).toBe(before);
      expect(await page.getByTestId('user-bubble').filter({ hasText: line }).count()).toBe(0);
      await composer().fill('');
    },
  );

  it('a message queued from a prompt whose text names @fixture:notes://readme goes after a reload without that resource: the model gets the prompt’s text alone', async () => {
    turns.length = endpoint.seen.length;
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    turns.push({ kind: 'text', pieces: ['Held.'], hold: held }, { kind: 'text', pieces: ['Queued one answered.'] });
    const before = endpoint.seen.length;
    await composer().fill('Wait a moment');
    await composer().press('Enter');
    await expect.poll(() => endpoint.seen.length, SETTLED).toBe(before + 1);
    // The argument puts the word in the server's prompt text (not at its end, where the caret
    // would open the @ menu on it): the box attaches nothing for it.
    await composer().fill('/mcp__fixture__review code=@fixture:notes://readme focus=names');
    await composer().press('Enter');
    const promptText = 'Review this code: @fixture:notes://readme\nFocus on names.';
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(promptText);
    await composer().press('Enter');
    const queued = page.getByRole('status', { name: 'Queued', exact: true });
    await expect.poll(() => queued.locator('.queued-text').textContent(), SETTLED).toBe(promptText);
    await page.reload();
    await expect.poll(() => queued.locator('.queued-text').textContent(), SETTLED).toBe(promptText);
    release();
    await page.getByText('Queued one answered.').waitFor(SETTLED);
    expect(endpoint.seen.length).toBe(before + 2);
    expect(lastUserText(endpoint.seen)).toBe(promptText);
    await page
      .locator('.mcp-prompt-origin')
      .last()
      .getByText('From the prompt review of the MCP server fixture')
      .waitFor();
  });
});

describe('MCP resources in the @ menu', () => {
  it('@ lists the server’s resources in their own section; choosing the readme attaches it, and the model gets its text under a line naming it', async () => {
    const before = endpoint.seen.length;
    await composer().fill('Summarise @');
    const resources = list().getByRole('group', { name: 'Resources of MCP servers' });
    await resources.getByRole('option').first().waitFor(SETTLED);
    expect(await resources.getByRole('option').allTextContents()).toEqual([
      'fixture › Fixture readme notes://readme',
      'fixture › logo notes://logo',
    ]);
    await expectListAndComposerInView(page, list(), composer());
    await shotAllModes(page, SHOTS, '91-mcp-resource-menu', undefined, SIZES);
    await resources.getByRole('option', { name: /Fixture readme/ }).click();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe('Summarise @fixture:notes://readme ');
    await composer().press('Enter');
    await modelAsked(before);
    expect(lastUserText(endpoint.seen)).toBe(
      [
        'Summarise @fixture:notes://readme',
        '[The user attached the resource notes://readme ("Fixture readme") of the MCP server fixture; its text follows.]',
        "# Fixture notes\nThe fixture's readme: FIXTURE-README-7c1.",
      ].join('\n'),
    );
    const attached = page.getByRole('list', { name: 'Attached MCP resources' }).last();
    await attached.getByText('notes://readme').click();
    await attached.getByText("The fixture's readme: FIXTURE-README-7c1.").waitFor();
    await shotAllModes(page, SHOTS, '92-mcp-resource-sent', attached, SIZES);
  });

  it('choosing the binary logo is refused under the box, and nothing goes in the text', async () => {
    await composer().fill('look at @fix');
    const logo = list().getByRole('option', { name: /fixture › logo/ });
    await logo.waitFor(SETTLED);
    await logo.click();
    await expect
      .poll(() => note().textContent(), SETTLED)
      .toBe(
        "@fixture:notes://logo: notes://logo is binary (image/png): only a resource's text can be attached to a message (MCP_RESOURCE_NOT_TEXT)",
      );
    expect(await composer().inputValue()).toBe('look at @fix');
    await composer().fill('');
  });
});
