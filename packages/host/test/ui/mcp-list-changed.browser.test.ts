/// <reference lib="dom" />
/**
 * An MCP server whose lists change while it runs, in real Chromium against the real host, its srt
 * sandbox and the fixture server in mode `changing`: the `/` and `@` menus list its first prompt
 * and resources; once the person reads its control://change (chosen in the @ menu: the server then
 * adds a prompt and a resource and says its lists changed), the menus opened again list the new
 * ones, with no restart of the server or the page.
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
useDesktopWorld(
  async () => {
    const world = await openScriptedDesktopWorld(() => ({ kind: 'text', pieces: ['Done.'] }), 'sk-mcp-changed-key');
    new McpConfigStore(world.host.userData).add(fixture('changing', 'changing'));
    return world;
  },
  (world) => ({ page } = world),
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
});
