/// <reference lib="dom" />
/**
 * A message longer than the agent takes, in real Chromium against the real host and the scripted
 * loopback endpoint: the box says so above itself with the length and the limit and what to do
 * instead, Send is off and Enter sends nothing (no run, no request to the endpoint), the text stays
 * in the box; cut to the limit, it sends. Screenshots (light and dark, 1280 and 420 px) go to
 * test-output/ui/.
 */

import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { AGENT_MAX_MESSAGE_CHARS, type Session } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, useDesktopWorld, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { expectInViewport, shotAllModes, SHOTS } from './support/layout.js';

const SETTLED = { timeout: 30_000 };

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let page: Page;
let composer: Locator;
const send = () => page.getByRole('button', { name: 'Send' });
const session = async (id: string) => (await host.client.request<Session>('GET', `/sessions/${id}`)).body;

useDesktopWorld(
  () => openScriptedDesktopWorld(turns, 'sk-ui-limit-test-key'),
  (opened) => {
    world = opened;
    ({ host, page } = opened);
    composer = page.getByRole('combobox', { name: 'Message' });
  },
);

describe('a message over the limit', () => {
  it('says its length, the limit and what to do above the box; Send is off and Enter sends nothing; cut to the limit, it sends', async () => {
    await expect.poll(() => composer.getAttribute('placeholder'), SETTLED).toContain('/ for commands');
    // Lines of about 200 characters: Chromium inserts a text into a textarea a line break at a
    // time, and 3 000 short lines took it 10–27 s here, near the step's timeout.
    const line = `${'a log line to look at, '.repeat(9)}\n`;
    const long = line.repeat(Math.ceil(AGENT_MAX_MESSAGE_CHARS / line.length)).slice(0, AGENT_MAX_MESSAGE_CHARS + 1);
    // As a paste puts it in: the whole text at once.
    await composer.fill(long);
    const note = page.getByRole('status').filter({ hasText: 'one message holds at most' });
    await note.waitFor();
    expect(await note.textContent()).toBe(
      `This message is ${(AGENT_MAX_MESSAGE_CHARS + 1).toLocaleString('en-US')} characters; one message holds at most ${AGENT_MAX_MESSAGE_CHARS.toLocaleString('en-US')}. Put long text in a file in the project and mention it with @.`,
    );
    expect(await composer.getAttribute('aria-describedby')).toBe('composer-limit');
    expect(await send().isDisabled()).toBe(true);
    await expectInViewport(page, note, 'the note');
    await expectInViewport(page, composer, 'the message box');
    await shotAllModes(page, SHOTS, '45-message-limit');
    // The endpoint has been asked for its models; a run would add a chat request.
    const hits = world!.endpoint.hits;
    await composer.press('Enter');
    await page.waitForTimeout(300);
    expect(await composer.inputValue()).toBe(long);
    expect((await session(world!.sessionId)).last_run).toBeNull();
    expect(world!.endpoint.hits).toBe(hits);

    turns.push({ kind: 'text', pieces: ['Read it.'] });
    await composer.press('End');
    await composer.press('Backspace');
    await note.waitFor({ state: 'detached' });
    expect(await composer.getAttribute('aria-describedby')).toBeNull();
    await send().click();
    await expect.poll(async () => (await session(world!.sessionId)).last_run?.status, SETTLED).toBe('finished');
    expect(await composer.inputValue()).toBe('');
  });
});
