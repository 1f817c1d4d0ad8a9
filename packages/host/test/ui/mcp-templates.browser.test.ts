/// <reference lib="dom" />
/**
 * An MCP server's resource templates in the message box's @ menu, in real Chromium against the
 * real host, its srt sandbox, the fixture server in mode `templates` and a scripted model on
 * loopback: `@` lists them after the resources, saying what each asks for; choosing one asks for
 * its variables in place of the menu; Enter there has the host expand and read it, and the URI it
 * expands to (the value percent-encoded) goes in the box; sent, the model gets its text. A binary
 * one is refused in the form, which keeps the value; Esc goes back to the box, nothing attached.
 * A template filled in and the page reloaded: the box keeps the word and the template with its
 * value, and sent, the host expands and reads it again (reads.log) and the model gets its text.
 * Screenshots (light and dark, 1280×800 and 400×560) of the form and of the box after the reload.
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { lastUserText, type ScriptedEndpoint } from '@bastion/test-support';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import { fixtureReads, mcpFixture } from '../support/mcp-fixture.js';
import { openScriptedDesktopWorld, useDesktopWorld } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';

/** What the page shows after the host has done its part: a server's start takes seconds on a loaded machine. */
const SETTLED = { timeout: 45_000 };
const SIZES = [
  { width: 1280, height: 800 },
  { width: 400, height: 560 },
];
const fixture = mcpFixture('mcp-templates-browser-test');

let page: Page;
let endpoint: ScriptedEndpoint;
let userData: string;
useDesktopWorld(
  async () => {
    const world = await openScriptedDesktopWorld(() => ({ kind: 'text', pieces: ['Done.'] }), 'sk-mcp-templates-key');
    new McpConfigStore(world.host.userData).add(fixture('templates', 'templates'));
    return world;
  },
  (world) => {
    ({ page, endpoint } = world);
    userData = world.host.userData;
  },
);

const composer = (): Locator => page.getByRole('combobox', { name: 'Message' });
const form = (word: string): Locator => page.getByRole('group', { name: `Values for @${word}` });
/**
 * Sends the box's text and waits for the model to be asked: the message it gets is `lines`, one a
 * line (the text, then each resource's heading and text).
 */
async function sendExpecting(lines: readonly string[]): Promise<void> {
  const before = endpoint.seen.length;
  await composer().press('Enter');
  await expect.poll(() => endpoint.seen.length, SETTLED).toBeGreaterThan(before);
  expect(lastUserText(endpoint.seen)).toBe(lines.join('\n'));
}

describe('MCP resource templates in the @ menu', () => {
  it('lists the templates saying what each asks for; choosing one asks for its value, and Enter puts the URI it expands to in the box; sent, the model gets its text', async () => {
    await composer().fill('Read @templates:');
    const resources = page.getByRole('listbox').getByRole('group', { name: 'Resources of MCP servers' });
    await resources.getByRole('option').first().waitFor(SETTLED);
    expect(await resources.getByRole('option').allTextContents()).toEqual([
      'templates › Note by path notes:///{path} · a note, by its path · template: asks for path',
      'templates › big big:///{n} · template: asks for n',
      'templates › bin bin:///{n} · template: asks for n',
    ]);
    await resources.getByRole('option', { name: /Note by path/ }).click();
    const values = form('templates:notes:///{path}');
    const path = values.getByRole('textbox', { name: 'path' });
    await expect.poll(() => path.evaluate((field) => field === document.activeElement)).toBe(true);
    await path.pressSequentially('docs/a b');
    await shotAllModes(page, SHOTS, '97-mcp-template-values', values, SIZES);
    await path.press('Enter');
    await expect.poll(() => composer().inputValue(), SETTLED).toBe('Read @templates:notes:///docs%2Fa%20b ');
    await values.waitFor({ state: 'detached' });
    await sendExpecting([
      'Read @templates:notes:///docs%2Fa%20b',
      '[The user attached the resource notes:///docs%2Fa%20b ("Note by path") of the MCP server templates; its text follows.]',
      'note: docs/a b',
    ]);
  });

  it('a binary one is refused in the form, the value kept; Esc goes back to the box with its text as it was', async () => {
    await page.locator('.composer-actions button.danger').waitFor({ state: 'detached', ...SETTLED });
    await composer().fill('Look @templates:bi');
    const bin = page.getByRole('option', { name: /templates › bin/ });
    await bin.waitFor(SETTLED);
    await bin.click();
    const values = form('templates:bin:///{n}');
    const n = values.getByRole('textbox', { name: 'n' });
    await n.fill('1');
    await n.press('Enter');
    await expect
      .poll(() => values.getByRole('alert').textContent(), SETTLED)
      .toBe(
        "@templates:bin:///{n}: bin:///1 is binary: only a resource's text can be attached to a message (MCP_RESOURCE_NOT_TEXT)",
      );
    expect(await n.inputValue()).toBe('1');
    await n.press('Escape');
    await values.waitFor({ state: 'detached' });
    expect(await composer().inputValue()).toBe('Look @templates:bi');
    await expect.poll(() => composer().evaluate((box) => box === document.activeElement)).toBe(true);
    await composer().fill('');
  });

  it('a template filled in stays with the draft through a reload: sent, the host reads it again from its value and the model gets its text', async () => {
    await composer().fill('Then @templates:Note');
    await page.getByRole('option', { name: /Note by path/ }).click(SETTLED);
    const path = form('templates:notes:///{path}').getByRole('textbox', { name: 'path' });
    await path.pressSequentially('kept/x y');
    await path.press('Enter');
    const text = 'Then @templates:notes:///kept%2Fx%20y ';
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(text);
    const reads = fixtureReads(userData, 'templates').length;
    await page.reload();
    await expect.poll(() => composer().getAttribute('placeholder'), SETTLED).toContain('@ for files');
    await expect.poll(() => composer().inputValue(), SETTLED).toBe(text);
    await composer().focus();
    await composer().press('End');
    await composer().pressSequentially('please');
    await shotAllModes(page, SHOTS, '97-mcp-template-after-reload', composer(), SIZES);
    await sendExpecting([
      'Then @templates:notes:///kept%2Fx%20y please',
      '[The user attached the resource notes:///kept%2Fx%20y ("Note by path") of the MCP server templates; its text follows.]',
      'note: kept/x y',
    ]);
    expect(fixtureReads(userData, 'templates').slice(reads)).toEqual(['notes:///kept%2Fx%20y']);
    expect(await page.locator('#composer-image-note').count()).toBe(0);
  });
});
