/// <reference lib="dom" />
/**
 * An MCP server whose lists change while it runs, in real Chromium against the real host, its srt
 * sandbox and the fixture server in mode `changing`: the `/` and `@` menus list its first prompt
 * and resources; once the person reads its control://change (chosen in the @ menu: the server then
 * adds a prompt and a resource and says its lists changed), the menus opened again list the new
 * ones, with no restart of the server or the page. A menu open when a server's lists change (two
 * more servers in mode `changing`, `one` and `two`, listed before `changing`, told to change
 * through the page's bridge meanwhile) lists the new prompt or resource while it stays open, the
 * option that was active still active where it moved to.
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { McpConfigStore } from '../../src/mcp/mcp-config-store.js';
import { mcpFixture } from '../support/mcp-fixture.js';
import { openScriptedDesktopWorld, useDesktopWorld } from './support/desktop-world.js';

/** What the page shows after the host has done its part: a server's start takes seconds on a loaded machine. */
const SETTLED = { timeout: 45_000 };
const fixture = mcpFixture('mcp-list-changed-browser-test');

let page: Page;
let workspace: string;
useDesktopWorld(
  async () => {
    const world = await openScriptedDesktopWorld(() => ({ kind: 'text', pieces: ['Done.'] }), 'sk-mcp-changed-key');
    const store = new McpConfigStore(world.host.userData);
    for (const name of ['one', 'two', 'changing']) store.add(fixture(name, 'changing'));
    return world;
  },
  (world) => {
    page = world.page;
    workspace = world.host.workspace;
  },
);

const composer = (): Locator => page.getByRole('combobox', { name: 'Message' });
const options = (): Locator => page.getByRole('listbox').getByRole('option');
/** The options the menu lists once it lists `first` of them, after `typed` is typed in an empty box. */
async function menuFor(typed: string, first: RegExp): Promise<string[]> {
  await composer().fill('');
  await composer().fill(typed);
  await options().filter({ hasText: first }).first().waitFor(SETTLED);
  return (await options().allTextContents()).map((text) => text.trim());
}

/** The text of the option the box says is active. */
const activeOption = (): Promise<string | undefined> =>
  composer().evaluate((box) => {
    const id = box.getAttribute('aria-activedescendant');
    return id === null ? undefined : document.getElementById(id)?.textContent?.trim();
  });
/**
 * Has `server` read its control://change through the page's own bridge, as another menu would:
 * it adds a prompt and a resource and says its lists changed. The box's open menu is left as it is.
 */
async function changeListsOf(server: string): Promise<void> {
  await page.evaluate(
    async ([root, name]) => {
      await window.bastion?.mcp.resource(root, name, 'control://change');
    },
    [workspace, server] as const,
  );
}

describe('a server that says its lists changed', () => {
  it('the / and @ menus opened again list the prompt and resource it added, without a restart', async () => {
    expect(await menuFor('/mcp__changing__', /first/)).toEqual(['/mcp__changing__first MCP server changing']);
    expect(await menuFor('See @changing:', /control:\/\/change/)).toEqual([
      'changing › change control://change',
      'changing › counts control://counts',
    ]);
    await options().filter({ hasText: 'control://change' }).click();
    await expect.poll(() => composer().inputValue(), SETTLED).toBe('See @changing:control://change ');
    await expect
      .poll(async () => {
        await composer().fill('');
        await composer().fill('/mcp__changing__');
        await options().first().waitFor(SETTLED);
        return (await options().allTextContents()).map((text) => text.trim());
      }, SETTLED)
      .toEqual([
        '/mcp__changing__first MCP server changing',
        '/mcp__changing__second MCP server changing listed once changed',
      ]);
    expect(await menuFor('See @changing:', /second:\/\/b/)).toEqual([
      'changing › change control://change',
      'changing › counts control://counts',
      'changing › second second://b',
    ]);
    await composer().fill('');
  });

  it('an open / menu lists the prompt a server adds while it stays open, the prompt that was active still active', async () => {
    // changing's lists changed in the test before: its two prompts come last.
    expect(await menuFor('/mcp__', /changing__second/)).toEqual([
      '/mcp__one__first MCP server one',
      '/mcp__two__first MCP server two',
      '/mcp__changing__first MCP server changing',
      '/mcp__changing__second MCP server changing listed once changed',
    ]);
    await composer().press('ArrowUp');
    await composer().press('ArrowUp');
    expect(await activeOption()).toBe('/mcp__changing__first MCP server changing');
    await changeListsOf('one');
    await expect
      .poll(async () => (await options().allTextContents()).map((text) => text.trim()), SETTLED)
      .toEqual([
        '/mcp__one__first MCP server one',
        '/mcp__one__second MCP server one listed once changed',
        '/mcp__two__first MCP server two',
        '/mcp__changing__first MCP server changing',
        '/mcp__changing__second MCP server changing listed once changed',
      ]);
    expect(await activeOption()).toBe('/mcp__changing__first MCP server changing');
    await composer().fill('');
  });

  it('an open @ menu lists the resource a server adds while it stays open, the resource that was active still active', async () => {
    await composer().fill('See @');
    await options().filter({ hasText: 'changing › second' }).waitFor(SETTLED);
    await composer().press('ArrowUp');
    await composer().press('ArrowUp');
    expect(await activeOption()).toBe('changing › counts control://counts');
    const before = (await options().allTextContents()).map((text) => text.trim());
    const changingAt = before.indexOf('changing › change control://change');
    expect(before.slice(changingAt - 2, changingAt)).toEqual([
      'two › change control://change',
      'two › counts control://counts',
    ]);
    await changeListsOf('two');
    await expect
      .poll(async () => (await options().allTextContents()).map((text) => text.trim()), SETTLED)
      .toEqual([...before.slice(0, changingAt), 'two › second second://b', ...before.slice(changingAt)]);
    expect(await activeOption()).toBe('changing › counts control://counts');
    await composer().fill('');
  });
});
