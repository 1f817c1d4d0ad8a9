/// <reference lib="dom" />
/**
 * One approval shown in two tabs of one host, in real Chromium with the real host and sidecar
 * (scripted model). Allow in one tab takes the question out of the other as the run it started
 * streams there. A tab that has not heard of that run yet still shows the question: Allow there,
 * while the run the first answer started goes on, says "This was already answered (in another tab
 * or window)." and takes the card away (it was RUN_ACTIVE, "a run is already active for this
 * session"), and the command runs once. Two approvals asked in one step are asked one at a time in
 * every tab: each answer, given in either tab, takes its question out of both as it is given (the
 * daemon tells it on the stream, tool-approval-response) and the next shows; the same approval
 * answered in two tabs is decided once. A tab that has not heard of an answer is opened as soon as
 * the message is sent, its stream cut after the step's pause and its reconnect held
 * (support/held-stream.ts): it has every question of the step whenever it read the log, and hears
 * of the answer once the test lets its reconnect go. Screenshots go to test-output/ui/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { UI_APPROVAL_ANSWER_GUARD_MS, type EventPageResponse } from '@bastion/protocol';
import type { ScriptedTurn } from '@bastion/test-support';
import type { TempHost } from '../support/temp-host.js';
import { openScriptedDesktopWorld, sendMessage, type ScriptedDesktopWorld } from './support/desktop-world.js';
import { holdStreams, type HeldStreams } from './support/held-stream.js';
import { twoCallTurns } from './support/touch-turns.js';
import { shotAllModes, SHOTS } from './support/layout.js';

const turns: ScriptedTurn[] = [];
let world: ScriptedDesktopWorld | undefined;
let host: TempHost;
let first: Page;
let second: Page | undefined;
/** The second tab's event streams, while it must not hear of the answer. */
let held: HeldStreams | undefined;
/** Lets the model's held turn go on (a failed test leaves it for afterAll). */
let release = () => {};

beforeAll(async () => {
  world = await openScriptedDesktopWorld(turns, 'sk-approval-two-tabs-key');
  ({ host, page: first } = world);
}, 90_000);

afterAll(async () => {
  release();
  await held?.abort();
  await second?.close();
  await world?.close();
});

/** A second tab of the same browser on the session, once it shows the question. */
async function openSecondTab(): Promise<Page> {
  const page = await first.context().newPage();
  await page.goto(`${host.uiOrigin}/desktop/sessions/${world?.sessionId}`);
  await page.getByRole('region', { name: 'Approval needed' }).waitFor();
  return page;
}

/** The id of the event that paused the session's run for its step's approvals, once it is in the log. */
async function pausedAt(): Promise<number> {
  let paused: number | undefined;
  await expect
    .poll(async () => {
      const page = await host.client.request<EventPageResponse>('GET', `/sessions/${world?.sessionId}/events?limit=1`);
      const newest = page.body.events.at(-1);
      paused =
        newest?.event.type === 'run-finished' && newest.event.finish_reason === 'approval-pending'
          ? newest.id
          : undefined;
      return paused;
    })
    .toBeDefined();
  return paused as number;
}

/**
 * A second tab opened now, its stream cut after the step's pause and its reconnect held: it shows
 * the step's questions (from its read of the log or its stream, whichever came first) and hears
 * nothing after them until `held.release()`.
 */
