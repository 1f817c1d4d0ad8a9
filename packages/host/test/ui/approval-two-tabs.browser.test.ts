/// <reference lib="dom" />
/**
 * One approval shown in two tabs of one host, in real Chromium with the real host and sidecar
 * (scripted model). Allow in one tab takes the question out of the other as the run it started
 * streams there. A tab that has not heard of that run yet (its event stream held) still shows the
 * question: Allow there, while the run the first answer started goes on, says "This was already
 * answered (in another tab or window)." and takes the card away (it was RUN_ACTIVE, "a run is
 * already active for this session"), and the command runs once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { UI_APPROVAL_ANSWER_GUARD_MS } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let first: Page;
let second: Page | undefined;
/** The second tab's event streams, held unanswered while it must not hear of the run. */
const heldStreams: Route[] = [];
/** Lets the model's held turn go on (a failed test leaves it for afterAll). */
let release = () => {};

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, 'sk-approval-two-tabs-key');
  ({ host, page: first } = world);
}, 90_000);

afterAll(async () => {
  release();
  await Promise.all(heldStreams.map((route) => route.abort().catch(() => undefined)));
  await second?.close();
  await world?.close();
});

/** A second tab of the same browser on the session, once it shows the question. */
async function openSecondTab(holdStream: boolean): Promise<Page> {
  const page = await first.context().newPage();
  if (holdStream) {
    await page.route('**/agent/stream/**', (route) => {
      heldStreams.push(route);
    });
  }
  await page.goto(`${host.uiOrigin}/desktop/sessions/${world?.sessionId}`);
  await page.getByRole('region', { name: 'Approval needed' }).waitFor();
  return page;
}

/** `touch marker` asked for, then `reply` once it ran (held until `release` when given). */
function touchTurns(marker: string, reply: string, release?: Promise<unknown>): ScriptedTurn[] {
  return [
    { kind: 'tool-call', name: 'run_command', input: { command: 'sh', args: ['-c', `echo ran >> ${marker}`] } },
    { kind: 'text', pieces: [reply], ...(release ? { hold: release } : {}) },
  ];
}

/** Allow on the question in `page`, once its first moments (when it ignores clicks) are past. */
async function allow(page: Page): Promise<void> {
  const region = page.getByRole('region', { name: 'Approval needed' });
  await region.waitFor();
  await page.waitForTimeout(UI_APPROVAL_ANSWER_GUARD_MS + 100);
  await region.getByRole('button', { name: 'Allow', exact: true }).click();
}

it('Allow in one tab takes the question out of the other tab too, and the command runs once', async () => {
  const marker = 'allowed-in-first-tab';
  turns.push(...touchTurns(marker, 'First tab done.'));
  await sendMessage(first, 'Run it');
  second = await openSecondTab(false);
  await allow(first);
  await second.getByText('First tab done.').waitFor();
  expect(await second.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
  await first.getByText('First tab done.').waitFor();
  expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
  await second.close();
  second = undefined;
});

it('Allow in a tab that has not heard of the answer yet says it was already answered in another tab or window, and takes the card away', async () => {
  const marker = 'allowed-twice';
  const released = new Promise<void>((resolve) => (release = resolve));
  turns.push(...touchTurns(marker, 'Second run done.', released));
  await sendMessage(first, 'Run it again');
  second = await openSecondTab(true);
  await allow(first);
  // The first answer's run has run the command and waits on the model: it is going.
  await first.getByRole('region', { name: 'Approval needed' }).waitFor({ state: 'detached' });
  await expect.poll(() => readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
  await allow(second);
  const note = second.getByRole('status').filter({ hasText: 'already answered' });
  await note.waitFor();
  expect(await note.textContent()).toBe('This was already answered (in another tab or window).');
  expect(await second.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
  expect(await second.getByText('Waiting for your approval').count()).toBe(0);
  expect(await second.getByRole('alert').count()).toBe(0);
  release();
  await first.getByText('Second run done.').waitFor();
  expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
});
