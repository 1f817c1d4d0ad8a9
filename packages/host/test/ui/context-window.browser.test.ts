/// <reference lib="dom" />
/**
 * Context that lasts, as the desktop app shows it, in real Chromium against the real host and the
 * scripted loopback endpoint: a session that outgrew its endpoint's window shows the "older turns
 * were summarised" marker in its transcript; Settings sets an endpoint's context window, which the
 * daemon stores; the session header shows how full the last run left the window, measured against
 * the window of the model the session uses now. Screenshots (light and dark, 1280 and 420 px) go
 * to test-output/ui/.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { scriptedWorlds } from '../support/scripted-agent.js';
import type { ScriptedRequest, ScriptedTurn } from '@bastion/test-support';
import { launchChromium, openDesktop } from './support/browser.js';
import { expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

const worlds = scriptedWorlds('sk-ui-context-test-key');
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
  await worlds.stop();
});
afterAll(() => browser?.close());

const talk = (index: number, request: ScriptedRequest): ScriptedTurn =>
  request.system?.startsWith('You summarise') === true
    ? { kind: 'text', pieces: ['The user asked about turns 0 to 5.'] }
    : { kind: 'text', pieces: [`Answer ${index}.`] };

describe('context that lasts in the desktop app', () => {
  it('shows the compaction marker in the transcript of a session that outgrew its endpoint’s window', async () => {
    const world = await worlds.start(talk, {}, { context_window: 2_048 });
    let compacted = false;
    for (let turn = 0; turn < 10 && !compacted; turn++) {
      const outcome = await world.agent.say(`Prompt ${turn}: ${'some context to keep '.repeat(40)}`);
      compacted = outcome.events.some((event) => event.type === 'context-compacted');
    }
    expect(compacted).toBe(true);
    const { context, page } = await openDesktop(browser, world.host);
    contexts.push(context);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${world.host.uiOrigin}/desktop/sessions/${world.agent.session.id}`);
    const marker = page.getByRole('status').filter({ hasText: 'were summarised to fit the model’s context' });
    await marker.first().waitFor();
    await marker.first().scrollIntoViewIfNeeded();
    await shotAllModes(page, SHOTS, '40-context-compacted');
  });

  it('the session header shows the share of the endpoint’s window the last finished run’s last step used, in words and as a meter', async () => {
    const window = 8_192;
    const world = await worlds.start(talk, {}, { context_window: window });
    await world.agent.say('First question');
    const outcome = await world.agent.say(`Second question: ${'more context '.repeat(200)}`);
    const finished = outcome.events.at(-1);
    if (finished?.type !== 'run-finished' || finished.context === undefined) throw new Error('no context measured');
    expect(finished.context.window).toBe(window);
    const { context, page } = await openDesktop(browser, world.host);
    contexts.push(context);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${world.host.uiOrigin}/desktop/sessions/${world.agent.session.id}`);
    const meter = page.getByTestId('context-meter');
    const percent = Math.round((100 * finished.context.tokens) / window);
    await expect
      .poll(() => meter.textContent(), { timeout: 30_000 })
      .toMatch(new RegExp(`^Context\\s+${percent}% of 8\\.2K$`));
    expect(await meter.getByRole('meter', { name: 'Context window used' }).getAttribute('value')).toBe(
      String(finished.context.tokens),
    );
    expect(await meter.getAttribute('title')).toContain(`${finished.context.tokens.toLocaleString('en-US')} tokens`);
    await shotAllModes(page, SHOTS, '42-context-meter', page.locator('.chat-head'));
  });

  it('after the session switches model, the meter measures the last run’s tokens against the new model’s window', async () => {
    const world = await worlds.start(talk, {}, { context_window: 8_192 });
    const outcome = await world.agent.say(`A question: ${'more context '.repeat(200)}`);
    const finished = outcome.events.at(-1);
    if (finished?.type !== 'run-finished' || finished.context === undefined) throw new Error('no context measured');
    const { context, page } = await openDesktop(browser, world.host);
    contexts.push(context);
    await page.goto(`${world.host.uiOrigin}/desktop/sessions/${world.agent.session.id}`);
    const meter = page.getByTestId('context-meter');
    await expect.poll(() => meter.textContent(), { timeout: 30_000 }).toMatch(/ of 8\.2K$/);
    await page.locator('#session-model').selectOption({ label: 'offline demo model' });
    const demoWindow = 32_000;
    const percent = Math.round((100 * finished.context.tokens) / demoWindow);
    await expect
      .poll(() => meter.textContent(), { timeout: 30_000 })
      .toMatch(new RegExp(`^Context\\s+${percent}% of 32K$`));
    expect(await meter.getByRole('meter').getAttribute('max')).toBe(String(demoWindow));
    expect(await meter.getAttribute('title')).toContain(`${demoWindow.toLocaleString('en-US')}-token context window`);
  });

  it('Settings sets an endpoint’s context window and whether its models take images, stored with its definition and in /models', async () => {
    const world = await worlds.start([], {}, {});
    const { context, page } = await openDesktop(browser, world.host);
    contexts.push(context);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    const row = page.getByTestId('endpoint-local');
    await row.getByLabel('Context window (tokens)').fill('8192');
    await row.getByLabel('Its models take images').check();
    await row.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('local: context window 8192 tokens; its models take images.').waitFor();
    const listed = await world.host.client.request<{
      endpoints: { id: string; context_window?: number; images?: boolean }[];
    }>('POST', '/providers/endpoints/list', {});
    const local = listed.body.endpoints.find((endpoint) => endpoint.id === 'local');
    expect([local?.context_window, local?.images]).toEqual([8192, true]);
    const offered = await world.host.client.request<{ groups: { provider: string; models: { images?: true }[] }[] }>(
      'GET',
      '/models',
    );
    expect(offered.body.groups.find((group) => group.provider === 'local')?.models[0]?.images).toBe(true);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 420]) {
        await page.setViewportSize({ width, height: 800 });
        await expectNoHorizontalOverflow(page);
        await row.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/41-settings-context-window-${scheme}-${width}.png` });
      }
    }
  });
});