async function openHeldTab(): Promise<Page> {
  const page = await first.context().newPage();
  held = await holdStreams(page, { relayFirst: true });
  await page.goto(`${host.uiOrigin}/desktop/sessions/${world?.sessionId}`);
  await held.cutAfter(await pausedAt());
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

/** `answer` on the question in `page`, once its first moments (when it ignores clicks) are past. */
async function answer(page: Page, answer: 'Allow' | 'Deny' = 'Allow'): Promise<void> {
  const region = page.getByRole('region', { name: 'Approval needed' });
  await region.waitFor();
  await page.waitForTimeout(UI_APPROVAL_ANSWER_GUARD_MS + 100);
  await region.getByRole('button', { name: answer, exact: true }).click();
}
const allow = (page: Page) => answer(page, 'Allow');

it('Allow in one tab takes the question out of the other tab too, and the command runs once', async () => {
  const marker = 'allowed-in-first-tab';
  turns.push(...touchTurns(marker, 'First tab done.'));
  await sendMessage(first, 'Run it');
  second = await openSecondTab();
  await allow(first);
  await second.getByText('First tab done.').waitFor();
  expect(await second.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
  await first.getByText('First tab done.').waitFor();
  expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
  await second.close();
  second = undefined;
});

it('Allow in a tab that has not heard of the answer yet says it was already answered in another tab or window, and takes the card away; its stream back, it shows the run the answer started', async () => {
  const marker = 'allowed-twice';
  const released = new Promise<void>((resolve) => (release = resolve));
  turns.push(...touchTurns(marker, 'Second run done.', released));
  await sendMessage(first, 'Run it again');
  second = await openHeldTab();
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
  // Its reconnect let go, the tab hears the rest of the run from where its stream was cut.
  await held?.release();
  await second.getByText('Second run done.').waitFor();
  expect(await second.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
  expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
});

/** The question `page` shows now, once it is the one about `marker`'s command. */
async function asking(page: Page, marker: string): Promise<void> {
  await page
    .getByRole('region', { name: 'Approval needed' })
    .locator('.approval-command')
    .filter({ hasText: marker })
    .waitFor();
}

/** The status line of the tool card of `marker`'s command in `page`. */
const cardStatus = (page: Page, marker: string) =>
  page.getByRole('article', { name: 'Tool run_command' }).filter({ hasText: marker }).getByTestId('tool-status');

/** The answers the daemon recorded in the session's event log, as tool call id → approved. */
async function answersTold(): Promise<boolean[]> {
  const page = await host.client.request<EventPageResponse>('GET', `/sessions/${world?.sessionId}/events?limit=500`);
  return page.body.events.flatMap(({ event }) => (event.type === 'tool-approval-response' ? [event.approved] : []));
}

it('two approvals asked in one step: each answer, given in either tab, takes its question out of both tabs as it is given and the next shows; the run goes on once both are answered', async () => {
  await second?.close();
  const markers = ['step-first', 'step-second'] as const;
  turns.push(...twoCallTurns(markers, 'Both ran.'));
  await sendMessage(first, 'Run both');
  second = await openSecondTab();
  for (const page of [first, second]) {
    await asking(page, markers[0]);
    await page.getByRole('region', { name: 'Approval needed' }).getByText('· 1 more after this').waitFor();
  }
  await shotAllModes(first, SHOTS, '94-two-approvals', first.getByRole('region', { name: 'Approval needed' }));
  await allow(first);
  // The second tab asks the next one, and says the first is allowed, as the first tab does.
  for (const page of [second, first]) {
    await asking(page, markers[1]);
    expect(await page.getByRole('region', { name: 'Approval needed' }).getByText('more after this').count()).toBe(0);
    await expect.poll(() => cardStatus(page, markers[0]).textContent()).toBe('allowed, not run yet');
    expect(await cardStatus(page, markers[1]).textContent()).toBe('waiting for approval');
  }
  await shotAllModes(second, SHOTS, '94-two-approvals-next', second.getByRole('region', { name: 'Approval needed' }));
  // Nothing ran yet: the run goes on once every approval of the step is answered.
  expect(markers.map((marker) => existsSync(join(host.workspace, marker)))).toEqual([false, false]);
  await allow(second);
  for (const page of [first, second]) {
    await page.getByText('Both ran.').waitFor();
    expect(await page.getByRole('region', { name: 'Approval needed' }).count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
  }
  for (const marker of markers) expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
  await second.close();
  second = undefined;
});

it('the same approval of a two-approval step answered in two tabs is decided once: the tab that has not heard of the first answer is told it was already answered and asks the next one; its stream back, it shows the first allowed', async () => {
  const markers = ['decided-once-first', 'decided-once-second'] as const;
  turns.push(...twoCallTurns(markers, 'Decided once.'));
  const toldBefore = (await answersTold()).length;
  await sendMessage(first, 'Run both again');
  second = await openHeldTab();
  await second.getByRole('region', { name: 'Approval needed' }).getByText('1 more after this').waitFor();
  await allow(first);
  await asking(first, markers[1]);
  // Deny in the tab whose stream is held: refused as already answered, the next question shows.
  await answer(second, 'Deny');
  const note = second.getByRole('status').filter({ hasText: 'already answered' });
  await note.waitFor();
  expect(await note.textContent()).toBe('This was already answered (in another tab or window).');
  await asking(second, markers[1]);
  expect(await second.getByRole('alert').count()).toBe(0);
  // Its reconnect let go, the tab hears the first answer: the first command allowed, the second still asked.
  await held?.release();
  await expect.poll(() => cardStatus(second!, markers[0]).textContent()).toBe('allowed, not run yet');
  await asking(second, markers[1]);
  await allow(first);
  await first.getByText('Decided once.').waitFor();
  await second.getByText('Decided once.').waitFor();
  // One answer each, both Allow: the late Deny decided nothing, and each command ran once.
  expect((await answersTold()).slice(toldBefore)).toEqual([true, true]);
  for (const marker of markers) expect(readFileSync(join(host.workspace, marker), 'utf8')).toBe('ran\n');
});
