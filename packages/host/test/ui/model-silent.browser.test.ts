/// <reference lib="dom" />
/**
 * The activity line while a run waits on a silent model, in real Chromium against the real host,
 * sidecar and the scripted loopback endpoint. The page's clock is Playwright's (installed before
 * the page loads), so the test moves it past UI_MODEL_SILENT_NOTICE_MS instead of waiting: a
 * model that has sent nothing for that long is said, with how long; a command the run is running
 * meanwhile is not the model's silence.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { UI_MODEL_SILENT_NOTICE_MS } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, useDesktopWorld } from './support/desktop-world.js';
import { shotAllModes, SHOTS } from './support/layout.js';

const turns: ScriptedTurn[] = [];
let host: TempHost;
let page: Page;
let sessionId: string;

useDesktopWorld(
  async () => {
    const world = await openScriptedDesktopWorld(turns, 'sk-model-silent-test-key');
    await world.page.clock.install();
    await world.page.reload();
    await world.page.getByLabel('Message').waitFor();
    return world;
  },
  (opened) => ({ host, page, sessionId } = opened),
);

const activity = () => page.getByTestId('activity');
const silent = () => page.getByTestId('model-silent');

describe('the activity line while the model is silent', () => {
  it('says "nothing from the model for 20s" once the held model has sent nothing past the notice, and not before', async () => {
    let answer: () => void = () => undefined;
    turns.push({ kind: 'text', pieces: ['Answered at last.'], hold: new Promise<void>((done) => (answer = done)) });
    await sendMessage(page, 'Say something');
    await activity().getByText('Working…').waitFor();
    await page.clock.fastForward(UI_MODEL_SILENT_NOTICE_MS - 2_000);
    await expect.poll(() => activity().textContent()).toMatch(/^ Working… 1\ds · Esc to stop$/);
    expect(await silent().count()).toBe(0);
    await page.clock.fastForward(7_000);
    await expect.poll(() => silent().textContent()).toMatch(/^ · nothing from the model for 2\ds$/);
    await shotAllModes(page, SHOTS, '98-model-silent', activity());
    answer();
    await page.getByText('Answered at last.').waitFor();
    await activity().waitFor({ state: 'detached' });
  });

  it('says nothing of the model while the run’s command runs past the notice, however long', async () => {
    await host.client.request('PATCH', `/sessions/${sessionId}`, { mode: 'auto', consent_by: 'ui' });
    // The command goes on only once the file `go` exists, which the test makes after its look.
    const script = 'echo started; while [ ! -e go ]; do sleep 0.05; done';
    turns.push(
      { kind: 'tool-call', name: 'run_command', input: { command: 'sh', args: ['-c', script] } },
      { kind: 'text', pieces: ['The command finished.'] },
    );
    await sendMessage(page, 'Run the slow script');
    const card = page.getByRole('article', { name: 'Tool run_command' }).last();
    await card.getByTestId('live-output').getByText('started').waitFor();
    await page.clock.fastForward(UI_MODEL_SILENT_NOTICE_MS * 2);
    await expect.poll(() => activity().textContent()).toMatch(/^ Working… \d+s · Esc to stop$/);
    expect(await silent().count()).toBe(0);
    writeFileSync(join(host.workspace, 'go'), '');
    await page.getByText('The command finished.').waitFor();
  });
});
