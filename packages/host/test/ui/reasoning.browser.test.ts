/// <reference lib="dom" />
/**
 * The session's reasoning effort in real Chromium against the real host and sidecar: a session on
 * a model that takes one (OpenAI's GPT-5, with a key set) shows Reasoning beside its model, and
 * what is chosen there is the session's (read back from the daemon), the model's default again
 * too, and `/reasoning` puts the focus there; a session on a model that takes none (the demo) shows
 * no such control. Screenshots (light
 * and dark, 1280 and 420 px) go to test-output/ui/.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Session } from '@bastion/protocol';
import type { TempHost } from '../support/temp-host.js';
import { openDesktopWorld, type DesktopWorld } from './support/desktop-world.js';
import { expectNoHorizontalOverflow, shotAllModes, SHOTS } from './support/layout.js';

let world: DesktopWorld | undefined;
let host: TempHost;
let page: Page;

beforeAll(async () => {
  world = await openDesktopWorld();
  ({ host, page } = world);
  const key = await host.client.request('POST', '/secrets/set', {
    provider: 'openai',
    key: 'sk-ui-reasoning-test-key',
  });
  expect(key.status).toBe(200);
}, 90_000);

afterAll(() => world?.close());

const session = async (id: string) => (await host.client.request<Session>('GET', `/sessions/${id}`)).body;

describe('Reasoning effort in the desktop app', () => {
  it('shows Reasoning for GPT-5 and makes the choice the session’s, the model’s default again too', async () => {
    const created = await host.client.request<Session>('POST', '/sessions', { provider: 'openai', model: 'gpt-5' });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
    const reasoning = page.getByLabel('Reasoning');
    await reasoning.waitFor();
    expect(await reasoning.inputValue()).toBe('');
    await reasoning.selectOption('high');
    await expect.poll(async () => (await session(created.body.id)).reasoning_effort).toBe('high');
    await expectNoHorizontalOverflow(page);
    await shotAllModes(page, SHOTS, '49-reasoning');
    await reasoning.selectOption('');
    await expect.poll(async () => (await session(created.body.id)).reasoning_effort).toBeUndefined();
    // `/reasoning` in the message box puts the focus on the list.
    const composer = page.getByLabel('Message');
    await composer.fill('/reasoning');
    await composer.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('reasoning');
  });

  it('shows no Reasoning for a model that takes none (the demo)', async () => {
    const created = await host.client.request<Session>('POST', '/sessions', { provider: 'demo' });
    await page.goto(`${host.uiOrigin}/desktop/sessions/${created.body.id}`);
    await page.locator('#mode').waitFor();
    await page.locator('#session-model').waitFor();
    expect(await page.getByLabel('Reasoning').count()).toBe(0);
  });
});
